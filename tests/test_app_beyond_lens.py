"""The logit lens and attention-vs-attribution tabs in the browser, at 1280×720, in Japanese: after a translation
both draw, their explanations are in the page's language, the button adds the gradients and opens the agreement,
and every text of the three figures stays inside its SVG and apart from the others."""

from __future__ import annotations

import pytest

from tests.pages import WAIT, open_app_page, open_tab, screenshot, toasts, wait_plot, wait_translation
from tests.test_figures_fit import VIEWPORT, misfits, report, settled
from transformer_viz import i18n
from transformer_viz.figures.style import style

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "The cat sleeps on the sofa."
TRACES = "id => { const el = document.querySelector('#' + id + ' .js-plotly-plot'); return el ? el.data.length : 0; }"


def ja(key: str) -> str:
    """The Japanese text of `key` up to its first field: what a title or explanation starts with."""
    return i18n.text(key, "ja").split("{")[0].strip()


def test_the_lens_and_the_attribution_draw_and_fit(browser, app_server, library):
    url, _ = app_server
    context, page = open_app_page(browser, url, "ja-JP", VIEWPORT)
    try:
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, library.translate(SENTENCE))
        font = style(False).font_size

        open_tab(page, "logit-lens")
        wait_plot(page, "plot-logit-lens", ja("fig-lens-title"))
        assert ja("explain-logit-lens")[:20] in page.inner_text("#tab-logit-lens")
        found = {"plot-logit-lens": misfits(settled(page, "plot-logit-lens", font))}
        screenshot(page, "#plot-logit-lens", "logit-lens-ja.png")

        open_tab(page, "attribution")
        wait_plot(page, "plot-attribution", ja("fig-attr-not-yet"))
        assert page.evaluate(TRACES, "plot-attribution") == 3  # the attention panels, before the gradients
        assert not page.locator("#plot-attribution-agreement").is_visible()
        assert ja("explain-attribution")[:20] in page.inner_text("#tab-attribution")
        page.click("#attribution-run")
        wait_plot(page, "plot-attribution-agreement", ja("fig-attr-agreement-title").split(":")[0])
        page.wait_for_function(f"() => ({TRACES})('plot-attribution') === 5", timeout=WAIT)
        screenshot(page, "#tab-attribution", "attribution-ja.png")
        for plot_id in ("plot-attribution", "plot-attribution-agreement"):
            drawn = settled(page, plot_id, font)
            assert drawn["texts"], plot_id
            found[plot_id] = misfits(drawn)
        found = {plot_id: problems for plot_id, problems in found.items() if problems}
        assert not found, f"at {VIEWPORT}:\n" + report(found) + f"\nmessages: {toasts(page)}"
    finally:
        context.close()
