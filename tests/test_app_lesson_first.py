"""What the page paints first, in Chromium at 1280×720: a new look, language or translation repaints the lesson's map
before the tabs' plots, and a new translation redraws the open "One query in numbers" view for its own sentence.

The page wires these orders (app/page.py: the lesson's listeners come before the tab groups'); these tests hold the
order a visitor sees, whatever wiring makes it.
"""

from __future__ import annotations

import pytest

from tests.pages import (
    WAIT,
    escaped,
    expected_trace,
    open_tab,
    wait_at_rest,
    wait_plot,
    wait_ticks,
    wait_translation,
)
from transformer_viz import i18n

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "The cat sleeps on the sofa."
WATCHED = ("plot-cross", "plot-alignment")  # the lesson's map, and the step plot of the tab a lesson opens on

# From now on, the time (performance.now) at which each plot first shows a figure other than the one it shows now:
# another title, other data (another sentence's) or another font size (a look). Read every frame, so a repaint is
# seen in the frame it lands.
WATCH = """ids => {
  const seen = {}, drawn = (id) => {
    const el = document.querySelector('#' + id + ' .js-plotly-plot'), l = el && el._fullLayout;
    if (!l) return '';
    return JSON.stringify([l.font.size, l.title && l.title.text, el.data.map((d) => [d.x, d.y, d.z])]);
  };
  const before = Object.fromEntries(ids.map((id) => [id, drawn(id)]));
  const tick = () => {
    for (const id of ids) {
      if (!(id in seen) && drawn(id) !== before[id] && drawn(id) !== '') seen[id] = performance.now();
    }
    if (Object.keys(seen).length < ids.length) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  window.__tvFirstPainted = seen;
}"""
ALL_SEEN = "n => Object.keys(window.__tvFirstPainted).length === n"


def change_look(page) -> None:
    page.get_by_role("radio", name=i18n.text("look-png", "en"), exact=True).check()


def change_language(page) -> None:
    page.locator("#language label", has_text=i18n.LANGUAGES["de"]).click()


def translate_another(page) -> None:
    page.fill("#sentence textarea", "The dog sees the house.")
    page.click("#translate")


@pytest.mark.parametrize("change", [change_look, change_language, translate_another], ids=lambda f: f.__name__)
def test_the_lesson_is_painted_before_the_tabs_plots(lesson, change):
    """The lesson's map is what a class looks at: it comes first, and the server's drawing of the rest waits for it."""
    page = lesson()
    wait_plot(page, "plot-alignment", "step 0")
    page.evaluate(WATCH, list(WATCHED))
    change(page)
    page.wait_for_function(ALL_SEEN, arg=len(WATCHED), timeout=WAIT)
    seen = page.evaluate("() => window.__tvFirstPainted")
    assert seen["plot-cross"] <= seen["plot-alignment"], seen
    wait_at_rest(page)


def test_a_new_translation_redraws_the_open_query_view_for_its_sentence(lesson, library):
    page = lesson()
    open_tab(page, "qkv")
    wait_plot(page, "plot-qkv", "One query in numbers", "step 0")
    other = expected_trace(library, "The dog sees the house.")
    translate_another(page)
    wait_translation(page, other.target_text)
    wait_ticks(page, "plot-qkv", escaped(other.source_tokens))  # its keys: the new sentence's pieces
    wait_at_rest(page)
