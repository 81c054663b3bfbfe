"""Score my German in Chromium at 1280×720: a visitor's German scored under the translation (its figure drawn with
the German's pieces as labels, its explanation), the lesson stepping through it piece by piece with the main map
following, its share link bringing German, score and lesson back in another language, and each bad German answered
in place under its box in the visitor's language.

Expected values come from the library (the app's checkpoints loaded here). One browser tab for the module, which each
test puts on the lesson it starts from (tests/pages.py: start_lesson); the bad inputs share one open page per
language.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlparse

import pytest

from tests.pages import (
    WAIT,
    escaped,
    expected_trace,
    screenshot,
    toasts,
    translation,
    wait_plot,
    wait_step,
    wait_ticks,
    wait_translation,
)
from tests.tiny import shown
from transformer_viz import i18n
from transformer_viz.app.score import explanation, refuse_unreadable
from transformer_viz.errors import UserError
from transformer_viz.figures.strip import readable
from transformer_viz.figures.style import piece_label

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "I see the house."
GERMAN = "Ich sehe die Haus."  # a learner's German: "Haus" is neuter ("das Haus")
BAD = {
    "empty": "",
    "only markup": "<b></b> <i>",
    "too long": "der Hund mag den Garten. " * 30,  # more pieces than the models read, in 750 characters
    "unknown pieces": "😀 😀",  # characters the tokenizer never saw: nothing left to score
    "a paste": "Haus " * 600,  # 3,000 characters
}
# What a visitor sees of the lesson and the score: the translation, the token strip, the share link, the main map
# (its data, title and labels) and the score's figure (its title and labels), as the page holds them.
SHOWN = """() => { const map = document.querySelector('#plot-cross .js-plotly-plot'),
                        score = document.querySelector('#plot-your-german .js-plotly-plot');
    return {translation: document.querySelector('#translation textarea').value,
            strip: document.querySelector('#token-strip').innerHTML,
            share: document.querySelector('#share-link textarea').value,
            map: map && map.data ? JSON.stringify({data: map.data, title: map.layout.title.text,
                                                   rows: map.layout.yaxis.ticktext, columns: map.layout.xaxis.ticktext})
                                 : null,
            score: score && score.layout ? JSON.stringify([score.layout.title.text, score.layout.yaxis.ticktext])
                                         : null};
}"""
# What is said under the German's box (its paragraphs: not the progress Gradio shows over it while it waits).
SAID = """() => [...document.querySelectorAll('#your-german-error p')].map(p => p.innerText.trim()).join('\\n')"""
# Whether the score's figure and explanation are drawn greyed out (faded), as under a refused German.
GREYED = """() => ['plot-your-german', 'your-german-explanation']
    .every(id => Number(getComputedStyle(document.getElementById(id)).opacity) < 0.5)"""


def forced_trace(library, german: str = GERMAN):
    """The lesson of the German: every piece forced as the output, its </s> the last step."""
    ids = library.tokenizer.encode(german)
    return expected_trace(library, SENTENCE, max_new_tokens=len(ids), forced_prefix=ids)


def score_german(page, german: str, enter: bool = False) -> None:
    """Type the German and press Score my German (or Enter in its box)."""
    page.fill("#your-german textarea", german)
    if enter:
        page.press("#your-german textarea", "Enter")
    else:
        page.click("#score-german")


def wait_text(page, selector: str, text: str) -> str:
    """Wait until the element's visible text contains `text` (spaces as the page shows them); return that text."""
    try:
        page.wait_for_function(
            "([s, t]) => { const el = document.querySelector(s);"
            " return !!el && el.innerText.replace(/\\s+/g, ' ').includes(t); }",
            arg=[selector, " ".join(text.split())],
            timeout=WAIT,
        )
    except Exception:
        raise AssertionError(f"{selector} never showed {text!r}; it shows {page.inner_text(selector)!r}") from None
    return page.inner_text(selector)


def visible(markdown: str) -> str:
    """The text a visitor reads of Markdown the page renders, its spaces as one."""
    return " ".join(shown(markdown)[1].split())


def refusal(library, german: str) -> UserError:
    """Why the page refuses this German: the library's refusal, or the page's own of German it cannot read at all."""
    try:
        score = library.score(SENTENCE, german)
    except UserError as err:
        return err
    with pytest.raises(UserError) as refused:
        refuse_unreadable(score.notices)
    return refused.value


# ------------------------------------------------------------------------------------------------ tests
def test_a_scored_german_is_drawn_and_the_lesson_steps_through_its_pieces(lesson, library):
    score, trace = library.score(SENTENCE, GERMAN), forced_trace(library)
    assert trace.target_ids == score.german.ids  # the lesson's pieces are the score's
    page = lesson()
    assert not page.locator("#plot-your-german").is_visible()  # nothing scored yet: no empty figure
    score_german(page, GERMAN, enter=True)
    wait_translation(page, trace.target_text)  # the lesson is the German, forced as the output
    info = wait_ticks(page, "plot-your-german", escaped(score.german.tokens))  # a row per piece, </s> included
    assert f"{score.german.total:.2f}" in info["title"] and f"{score.greedy.total:.2f}" in info["title"]
    wait_text(page, "#your-german-explanation", visible(explanation(score, "en")))
    wait_text(page, "#branch-info", visible(i18n.text("german-info", "en", german=GERMAN)))
    link = dict(parse_qsl(urlparse(page.input_value("#share-link textarea")).query))
    assert link["german"] == GERMAN and link["sentence"] == SENTENCE and "branch" not in link
    screenshot(page, "#your-german-section", "your-german.png")
    strip = page.locator("#token-strip button.tv-piece").all_inner_texts()
    assert [piece.strip() for piece in strip] == [readable(token)[0] for token in score.german.tokens]
    for step, token in enumerate(trace.target_tokens):  # the strip, the step line and the main map, piece by piece
        if step:
            page.click("#step-next")
        wait_step(page, step)
        assert page.inner_text("#token-strip .tv-current").strip() == readable(token)[0]
        assert page.inner_text("#step-label strong") == piece_label(token)
        assert i18n.text("forced", "en").strip() in page.inner_text("#step-label")
        wait_plot(page, "plot-cross", f"step {step}: producing “{escaped([token])[0]}”")
    assert toasts(page) == []
    # back to the model's own translation: the score of the German stays while the English does; the link drops it
    page.click("#unbranch")
    wait_translation(page, expected_trace(library, SENTENCE).target_text)
    page.wait_for_function("() => !document.querySelector('#share-link textarea').value.includes('german=')")
    assert page.locator("#plot-your-german").is_visible() and page.inner_text("#branch-info").strip() == ""


def test_the_link_brings_the_german_its_score_and_its_lesson_back_in_the_pages_language(lesson, library):
    score, trace = library.score(SENTENCE, GERMAN), forced_trace(library)
    page = lesson(german=GERMAN, lang="de", step=2, fresh=True)  # a page on the German shared it, at its step 2
    assert page.input_value("#your-german textarea") == GERMAN and translation(page) == trace.target_text
    assert page.inner_text("#token-strip .tv-current").strip() == readable(trace.target_tokens[2])[0]
    for lang in ("de", "ja"):  # the link's language, then another chosen on the page: the score follows
        if lang != "de":
            page.get_by_label(i18n.LANGUAGES[lang]).check()
        title = i18n.CATALOGUES[lang]["fig-german-title"].split("{")[0]
        info = wait_plot(page, "plot-your-german", title, f"{score.german.total:.2f}")
        assert escaped(score.german.tokens) in info["ticks"]
        wait_text(page, "#your-german-explanation", visible(explanation(score, lang)))
        wait_text(page, "#branch-info", visible(i18n.text("german-info", lang, german=GERMAN)))
        wait_text(page, "#score-german", i18n.text("score-german", lang))
    # a refused German: said in the page's language, the score before greyed out, the lesson still the German's
    # (a German none of the bad inputs below is, so that each of them says something new under the box)
    score_german(page, "😀")
    wait_text(page, "#your-german-error", i18n.message(UserError("err-german-unreadable", total=1), "ja"))
    page.wait_for_function(GREYED, timeout=WAIT)
    assert translation(page) == trace.target_text and toasts(page) == []


@pytest.mark.parametrize("lang, case", [(lang, case) for lang in ("ja", "en") for case in BAD])
def test_a_bad_german_is_answered_in_place_in_the_visitors_language(lesson, library, lang, case):
    """In English on the model's own translation; in Japanese on the lesson and score of a German scored before."""
    expected = i18n.message(refusal(library, BAD[case]), lang)
    page = lesson(lang=lang, german="" if lang == "en" else GERMAN)
    before = page.evaluate(SHOWN)
    if lang != "en":
        assert before["score"] is not None  # the lesson of a German shows its score
    score_german(page, BAD[case])
    try:
        page.wait_for_function(f"t => ({SAID})().includes(t)", arg=expected[1:], timeout=WAIT)
    except Exception:
        raise AssertionError(f"#your-german-error never said {expected!r}: {page.evaluate(SAID)!r}") from None
    assert page.evaluate(SAID).startswith("⚠")
    page.wait_for_timeout(1000)  # what would follow a new session has had its time to change the page
    assert page.evaluate(SHOWN) == before  # the lesson, its link and any score before, as they were
    assert toasts(page) == []
