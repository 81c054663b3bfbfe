"""The presenter's keys in Chromium: the app's page (one browser tab) and the lesson file opened with the network cut.

What each key does and when none does is checked in Node (tests/js/keys.test.js); here the real pages answer them:
the arrows and PageDown step, ↑/↓ and a digit change the layer and the head as the controls do (the map's title, a
tab's view and the share link follow), Space plays and pauses, a key typed in the sentence box stays in it, and ?
shows the keys' help in the page's language. Each test of the page starts from the lesson it names (start_lesson).
"""

from __future__ import annotations

import pytest

from tests.pages import SENTENCE, WAIT, lesson_link, offline_lesson, start_lesson, wait_plot, wait_step
from transformer_viz import i18n
from transformer_viz.figures import attention, language

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

# The page's share link holds these parameters (among others): the layer and head reached the controls.
LINK_HAS = """want => { const box = document.querySelector('#share-link textarea');
  if (!box || !box.value.startsWith('http')) return false;
  const have = new URL(box.value).searchParams;
  return Object.entries(want).every(([k, v]) => have.get(k) === v); }"""
STEP = "#step-slider input[type=number]"
HELP_SHOWN = "() => { const el = document.querySelector('#keys-help'); return !!el && el.getClientRects().length > 0; }"


@pytest.fixture(scope="module")
def page(browser):
    """One tab at a projector's size for the module's tests of the app."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda err: errors.append(str(err)))
    yield tab
    context.close()
    assert errors == []


def on_the_lesson(page) -> None:
    """Focus on the page itself, as after a click on the lesson's text: no box, button or slider holds it."""
    page.click("#step-label")
    assert page.evaluate("() => document.activeElement === document.body")


def test_the_arrows_and_a_clickers_page_keys_step(page, app_server):
    url, _ = app_server
    start_lesson(page, lesson_link(url))
    on_the_lesson(page)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    page.keyboard.press("ArrowLeft")
    wait_step(page, 0)
    page.keyboard.press("PageDown")
    wait_step(page, 1)
    page.keyboard.press("PageUp")
    wait_step(page, 0)
    assert page.evaluate("() => window.scrollY") == 0  # PageDown stepped; it did not scroll


def test_up_down_and_digits_change_the_layer_and_the_head(page, app_server):
    url, _ = app_server
    start_lesson(page, lesson_link(url, step=1))
    on_the_lesson(page)
    page.keyboard.press("ArrowUp")
    wait_plot(page, "plot-cross", "Layer 1", "Head mean", "step 1:")
    page.keyboard.press("2")
    wait_plot(page, "plot-cross", "Layer 1", "Head 2", "step 1:")
    wait_plot(page, "plot-alignment", "Layer 1", "Head 2")  # a tab's view that follows the controls follows
    page.wait_for_function(LINK_HAS, arg={"layer": "1", "head": "2", "step": "1"}, timeout=WAIT)
    # the tiny model has 2 layers and 4 heads: ↑ on the last layer and 7 leave the lesson as it is
    page.keyboard.press("ArrowUp")
    page.keyboard.press("7")
    page.keyboard.press("ArrowDown")
    wait_plot(page, "plot-cross", "Layer 0", "Head 2", "step 1:")
    page.keyboard.press("m")
    wait_plot(page, "plot-cross", "Layer 0", "Head mean", "step 1:")
    page.wait_for_function(LINK_HAS, arg={"layer": "0", "head": "mean", "step": "1"}, timeout=WAIT)
    assert page.input_value("#layer input[type=number]") == "0" and page.input_value("#head input") == "mean"


def test_space_plays_and_pauses(page, app_server):
    url, _ = app_server
    start_lesson(page, lesson_link(url))
    on_the_lesson(page)
    page.keyboard.press(" ")
    page.wait_for_function("() => transformerViz.page.playing", timeout=WAIT)
    page.wait_for_function(f"() => Number(document.querySelector({STEP!r}).value) >= 1", timeout=WAIT)
    page.keyboard.press(" ")
    page.wait_for_function("() => !transformerViz.page.playing", timeout=WAIT)
    page.wait_for_function(
        "t => document.querySelector('#step-play').innerText.trim() === t", arg=i18n.text("play"), timeout=WAIT
    )


def test_keys_typed_in_the_sentence_box_stay_there(page, app_server):
    url, _ = app_server
    start_lesson(page, lesson_link(url, step=1))
    page.click("#sentence textarea")
    for key in ("ArrowLeft", "ArrowRight", "PageDown", "ArrowUp", "End", "2", "m", " "):
        page.keyboard.press(key)
    assert page.input_value("#sentence textarea") == SENTENCE + "2m "
    assert page.input_value("#head input") == "mean"
    page.fill("#sentence textarea", SENTENCE)  # as the link has it, for the next test's lesson
    on_the_lesson(page)
    page.keyboard.press("ArrowRight")  # one step on from where the box left the lesson: step 1
    wait_step(page, 2)


def test_question_mark_shows_the_keys_in_the_pages_language(page, app_server):
    url, _ = app_server
    start_lesson(page, lesson_link(url))
    on_the_lesson(page)
    assert not page.evaluate(HELP_SHOWN)
    page.keyboard.press("?")
    page.wait_for_function(HELP_SHOWN, timeout=WAIT)
    panel = page.locator("#keys-help")
    for key in ("keys-title", "keys-play", "keys-clicker"):
        assert i18n.text(key, "en") in panel.inner_text()
    box = panel.bounding_box()  # over the lesson, whole on a projector's screen
    assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= 1280 and box["y"] + box["height"] <= 720
    page.get_by_label("日本語").check()
    page.wait_for_function(
        "t => document.querySelector('#keys-help').innerText.includes(t)",
        arg=i18n.text("keys-play", "ja"),
        timeout=WAIT,
    )
    assert i18n.text("keys-title", "ja") in panel.inner_text() and page.evaluate(HELP_SHOWN)
    on_the_lesson(page)
    page.keyboard.press("Escape")
    assert not page.evaluate(HELP_SHOWN)
    page.keyboard.press("ArrowRight")  # and the keys step the lesson in Japanese too
    page.wait_for_function(
        "s => document.querySelector('#step-label').innerText.startsWith(s)", arg="ステップ 1", timeout=WAIT
    )


def test_the_lesson_file_answers_the_keys_offline(browser, german_lesson):
    path, trace = german_lesson
    assert trace.n_layers == 2 and trace.n_heads == 4 and len(trace.target_ids) > 3

    def title(layer, head, step) -> str:
        with language("de"):
            return attention.attention_head(trace, "cross", layer, head, step=step).layout.title.text

    shown = "() => document.querySelector('#lesson-cross').layout.title.text"
    with offline_lesson(browser, path) as page:
        assert page.evaluate(shown) == title(0, "mean", 0)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("PageDown")
        assert page.evaluate(shown) == title(0, "mean", 2)
        page.keyboard.press("ArrowUp")
        page.keyboard.press("3")
        assert page.evaluate(shown) == title(1, 3, 2)
        assert page.input_value("#layer") == "1" and page.input_value("#head") == "3"
        page.keyboard.press("m")
        page.keyboard.press("ArrowLeft")
        assert page.evaluate(shown) == title(1, "mean", 1)
        page.focus("#step-next")  # a button's keys are its own
        page.keyboard.press("ArrowRight")
        assert page.evaluate(shown) == title(1, "mean", 1)
        page.evaluate("() => document.activeElement.blur()")
        page.keyboard.press("?")
        assert page.evaluate(HELP_SHOWN)
        help_text = page.inner_text("#keys-help")
        assert all(i18n.text(key, "de") in help_text for key in ("keys-title", "keys-play", "keys-space"))
        page.keyboard.press("?")
        assert not page.evaluate(HELP_SHOWN)
