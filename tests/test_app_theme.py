"""Dark mode, in Chromium: the page stays light with its figures, under a dark system setting and `?__theme=dark`.

Gradio darkens a page (the class `dark` on <body>) from `?__theme=dark`, or from the system's
`prefers-color-scheme: dark` without one; the figures are drawn on white paper whatever the page does. The page is
pinned light on purpose (js/theme.js, docs/design-notes.md), so that page and figures agree. Same server as the other
browser tests.
"""

from __future__ import annotations

import pytest

from tests.pages import WAIT, lesson_link, wait_plot

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

# The colours a visitor sees: the page's background (the body, Gradio's app and a block), the body's text, and the
# paper of the lesson's top-k chart as Plotly drew it (the first SVG's background) and as its figure says.
COLOURS = """() => {
    const css = (selector, property) => {
        const el = document.querySelector(selector);
        return el ? getComputedStyle(el)[property] : null;
    };
    const plot = document.querySelector('#plot-topk .js-plotly-plot');
    return {
        dark: document.body.classList.contains('dark'),
        backgrounds: [
            css('body', 'backgroundColor'), css('gradio-app', 'backgroundColor'),
            css('.gradio-container', 'backgroundColor'), css('#sentence', 'backgroundColor'),
            css('#sentence textarea', 'backgroundColor'),
        ],
        text: css('body', 'color'),
        drawnPaper: getComputedStyle(plot.querySelector('.main-svg')).backgroundColor,
        paper: plot.layout.paper_bgcolor,
    };
}"""
NAMED = {"white": (255, 255, 255)}


def rgba(colour: str) -> tuple[float, ...]:
    """'rgb(r, g, b)', 'rgba(r, g, b, a)' or a named colour → (r, g, b, a) with r, g, b in 0–255."""
    if colour in NAMED:
        return (*NAMED[colour], 1.0)
    values = [float(v) for v in colour[colour.index("(") + 1 : colour.index(")")].split(",")]
    return tuple(values) if len(values) == 4 else (*values, 1.0)


def lightness(colour: str) -> float:
    """Relative luminance (WCAG) of an opaque colour, 0 for black to 1 for white."""
    r, g, b, _ = rgba(colour)

    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


def assert_light(page) -> None:
    seen = page.evaluate(COLOURS)
    assert not seen["dark"], seen
    painted = [c for c in seen["backgrounds"] if c is not None and rgba(c)[3] > 0]  # a transparent one shows another
    assert len(painted) >= 2, seen
    assert all(lightness(c) > 0.85 for c in painted), seen
    assert lightness(seen["text"]) < 0.2, seen  # dark text on the light page
    assert lightness(seen["drawnPaper"]) > 0.85 and lightness(seen["paper"]) > 0.85, seen  # the figure agrees


# Counts each change of <body>'s classes that took the class `dark` off it (the page's pin) or left it on: each time
# Gradio darkened the page. Installed before the page's own scripts; it watches <body> once the document is parsed,
# before Gradio starts.
COUNT_DARKENED = """() => {
    window.__darkened = 0;
    const count = records => {
        const dark = r => /\\bdark\\b/.test(r.oldValue || '') || r.target.classList.contains('dark');
        window.__darkened += records.filter(dark).length;
    };
    const watched = {attributes: true, attributeFilter: ['class'], attributeOldValue: true};
    document.addEventListener('DOMContentLoaded', () => new MutationObserver(count).observe(document.body, watched));
}"""


def open_lesson(browser, url: str, query: str, scheme: str):
    """(context, page): the lesson of a share link (and `query`) in a `scheme` context, its top-k chart drawn."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 720})
    context.add_init_script(f"({COUNT_DARKENED})()")
    page = context.new_page()
    page.goto(lesson_link(url) + query, wait_until="load")
    wait_plot(page, "plot-topk", "Step 0")
    return context, page


@pytest.mark.parametrize(
    "scheme, query",
    [("dark", ""), ("light", "&__theme=dark"), ("dark", "&__theme=dark")],
    ids=["system-dark", "theme-dark-link", "both"],
)
def test_page_and_figures_stay_light_when_dark_is_asked_for(app_server, browser, scheme, query):
    url, _ = app_server
    context, page = open_lesson(browser, url, query, scheme)
    try:
        assert page.evaluate("() => window.__darkened") >= 1  # Gradio did darken the page: the pin undid it
        assert_light(page)
    finally:
        context.close()


def test_a_system_turning_dark_meanwhile_leaves_the_page_light(app_server, browser):
    """Gradio follows a change of the system's setting while the page is open; the page stays light."""
    url, _ = app_server
    context, page = open_lesson(browser, url, "", "light")
    try:
        assert page.evaluate("() => window.__darkened") == 0
        assert_light(page)  # nothing asked for dark: the same light page
        page.emulate_media(color_scheme="dark")
        page.wait_for_function("() => window.__darkened > 0", timeout=WAIT)
        assert_light(page)
    finally:
        context.close()
