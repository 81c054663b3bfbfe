"""A sentence that goes wrong, at 1280×720 in Chromium: the message appears in place under the sentence box, in the
visitor's language, with no toast, and the translation, the token strip and the main map stay as they were.

Same server as test_app_browser.py (two tiny random checkpoints); the tests run in file order on one page each.
"""

from __future__ import annotations

import json

import pytest

from tests.pages import SENTENCE, WAIT, expected_trace, open_app_page, toasts, wait_plot, wait_translation
from transformer_viz import i18n
from transformer_viz.translator import MAX_CHARS

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 720}
LONG = "the dog sees the house. " * 125  # 3,000 characters, pasted
# What a visitor sees of the translation: its text, the token strip and the main map's figure, as Plotly holds it
# (its data, title and labels; not the sizes Plotly computes, which follow the box a notice above may shrink).
SHOWN = """() => { const el = document.querySelector('#plot-cross .js-plotly-plot');
    return {translation: document.querySelector('#translation textarea').value,
            strip: document.querySelector('#token-strip').innerHTML,
            share: document.querySelector('#share-link textarea').value,
            map: el && el.data ? JSON.stringify({data: el.data, title: el.layout.title.text,
                                                 rows: el.layout.yaxis.ticktext, columns: el.layout.xaxis.ticktext})
                               : null}; }"""
# Whether each part of the answer on the page is drawn greyed out (faded), as after a refused sentence.
ANSWER = ("translation", "token-strip", "lesson-maps")
GREYED = (
    f"() => Object.fromEntries({json.dumps(ANSWER)}"
    ".map(id => [id, Number(getComputedStyle(document.getElementById(id)).opacity) < 0.5]))"
)
MESSAGE = "() => { const el = document.querySelector('#sentence-error'); return el ? el.innerText.trim() : ''; }"


@pytest.fixture(scope="module")
def open_page(browser, app_server):
    """open_page(locale) → a page of the app; the one before it is closed (each holds the server's streams)."""
    contexts = []

    def open_one(locale: str):
        while contexts:
            contexts.pop().close()
        context, page = open_app_page(browser, app_server[0], locale, VIEWPORT)
        contexts.append(context)
        return page

    yield open_one
    while contexts:
        contexts.pop().close()


def translate(page, sentence: str) -> None:
    page.fill("#sentence textarea", sentence)
    page.click("#translate")


def wait_message(page, text: str) -> str:
    """Wait until the box under the sentence shows `text`; then let any event still queued run out."""
    try:
        page.wait_for_function(f"t => ({MESSAGE})().includes(t)", arg=text, timeout=WAIT)
    except Exception:
        raise AssertionError(f"#sentence-error never showed {text!r}; it shows {page.evaluate(MESSAGE)!r}") from None
    page.wait_for_timeout(1500)  # what would follow a translation (the redraws) has had its time to change the page
    return page.evaluate(MESSAGE)


def translate_first(page, library) -> dict:
    translate(page, SENTENCE)
    wait_translation(page, expected_trace(library).target_text)
    wait_plot(page, "plot-cross")
    # the steps' frames came, and painted the map
    page.wait_for_function("() => !!transformerViz.page.frames", timeout=WAIT)
    page.wait_for_timeout(1000)  # the redraws after the translation have drawn the map for good
    assert page.evaluate(MESSAGE) == ""  # nothing to say: the box is empty
    box = page.locator("#sentence-error")
    assert box.count() == 0 or not box.is_visible() or box.bounding_box()["height"] < 4  # and takes no room
    return page.evaluate(SHOWN)


def test_empty_and_unreadable_sentences_leave_the_translation_as_it_was(open_page, library):
    page = open_page("en-US")
    before = translate_first(page, library)
    translate(page, "   ")
    assert i18n.text("err-empty", "en")[1:] in wait_message(page, i18n.text("err-empty", "en")[1:])
    assert page.evaluate(SHOWN) == before
    # emoji only: every piece is <unk>; the model's "translation" of that would teach nothing, so the page
    # says so in place and keeps the translation a teacher was showing
    unreadable = next(n for n in library.trace("🙂🙂🙂🙂").notices if n.key == "notice-unknown-pieces")
    assert unreadable.key == "notice-unknown-pieces" and unreadable.params["unknown"] == unreadable.params["total"]
    translate(page, "🙂🙂🙂🙂")
    said = wait_message(page, i18n.message(unreadable, "en")[1:])
    assert page.evaluate(SHOWN) == before
    assert toasts(page) == []  # no toast, and so no error badges over the outputs
    # ... and that the answer still on screen is the sentence before's, greyed out so that it does not look like
    # the answer to this one
    assert i18n.text("notice-previous-kept", "en")[1:] in said
    assert page.evaluate(GREYED) == dict.fromkeys(ANSWER, True)
    # only markup: nothing to translate either
    translate(page, "<b></b> <br>")
    said = wait_message(page, i18n.text("err-only-markup", "en")[1:])
    assert page.evaluate(SHOWN) == before and i18n.text("notice-previous-kept", "en")[1:] in said
    # the next good sentence clears the message and the grey
    translate(page, "I see the dog.")
    wait_translation(page, expected_trace(library, "I see the dog.").target_text)
    page.wait_for_function(f"() => ({MESSAGE})() === ''", timeout=WAIT)
    page.wait_for_function(f"() => Object.values(({GREYED})()).every(g => !g)", timeout=WAIT)


def test_a_long_paste_is_translated_and_its_cut_announced_in_place(open_page, library):
    page = open_page("en-US")
    before = translate_first(page, library)
    assert len(LONG) == 3000
    translate(page, LONG)
    # it is translated (its first MAX_CHARS characters, as far as the model reads): a new translation, said so
    wait_message(page, i18n.text("notice-cut-chars", "en", n=MAX_CHARS)[1:])
    wait_translation(page, expected_trace(library, LONG).target_text)
    assert page.evaluate(SHOWN)["strip"] != before["strip"]
    assert toasts(page) == []


def test_markup_around_a_sentence_is_left_out_and_said(open_page, library):
    page = open_page("en-US")
    translate_first(page, library)
    translate(page, "<b>I see the dog.</b>")
    wait_message(page, i18n.text("notice-markup", "en", n=2)[1:])
    wait_translation(page, expected_trace(library, "I see the dog.").target_text)  # the text between the tags
    assert toasts(page) == []


def test_the_message_comes_in_the_visitors_language(open_page, library):
    page = open_page("ja-JP")
    before = translate_first(page, library)
    translate(page, "")
    shown = wait_message(page, i18n.text("err-empty", "ja"))
    assert i18n.text("err-empty", "en")[1:] not in shown
    assert page.evaluate(SHOWN) == before
    assert toasts(page) == []
    page.get_by_label("한국어").check()  # a new language says it again, in that language
    assert i18n.text("err-empty", "ja") not in wait_message(page, i18n.text("err-empty", "ko"))
