"""Guess first in Chromium: a lesson of three steps guessed and scored, in the app's page and in a lesson file opened
with the network cut, the keys G and A–D, and nothing of a hidden piece readable on screen before its reveal.

What is hidden, the choices, their order, the reveal and the score are decided in Node (tests/js/guess.test.js);
here the real pages draw them.
"""

from __future__ import annotations

import pytest

from tests.pages import WAIT, lesson_link, offline_lesson, screenshot, start_lesson, wait_step
from transformer_viz import i18n, load_model
from transformer_viz.app.common import LOOKS
from transformer_viz.figures import attention, language
from transformer_viz.figures.guess import guess_data
from transformer_viz.figures.strip import readable
from transformer_viz.figures.style import piece_label

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

# Every text on screen a student could read, the choices aside (they hold the answer among three others): the
# page's text, the plots' SVG text and the boxes' values, each where it is visible.
ON_SCREEN = """() => {
  const seen = (el) => el.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const choices = document.getElementById('guess-choices');
  const text = [document.body.innerText.replace(choices ? choices.innerText : '', '')];
  for (const t of document.querySelectorAll('.js-plotly-plot text')) if (seen(t)) text.push(t.textContent);
  for (const box of document.querySelectorAll('input, textarea')) if (seen(box)) text.push(box.value);
  return text.join('\\n');
}"""
HIDDEN = "() => document.documentElement.classList.contains('tv-guess-hidden')"
# Whether the map `id` labels none of its rows from `from` on: neither in its layout nor in its drawing (Plotly draws
# no text for an empty label, so at most `from` labels are drawn).
TICKS_HIDDEN = """([id, from]) => {
  const el = document.querySelector(`#${id} .js-plotly-plot`) || document.getElementById(id);
  const drawn = [...document.querySelectorAll(`#${id} .ytick text`)].filter(t => t.textContent !== '');
  return !!el.layout && drawn.length <= from && el.layout.yaxis.ticktext.slice(from).every(t => t === ''); }"""
# The shown choices' pieces, in their order.
CHOICES = "() => [...document.querySelectorAll('#guess-choices button')].map(b => b.lastChild.textContent)"


def hidden_rest(trace, step: int) -> str:
    """What the translation from `step` on reads as in the strip: the pieces a hidden step must not show."""
    return "".join(readable(piece)[0] for piece in trace.target_tokens[step:])


def assert_nothing_of(page, trace, step: int, map_id: str) -> None:
    """Nothing of the piece at `step` and after readable: not in the visible text, not a label of the map's rows from
    the step on, not a bar of the top-k."""
    shown = page.evaluate(ON_SCREEN)
    assert hidden_rest(trace, step) not in shown.replace("\n", ""), step
    assert page.evaluate(TICKS_HIDDEN, [map_id, step])
    assert trace.target_text not in shown


def pick(page, piece: str, right: bool) -> int:
    """The index of the choice showing `piece` (right) or of another (not right)."""
    shown = page.evaluate(CHOICES)
    assert len(shown) >= 2 and piece in shown
    return shown.index(piece) if right else next(i for i, p in enumerate(shown) if p != piece)


def test_the_lesson_file_guesses_first_offline_in_german(browser, german_lesson):
    path, trace = german_lesson
    pieces = [readable(p)[0] for p in trace.target_tokens]
    score = "() => document.getElementById('guess-score').innerText"
    with offline_lesson(browser, path) as page:
        assert pieces[0] in page.evaluate(ON_SCREEN) and page.evaluate(CHOICES) == []
        page.keyboard.press("g")  # guess first on: step 0 hidden
        assert_nothing_of(page, trace, 0, "lesson-cross")
        assert trace.target_text not in page.title()
        assert i18n.text("guess-ask", "de") in page.inner_text("#guess-ask")
        page.click(f"#guess-choices button >> nth={pick(page, piece_label(trace.target_tokens[0]), True)}")
        assert page.evaluate(score) == i18n.text("guess-score", "de").format(right=1, asked=1)
        assert trace.target_text in page.evaluate(ON_SCREEN)  # revealed: the title shows it again
        page.keyboard.press("ArrowRight")
        assert_nothing_of(page, trace, 1, "lesson-cross")
        page.click(f"#guess-choices button >> nth={pick(page, piece_label(trace.target_tokens[1]), False)}")
        assert page.evaluate(score) == i18n.text("guess-score", "de").format(right=1, asked=2)
        assert page.locator("#guess-choices .tv-wrong").count() == 1 == page.locator(".tv-right").count()
        page.keyboard.press("ArrowRight")
        assert_nothing_of(page, trace, 2, "lesson-cross")
        letter = "ABCD"[pick(page, piece_label(trace.target_tokens[2]), True)]
        page.keyboard.press(letter.lower())  # the class's letter, one key
        assert page.evaluate(score) == i18n.text("guess-score", "de").format(right=2, asked=3)
        page.keyboard.press("ArrowLeft")  # back: step 1 stays revealed
        assert pieces[1] in page.inner_text("#token-strip") and page.evaluate(CHOICES)
        assert page.locator("#guess-choices button:disabled").count() == len(page.evaluate(CHOICES))
        page.keyboard.press("ArrowUp")  # a new layer keeps the reveal
        with language("de"):
            title = attention.attention_head(trace, "cross", 1, "mean", step=1).layout.title.text
        assert page.evaluate("() => document.querySelector('#lesson-cross').layout.title.text") == title
        assert not page.evaluate("() => document.documentElement.classList.contains('tv-guess-hidden')")
        page.keyboard.press("g")  # off: nothing hidden, nothing offered
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert pieces[3] in page.inner_text("#token-strip") and page.evaluate(CHOICES) == []


def on_the_lesson(page) -> None:
    """Focus on the page itself, as after a click on the lesson's text."""
    page.click("#step-label")


def start_guessing(page) -> None:
    """Guess first switched on by its key G (the page opened afresh: guess first off, no score yet)."""
    on_the_lesson(page)
    page.keyboard.press("g")


def wait_score(page, lang: str, right: int, asked: int) -> None:
    """Until the score reads `right` of `asked` in `lang`."""
    text = i18n.text("guess-score", lang).format(right=right, asked=asked)
    page.wait_for_function("t => document.getElementById('guess-score').innerText === t", arg=text, timeout=WAIT)


def wait_hidden(page, trace, step: int) -> None:
    """Until step `step` is hidden on the page, its map's rows from the step on unlabelled; then nothing of it is
    readable."""
    page.wait_for_function(HIDDEN, timeout=WAIT)
    page.wait_for_function(TICKS_HIDDEN, arg=["plot-cross", step], timeout=WAIT)
    assert_nothing_of(page, trace, step, "plot-cross")


def wait_label(page, start: str) -> None:
    """Until the step line starts with `start`."""
    page.wait_for_function(
        "s => document.querySelector('#step-label').innerText.startsWith(s)", arg=start, timeout=WAIT
    )


def test_the_page_guesses_first_and_scores_in_english_and_japanese(app_tab, app_server):
    url, folder = app_server
    page, trace = app_tab, load_model(folder / "seed000", device="cpu").trace("I see the house.")
    assert len(trace.target_tokens) >= 6
    start_lesson(page, lesson_link(url), fresh=True)  # a lesson in place keeps guess first and its score
    start_guessing(page)
    wait_hidden(page, trace, 0)
    page.click(f"#guess-choices button >> nth={pick(page, piece_label(trace.target_tokens[0]), True)}")
    wait_score(page, "en", 1, 1)
    page.wait_for_function(f"() => !({HIDDEN})()", timeout=WAIT)
    page.wait_for_function(f"a => !({TICKS_HIDDEN})(a)", arg=["plot-cross", 0], timeout=WAIT)  # labelled again
    assert trace.target_text in page.input_value("#translation textarea")
    on_the_lesson(page)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    wait_hidden(page, trace, 1)
    page.click(f"#guess-choices button >> nth={pick(page, piece_label(trace.target_tokens[1]), False)}")
    wait_score(page, "en", 1, 2)
    page.click("#step-next")
    wait_step(page, 2)
    wait_hidden(page, trace, 2)
    letter = "ABCD"[pick(page, piece_label(trace.target_tokens[2]), True)]
    on_the_lesson(page)
    page.keyboard.press(letter)
    wait_score(page, "en", 2, 3)
    # the head guess at step 3: the row's strongest key of layer 0's mean, clicked in the strip
    page.keyboard.press("ArrowRight")
    wait_step(page, 3)
    wait_hidden(page, trace, 3)
    screenshot(page, ".gradio-container", "guess-first.png", max_height=720)
    key = guess_data(trace)["strongest"]["pieces"]["0/mean"][3][0]
    page.click(f'#token-strip [data-key="{key}"]')
    wait_score(page, "en", 3, 4)
    assert i18n.text("guess-head-right") in page.inner_text("#guess-said") and page.evaluate(HIDDEN)
    page.keyboard.press("ArrowLeft")  # back at step 2: revealed
    wait_step(page, 2)
    assert not page.evaluate(HIDDEN) and page.locator("#guess-choices .tv-right").count() == 1
    page.get_by_label("日本語").check()  # the score and its words follow the language, the count stays
    wait_score(page, "ja", 3, 4)
    on_the_lesson(page)
    page.keyboard.press(" ")  # Play from the revealed step 2 pauses at the hidden step 3, its head's row shown
    wait_label(page, "ステップ 3")
    page.wait_for_function(f"() => !transformerViz.page.playing && ({HIDDEN})()", timeout=WAIT)
    assert page.input_value("#step-slider input[type=number]") == "3"
    assert i18n.text("guess-ask", "ja") in page.inner_text("#guess-ask")
    page.keyboard.press("ArrowLeft")  # the keys step the lesson in Japanese
    wait_label(page, "ステップ 2")
    page.keyboard.press("g")  # off: the step shows, and the next test finds the page as a lesson opens
    page.wait_for_function(f"() => !({HIDDEN})()", timeout=WAIT)
    page.get_by_label("English").check()


def test_a_slide_look_shows_the_choices_as_large_letters_and_one_key_reveals(app_tab, app_server):
    url, _ = app_server
    page = app_tab
    start_lesson(page, lesson_link(url, step=1), fresh=True)
    start_guessing(page)
    page.wait_for_function(HIDDEN, timeout=WAIT)
    size = "() => parseFloat(getComputedStyle(document.querySelector('#guess-choices .tv-choice')).fontSize)"
    on_screen = page.evaluate(size)
    page.check(f"#presentation input[value='{LOOKS[1]}']")
    page.wait_for_function("() => document.documentElement.classList.contains('tv-slide-look')", timeout=WAIT)
    assert page.evaluate(size) >= 1.5 * on_screen
    letters = page.eval_on_selector_all("#guess-choices .tv-choice b", "bs => bs.map(b => b.textContent)")
    assert letters == list("ABCD")[: len(letters)] and len(letters) >= 2
    on_the_lesson(page)
    page.keyboard.press("b")  # the class's letter: one key reveals
    page.wait_for_function(f"() => !({HIDDEN})()", timeout=WAIT)
    assert page.locator("#guess-choices .tv-right").count() == 1
    page.check(f"#presentation input[value='{LOOKS[0]}']")
    on_the_lesson(page)
    page.keyboard.press("g")
