"""Guess first in Chromium: a lesson of three steps guessed and scored, in the app's page and in a lesson file opened
with the network cut, the keys G and A–D, and nothing of a hidden piece readable on screen before its reveal.

What is hidden, the choices, their order, the reveal and the score are decided in Node (tests/js/guess.test.js);
here the real pages draw them.
"""

from __future__ import annotations

import pytest

from tests.pages import offline_lesson
from transformer_viz import i18n
from transformer_viz.figures import attention, language
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
    ticks = page.eval_on_selector_all(f"#{map_id} .ytick text", "ts => ts.map(t => t.textContent)")
    assert all(text == "" for text in ticks[step:]) and ticks[:step] == [t.strip() for t in ticks[:step]]
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
