"""Every view of the "Beyond attention" group in Chromium at 1280×720, in every look, in English and Japanese.

One page per language (English, and Japanese for a script of its own; every figure's headings in every language are
checked without a browser, test_figures_i18n.py): a sentence translated, each view opened and, where it waits for a
button, run (a key of the one-query view clicked); then each look chosen in turn (on the Japanese page the slide look
only). Each figure must be drawn in the look's type size with all its text inside its SVG and no two labels on each
other; its explanation, its tab's name and its figures' headings must be in the page's language (Japanese headings
written in their own script, English ones in none). The tiny test checkpoints' seed000 keeps training snapshots
(conftest), so the replay draws too. Maps drawn side by side must label their keys readably however many share the
width: the "Side by side" tab's in 8 px or more, the "What if?" lab's pair in the look's smallest label font (8 px, 14
on a slide). On the English page each figure's camera download is measured too, as test_figures_fit measures the
registered plots' (ready to paste: text inside, no blank band, a slide's text at least 14 px and the slide 1280×720 or
taller).
"""

from __future__ import annotations

import re

import pytest

from tests.pages import (
    DRAWN_LOOKS,
    WAIT,
    expected_trace,
    open_app_page,
    open_tab,
    toasts,
    wait_at_rest,
    wait_plot,
    wait_translation,
)
from tests.test_app_qkv import click_key
from tests.test_figures_fit import VIEWPORT, download_problems, misfits, report, settled
from transformer_viz import i18n
from transformer_viz.app.common import LOOKS, slides
from transformer_viz.figures.labels import MIN_TICK_PX, min_font
from transformer_viz.figures.style import style
from transformer_viz.lab.replay import has_snapshots

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "The cat sleeps on the sofa."
# English, and one language of another script (every figure's headings in every language: test_figures_i18n.py)
LOCALES = {"en": "en-US", "ja": "ja-JP"}
SCRIPT = {"ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"), "ko": re.compile(r"[\uac00-\ud7af]")}
ANY_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")

# A figure's headings: its title, else its annotations (the panel titles of a figure made of subplots).
HEADINGS = """id => {
    const el = document.querySelector('#' + id + ' .js-plotly-plot');
    const title = (el.layout.title && el.layout.title.text) || '';
    return title ? [title] : (el.layout.annotations || []).map(a => a.text || '').filter(t => t);
}"""
# The view's tab, its figures, and the button that computes them (None: it draws when its tab opens).
VIEWS = {
    "qkv": (["plot-qkv", "plot-qkv-key"], None),  # q ∘ k: the key clicked when the view opens
    "logit-lens": (["plot-logit-lens"], None),
    "attribution": (["plot-attribution", "plot-attribution-agreement"], "#attribution-run"),
    "replay": (["plot-replay", "plot-replay-heads", "plot-replay-probs", "plot-replay-loss"], "#replay-run"),
    "geometry": (["plot-geometry", "plot-neighbours"], None),
    "compare-models": ([f"compare-{v}-{n}" for v in ("cross", "topk") for n in (0, 1)], "#compare-run"),
}


# The "Side by side" tab's maps, each model's in half of the page: their key labels never shrink under the smallest
# label on screen, however many heads share the row. (A slide look's 14 px holds about 18 source pieces in a column
# half a page wide; a longer source, as the tiny seed004's 23, is labelled smaller there: attention_grid's floor.)
SIDE_BY_SIDE = {"compare-cross-0", "compare-cross-1"}
# The x tick labels of a drawn plot, each with its text and its font size in CSS pixels.
X_TICKS = """id => [...document.querySelectorAll('#' + id + ' .js-plotly-plot g[class$="tick"] text')]
    .filter(node => /^x\\d*tick$/.test(node.closest('g[class]').getAttribute('class')) && node.textContent.trim())
    .map(node => ({text: node.textContent.trim(), px: parseFloat(getComputedStyle(node).fontSize)}))"""


def small_x_ticks(page, plot_id: str, least: float) -> list[str]:
    """The plot's x tick labels drawn in a font under `least` pixels, one line per size."""
    sizes = sorted({tick["px"] for tick in page.evaluate(X_TICKS, plot_id) if tick["px"] < least})
    return [f"x tick labels in {px} px, under {least} px" for px in sizes]


def in_language(headings: list[str], lang: str) -> bool:
    """Whether every heading is written in `lang`: Japanese and Korean in their script, English in none of them."""
    if lang in SCRIPT:
        return bool(headings) and all(SCRIPT[lang].search(h) for h in headings)
    return not any(ANY_CJK.search(h) for h in headings)


def open_view(page, view: str, lang: str) -> None:
    """Open the view's tab, wait for its explanation in `lang`, and press its button where it has one."""
    open_tab(page, view)
    explanation = i18n.text(f"explain-{view}", lang)[:16]
    page.wait_for_function(
        "([id, t]) => document.querySelector('#' + id).innerText.includes(t)",
        arg=[f"tab-{view}", explanation],
        timeout=WAIT,
    )
    assert page.locator(f"#tab-{view}-button").inner_text() == i18n.text(f"tab-{view}", lang)
    if VIEWS[view][1]:
        page.click(VIEWS[view][1])


def check_figure(page, plot_id: str, lang: str, font: int, found: dict, wrong: dict) -> None:
    """Note the figure's misfits and its headings not in `lang` (once it is drawn in the type size `font`)."""
    drawn = settled(page, plot_id, font)
    assert drawn["texts"], f"#{plot_id} shows no text"
    problems = misfits(drawn)
    if plot_id in SIDE_BY_SIDE:
        problems += small_x_ticks(page, plot_id, MIN_TICK_PX)
    if problems:
        found[plot_id] = problems
    if not in_language(headings := page.evaluate(HEADINGS, plot_id), lang):
        wrong[plot_id] = headings


@pytest.mark.parametrize("lang", list(LOCALES))
def test_every_view_in_every_look_fits_and_speaks_the_language(browser, app_server, library, lang):
    """Each view opened once on a page in `lang`; then every look chosen in turn, each view redrawn in it."""
    url, folder = app_server
    if not has_snapshots(folder / "seed000"):
        pytest.skip("these checkpoints keep no training snapshots: the replay has nothing to draw")
    context, page = open_app_page(browser, url, LOCALES[lang], VIEWPORT)
    try:
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, library.translate(SENTENCE))
        wait_at_rest(page)  # a view opened before the translation's last message is drawn again, a click lost
        for view in VIEWS:
            open_view(page, view, lang)
            if view == "qkv":
                settled(page, "plot-qkv", style(False).font_size)
                n_keys = len(expected_trace(library, SENTENCE).source_tokens)  # cross-attention's keys
                click_key(page, n_keys - 1, n_keys)  # the last key: q ∘ k opens for it
                title = i18n.template("fig-qkv-key-title", lang).split("{token}")[0].format(index=n_keys - 1)
                wait_plot(page, "plot-qkv-key", title)  # its product drawn, not only the view before the click
                settled(page, "plot-qkv-key", style(False).font_size)
        failures = []
        for look in DRAWN_LOOKS if lang == "en" else DRAWN_LOOKS[-1:]:  # Japanese: the slide's larger type
            page.locator("#presentation input").nth(LOOKS.index(look)).check()  # its name is in the page's language
            font = style(slides(look)).font_size
            found, wrong, downloads = {}, {}, {}
            for view, (plot_ids, _) in VIEWS.items():
                open_tab(page, view)
                for plot_id in plot_ids:
                    check_figure(page, plot_id, lang, font, found, wrong)
                    if lang == "en" and (problems := download_problems(page, plot_id, slides(look))):
                        downloads[plot_id] = problems
            if found:
                failures.append(f"[{look}, {lang}] at {VIEWPORT}:\n" + report(found))
            if downloads:
                failures.append(f"[{look}, {lang}] downloads:\n" + report(downloads))
            if wrong:
                failures.append(f"[{look}, {lang}] headings not in {lang}: {wrong}")
        assert not failures, "\n".join(failures) + f"\nmessages: {toasts(page)}"
        assert not toasts(page), toasts(page)
    finally:
        context.close()


def test_side_by_side_maps_label_their_keys_readably(browser, app_server, library):
    """The "What if?" lab's two maps side by side (attention_side_by_side), in every look: each source piece's
    label at least the look's smallest label font (8 px on screen, 14 on a slide), none on another, all inside."""
    url, _ = app_server
    context, page = open_app_page(browser, url, LOCALES["en"], VIEWPORT)
    try:
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, library.translate(SENTENCE))
        open_tab(page, "whatif")
        page.locator("#ablate-cross").get_by_label("L0 H0", exact=True).check()  # the maps show cross-attention
        page.click("#whatif-run")
        n_keys = len(expected_trace(library, SENTENCE).source_tokens)
        failures = []
        for look in DRAWN_LOOKS:
            page.locator("#presentation input").nth(LOOKS.index(look)).check()
            font = style(slides(look)).font_size
            drawn = settled(page, "plot-whatif-maps", font)
            ticks = page.evaluate(X_TICKS, "plot-whatif-maps")
            assert len(ticks) == 2 * n_keys, ticks  # both panels label every source piece
            if problems := misfits(drawn) + small_x_ticks(page, "plot-whatif-maps", min_font(font)):
                failures.append(f"[{look}]:\n" + report({"plot-whatif-maps": problems}))
        assert not failures, "\n".join(failures) + f"\nmessages: {toasts(page)}"
    finally:
        context.close()
