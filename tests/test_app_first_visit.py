"""The first minute, in Chromium: a first visit opens on the example's lesson, an empty link says only that the box is
empty, the step's text alternative follows the step, and a phone's screen holds the header and the lesson.

Same server as test_app_browser.py (two tiny random checkpoints). Three pages: the projector's (1280×720), which the
step's text alternative then steps through and leaves at step 0, the empty link in the same tab, and a phone's.
"""

from __future__ import annotations

import pytest

from tests.pages import (
    WAIT,
    choose,
    escaped,
    expected_trace,
    open_app_page,
    plot_info,
    toasts,
    wait_plot,
    wait_settled,
    wait_step,
    wait_translation,
)
from transformer_viz import i18n
from transformer_viz.app.common import LESSON_EXAMPLE
from transformer_viz.figures.alt import step_alt
from transformer_viz.figures.labels import piece_label

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

PROJECTOR, PHONE = {"width": 1280, "height": 720}, {"width": 390, "height": 844}
STEP_ALT = "() => { const el = document.querySelector('#step-alt'); return el ? el.textContent.trim() : null; }"
LIVE = "() => document.querySelector('#step-alt').getAttribute('aria-live')"


@pytest.fixture(scope="module")
def first_visit(browser, app_server):
    """A tab that opened the app's bare address at 1280×720 (a first visit), its example's lesson at rest."""
    context, page = open_app_page(browser, app_server[0], "en-US", PROJECTOR)
    yield page
    context.close()


@pytest.fixture(scope="module")
def example(library):
    return expected_trace(library, LESSON_EXAMPLE)


def said(page, text: str) -> None:
    """Until the step's text alternative says `text`."""
    try:
        page.wait_for_function(f"t => ({STEP_ALT})() === t", arg=text, timeout=WAIT)
    except Exception:
        raise AssertionError(f"#step-alt never said {text!r}; it says {page.evaluate(STEP_ALT)!r}") from None


def test_a_first_visit_opens_on_the_examples_lesson(first_visit, example):
    page = first_visit
    wait_translation(page, example.target_text)
    assert page.input_value("#sentence textarea") == LESSON_EXAMPLE  # real text in the box, not a placeholder
    assert page.get_attribute("#sentence textarea", "placeholder") == LESSON_EXAMPLE  # one sentence, both
    wait_step(page, 0)
    first = piece_label(example.target_tokens[0])
    cross = wait_plot(page, "plot-cross", "Layer 0", f"step 0: producing “{first}”")
    assert escaped(example.source_tokens) in cross["ticks"]
    topk = plot_info(page, "plot-topk")
    assert escaped(a["token"] for a in example.steps[0]["top_k"]) in topk["ticks"]
    assert page.get_attribute("#token-strip .tv-current", "data-step") == "0"  # the strip, at step 0
    assert i18n.text("intro", "en")[:20] not in page.inner_text("#token-strip")
    page.wait_for_function("() => !document.querySelector('#sentence textarea').disabled", timeout=WAIT)
    assert toasts(page) == []


def test_the_steps_text_alternative_follows_the_step_and_is_quiet_during_play(first_visit, example):
    page = first_visit
    wait_translation(page, example.target_text)
    wait_settled(page)
    assert page.evaluate(LIVE) == "polite" and page.get_attribute("#step-alt", "aria-atomic") == "true"
    said(page, step_alt(example, 0, 0, "mean"))
    page.click("#step-next")
    wait_step(page, 1)
    said(page, step_alt(example, 1, 0, "mean"))
    assert f"produced “{piece_label(example.target_tokens[1])}”" in page.evaluate(STEP_ALT)
    choose(page, "head", "2")  # a head drawn in the page from the variants: its own strongest source
    said(page, step_alt(example, 1, 0, 2))
    page.click("#step-play")
    page.wait_for_function(f"() => ({LIVE})() === 'off'", timeout=WAIT)
    page.wait_for_function("() => Number(document.querySelector('#step-slider input[type=number]').value) > 1")
    page.click("#step-play")  # Pause: said again at the next step the learner moves to
    page.wait_for_function(f"() => ({LIVE})() === 'polite'", timeout=WAIT)
    choose(page, "head", "mean")  # back where the first visit opened, for the module's other test
    page.fill("#step-slider input[type=number]", "0")
    page.press("#step-slider input[type=number]", "Enter")
    wait_step(page, 0)
    said(page, step_alt(example, 0, 0, "mean"))


def test_an_empty_sentence_link_says_only_that_the_box_is_empty(first_visit, app_server):
    page = first_visit
    message = "⚠ " + i18n.text("err-empty", "en")[:1].upper() + i18n.text("err-empty", "en")[1:]
    try:
        page.goto(app_server[0] + "?sentence=&lang=en", wait_until="load")
        page.wait_for_function(
            "t => document.querySelector('#sentence-error')?.innerText.trim() === t", arg=message, timeout=WAIT
        )
        assert page.input_value("#sentence textarea") == "" and page.input_value("#translation textarea") == ""
        assert not page.locator("#sentence-error.tv-refused").count()  # no answer on the page to grey out
        assert page.locator("#plot-cross .js-plotly-plot").count() == 0  # the example is not translated
        page.click("#translate")  # an empty box again, nothing translated yet: the same message alone
        page.wait_for_timeout(1000)
        assert page.inner_text("#sentence-error").strip() == message
    finally:
        page.goto(app_server[0], wait_until="load")  # the first visit again, for the module's other tests
        page.wait_for_selector("#sentence textarea", timeout=WAIT)


# Every element of the header and the lesson (all before the tab groups), the plots' text among them, that reaches
# past the screen's edges; the screen reader's text and Gradio's hidden measuring copies of the tabs left out.
OUTSIDE = """() => {
  const views = document.getElementById('views'), width = window.innerWidth, out = [];
  for (const el of document.querySelectorAll('.gradio-container *')) {
    if (views.contains(el) || !(el.compareDocumentPosition(views) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
    if (el.closest('.tv-screen-reader, .visually-hidden')) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && (r.left < -1 || r.right > width + 1))
      out.push(`${el.tagName}#${el.id}.${el.getAttribute('class')}: ${Math.round(r.left)}..${Math.round(r.right)} `
               + el.textContent.slice(0, 40));
  }
  return out;
}"""
# The main map's labels that run into each other: rows (flat) whose boxes overlap; columns flat whose boxes overlap,
# or tilted (45°) whose lines are closer than a line of their font (their anchors' distance times sin 45°).
CROWDED = """() => {
  const boxes = (axis) => [...document.querySelectorAll(`#plot-cross .${axis}tick text`)]
    .map((t) => ({r: t.getBoundingClientRect(), size: parseFloat(getComputedStyle(t).fontSize),
                  tilted: /rotate\\(-?45/.test(t.getAttribute('transform') || '')}))
    .filter((b) => b.r.height > 0);
  const out = [], rows = boxes('y').sort((a, b) => a.r.top - b.r.top);
  const cols = boxes('x').sort((a, b) => a.r.left - b.r.left);
  rows.slice(1).forEach((b, i) => { if (rows[i].r.bottom > b.r.top + 0.5) out.push(['rows', i]); });
  cols.slice(1).forEach((b, i) => {
    const a = cols[i];
    if (b.tilted ? (b.r.right - a.r.right) * Math.SQRT1_2 < b.size : a.r.right > b.r.left + 0.5) out.push(['cols', i]);
  });
  return {rows: rows.length, cols: cols.length, out};
}"""


LEGEND_Y = "document.querySelector('#plot-topk .js-plotly-plot').layout.legend.y"


def test_a_phones_screen_holds_the_header_and_the_lesson(browser, app_server, example):
    context, page = open_app_page(browser, app_server[0], "en-US", PHONE)
    try:
        wait_translation(page, example.target_text)
        wait_settled(page)
        wait_plot(page, "plot-cross", "step 0: producing")
        page.wait_for_timeout(1000)  # the plots refitted to their boxes
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        assert page.evaluate(OUTSIDE) == []
        crowded = page.evaluate(CROWDED)
        assert crowded["rows"] > 1 and crowded["cols"] > 1 and crowded["out"] == [], crowded
        # drawn for the phone's box: the top-k chart's legend in its lower corner, not over the bars under the title
        assert page.evaluate(f"() => {LEGEND_Y}") == 0
        page.set_viewport_size(PROJECTOR)  # the window made wide: drawn for a projector's box again
        page.wait_for_function(f"() => {LEGEND_Y} === 1", timeout=WAIT)
        assert page.evaluate(OUTSIDE) == []
    finally:
        context.close()
