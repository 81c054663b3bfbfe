"""The training replay and query–key geometry tabs in Chromium at 1280×720, after a translation, in English and
Japanese: the bundled model has no snapshots and the replay tab says so; the plane and the neighbours are drawn
with their text inside their figures."""

from __future__ import annotations

import pytest

from tests.pages import WAIT, open_app_page, screenshot, toasts, wait_plot, wait_translation
from tests.test_figures_fit import TEXTS, VIEWPORT, misfits, outside, settled
from transformer_viz import i18n
from transformer_viz.figures.style import style

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "I see the house."


def open_view(page, tab: str) -> None:
    """The Beyond attention group, then one of its tabs (without waiting on navigation: a tab click makes none)."""
    page.click("#group-beyond-button", no_wait_after=True, timeout=WAIT)
    page.click(f"#tab-{tab}-button", no_wait_after=True, timeout=WAIT)


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_both_tabs_after_a_translation(browser, app_server, library, locale):
    lang = i18n.language(locale)
    url, _ = app_server
    context, page = open_app_page(browser, url, locale, VIEWPORT)
    try:
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, library.translate(SENTENCE))

        open_view(page, "replay")
        none = i18n.text("replay-none", lang, model="seed000").split("`")[0].strip()
        try:
            page.wait_for_function(
                "t => document.querySelector('#replay-status').innerText.includes(t)", arg=none[:20], timeout=WAIT
            )
        except Exception:
            raise AssertionError(f"{page.inner_text('#replay-status')!r} {toasts(page)}") from None
        assert page.locator("#replay-run").is_disabled()
        assert page.locator("#tab-replay .js-plotly-plot").count() == 0, "a model without snapshots draws nothing"
        assert not toasts(page), toasts(page)

        open_view(page, "geometry")
        layer = {"en": "layer 0", "ja": "層 0"}[lang]
        wait_plot(page, "plot-geometry", layer)
        font = style(False).font_size
        plane = settled(page, "plot-geometry", font)
        assert [t["text"] for t in plane["texts"] if outside(t, plane["svg"])] == []
        neighbours = settled(page, "plot-neighbours", font)
        if lang == "en":  # the README's
            screenshot(page, "#tab-geometry", "geometry-en.png")
        assert neighbours["texts"] and not misfits(neighbours), misfits(neighbours)
        page.click("#geometry-kind label:nth-of-type(2)")  # decoder self-attention
        wait_plot(page, "plot-geometry", i18n.text("fig-kind-decoder_self", lang).split(" ")[0])
        assert page.evaluate(TEXTS, "plot-geometry")["texts"]
        assert not toasts(page), toasts(page)
    finally:
        context.close()
