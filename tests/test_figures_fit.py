"""Every registered plot, in every look, at 1280×720 in Chromium: its text inside its SVG, no two labels overlapping.

One page per look (the look chosen, then a sentence translated), reused for every tab that holds a registered plot,
and for the views a visitor's click opens outside the Beyond group (a head opened large, the two labs' results;
test_app_beyond_looks checks the Beyond group's in every look and language).
The text's boxes are read back from the SVG Plotly drew: each text element's box on screen, and the four corners
of its own box under its transform (a label at -45° takes a slanted strip, not the whole square around it), so
that slanted neighbours which do not touch are not taken for an overlap. The hover layer is not part of a figure.
Same server as the other browser tests; with TRANSFORMER_VIZ_TEST_CHECKPOINTS=checkpoints, the bundled models.
"""

from __future__ import annotations

import base64
import io
import itertools
import re

import numpy as np
import pytest
from PIL import Image

from tests.pages import DRAWN_LOOKS, RECORD_TOASTS, WAIT, choose, expected_trace, open_tab, toasts, wait_translation
from transformer_viz import i18n
from transformer_viz.app.common import LOOK_KEYS, LOOKS, slides
from transformer_viz.app.registry import PLOTS, View
from transformer_viz.figures.style import style
from transformer_viz.figures.views import LESSON_FIT_PX

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "The cat sleeps on the sofa."
VIEWPORT = {"width": 1280, "height": 720}  # a projector's
INSIDE_PX = 1.0  # a text may reach this far past its SVG's edge (subpixel rounding)
OVERLAP_PX = 1.5  # two texts may share a strip this deep (the ascent of one over the descent of the next)

# Every visible text of a plot (hover layer excepted) and its outer SVG's box, in client pixels. `where` names the
# text's part of the figure: its closest group with a telling class (xtick, ytick, annotation, g-gtitle, …).
TEXTS = """id => {
    const el = document.querySelector('#' + id + ' .js-plotly-plot');
    if (!el || !el.querySelector('.main-svg')) return null;
    const edges = r => [r.left, r.top, r.right, r.bottom];
    const svgs = [...el.querySelectorAll('svg.main-svg')];
    const texts = [];
    for (const svg of svgs) for (const node of svg.querySelectorAll('text')) {
        if (node.closest('.hoverlayer')) continue;
        const text = node.textContent.trim();
        const rect = node.getBoundingClientRect();
        if (!text || rect.width === 0 || rect.height === 0) continue;
        const css = getComputedStyle(node);
        if (css.visibility === 'hidden' || css.display === 'none' || css.opacity === '0') continue;
        const b = node.getBBox(), m = node.getScreenCTM();
        const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
            .map(([x, y]) => { const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; });
        const group = node.closest('g[class]');
        const where = (node.getAttribute('class') || '') + ' in ' + (group ? group.getAttribute('class') : 'svg');
        texts.push({text, where, rect: edges(rect), corners});
    }
    return {svg: edges(svgs[0].getBoundingClientRect()), font: el.layout.font && el.layout.font.size, texts};
}"""


def outside(text: dict, svg: list[float]) -> bool:
    left, top, right, bottom = text["rect"]
    return (
        left < svg[0] - INSIDE_PX
        or top < svg[1] - INSIDE_PX
        or right > svg[2] + INSIDE_PX
        or bottom > svg[3] + INSIDE_PX
    )


def overlap_depth(a: list, b: list) -> float:
    """How deep two convex quadrilaterals (corners in order) overlap: the least overlap of their shadows along the
    normals of their edges (separating axis theorem); 0 or less when they are apart."""
    depth = float("inf")
    for poly in (a, b):
        for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
            nx, ny = y0 - y1, x1 - x0
            norm = (nx * nx + ny * ny) ** 0.5
            if norm == 0:
                continue
            pa = [(x * nx + y * ny) / norm for x, y in a]
            pb = [(x * nx + y * ny) / norm for x, y in b]
            depth = min(depth, min(max(pa), max(pb)) - max(min(pa), min(pb)))
    return depth


def misfits(drawn: dict) -> list[str]:
    """What is wrong with one drawn plot: a readable line per text outside its SVG and per pair of overlapping texts."""
    found = []
    for text in drawn["texts"]:
        if outside(text, drawn["svg"]):
            found.append(
                f"{text['text']!r} ({text['where']}) at {rounded(text['rect'])} outside {rounded(drawn['svg'])}"
            )
    for a, b in itertools.combinations(drawn["texts"], 2):
        depth = overlap_depth(a["corners"], b["corners"])
        if depth > OVERLAP_PX:
            found.append(f"{a['text']!r} ({a['where']}) and {b['text']!r} ({b['where']}) overlap by {depth:.1f} px")
    return found


def rounded(edges: list[float]) -> list[int]:
    return [round(v) for v in edges]


def report(found: dict[str, list[str]], shown: int = 4) -> str:
    """Per plot: how many misfits, and the first few."""
    lines = []
    for plot_id, problems in found.items():
        lines.append(f"{plot_id}: {len(problems)} misfits")
        lines += ["    " + problem for problem in problems[:shown]]
    return "\n".join(lines)


def settled(page, plot_id: str, font: int) -> dict:
    """The plot's texts once it is drawn in the look (its font) and two readings 300 ms apart agree (automargin
    redraws a figure once more after its first drawing)."""
    try:
        page.wait_for_function(
            "([id, font]) => { const el = document.querySelector('#' + id + ' .js-plotly-plot');"
            " return !!el && !!el.querySelector('.main-svg') && el.layout.font.size === font; }",
            arg=[plot_id, font],
            timeout=WAIT,
        )
    except Exception:
        raise AssertionError(f"#{plot_id} was never drawn with font {font}; messages: {toasts(page)}") from None
    before = page.evaluate(TEXTS, plot_id)
    for _ in range(20):
        page.wait_for_timeout(300)
        now = page.evaluate(TEXTS, plot_id)
        if now == before:
            return now
        before = now
    return now


@pytest.fixture(scope="module")
def pages(browser, app_server, library):
    """pages(look) → a 1280×720 page showing SENTENCE translated, its figures in `look`; one context at a time."""
    url, _ = app_server
    contexts = []

    def open_page(look: str):
        while contexts:
            contexts.pop().close()  # a page holds long-lived streams: an earlier page's must not block this one
        context = browser.new_context(locale="en-US", viewport=VIEWPORT)
        context.add_init_script(f"({RECORD_TOASTS})()")
        contexts.append(context)
        page = context.new_page()
        page.goto(url, wait_until="load")
        page.wait_for_selector("#sentence textarea", timeout=WAIT)
        # the radio's label in English names the look (its value: the look's name); before the translation: its
        # figures come in it
        page.get_by_role("radio", name=i18n.text(LOOK_KEYS[LOOKS.index(look)], "en"), exact=True).check()
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, library.translate(SENTENCE))
        return page

    yield open_page
    for context in contexts:
        context.close()


TABS = sorted({plot.tab for plot in PLOTS if plot.tab}, key=[plot.tab for plot in PLOTS].index)
# A summary cell's place on the page: Plotly's own axes turn the cell (layer, head) into client pixels.
CELL = """([id, layer, head]) => { const el = document.querySelector('#' + id + ' .js-plotly-plot');
    const fl = el._fullLayout, r = el.getBoundingClientRect();
    return [r.left + fl.xaxis._offset + fl.xaxis.d2p(head), r.top + fl.yaxis._offset + fl.yaxis.d2p(layer)]; }"""


def open_a_head(page) -> None:
    """Click layer 1, head 1 of the cross-attention heads' summary: the head opens large under it."""
    page.locator("#plot-heads-cross").scroll_into_view_if_needed()
    x, y = page.evaluate(CELL, ["plot-heads-cross", 1, 1])
    page.mouse.move(x, y, steps=5)  # Plotly clicks the point it is hovering
    page.wait_for_timeout(300)
    page.mouse.click(x, y)


def run_whatif(page) -> None:
    """Switch off cross-attention's layer 0, head 0 and run the lab: its probabilities and its maps side by side."""
    page.locator("#ablate-cross").get_by_label("L0 H0", exact=True).check()
    page.click("#whatif-run")


# The views a tab draws on a visitor's click (not registered plots): per tab, how the test opens them, and their plots.
OPENED = {
    "tab-overview": (lambda page: choose(page, "overview-pick", "layer 1 head 1"), ["plot-head"]),
    "tab-heads": (open_a_head, ["plot-heads-open"]),
    "tab-whatif": (run_whatif, ["plot-whatif-probs", "plot-whatif-maps"]),
    "tab-bugs": (lambda page: page.click("#bug-run"), ["plot-bug-probs", "plot-bug-maps"]),
}


# A plot's box: its height, how far it scrolls, and the height of the figure drawn in it.
BOX = """id => { const box = document.getElementById(id), el = box.querySelector('.js-plotly-plot');
    return [box.clientHeight, box.scrollHeight, el.querySelector('.main-svg').getBoundingClientRect().height]; }"""


def assert_scrolls_in_its_box(measured: list[float], plot_id: str, look: str, figure: float) -> None:
    """The plot keeps the height `figure` it was made with, in a box no taller than the screen that scrolls to
    show all of it."""
    box, scroll, drawn = measured  # BOX's reading
    assert abs(drawn - figure) <= 1, f"{plot_id} [{look}] squeezed: drawn {drawn} px high, made {figure} px"
    assert box <= VIEWPORT["height"], f"{plot_id} [{look}]'s box ({box} px) is taller than the screen"
    assert scroll >= drawn or drawn <= box, f"{plot_id} [{look}] is cut: its box scrolls {scroll} px of {drawn}"


@pytest.fixture(scope="module")
def walks(pages):
    """walks(look) → what the page shows in `look`, read once for both tests below: each registered plot's texts as
    drawn (`drawn`), its camera download (`exported`, EXPORTED), and the lesson map's box (`box`, BOX)."""
    done = {}

    def walk(look: str) -> dict:
        if look not in done:
            page, font = pages(look), style(slides(look)).font_size
            seen = done[look] = {"drawn": {}, "exported": {}}
            for tab in [None, *TABS]:
                if tab:
                    open_tab(page, tab.removeprefix("tab-"))
                for plot in (p for p in PLOTS if p.tab == tab):
                    seen["drawn"][plot.id] = settled(page, plot.id, font)
                    seen["exported"][plot.id] = page.evaluate(EXPORTED, plot.id)
                if tab is None:
                    seen["box"] = page.evaluate(BOX, "plot-cross")
            for tab, (opens, plot_ids) in OPENED.items():
                open_tab(page, tab.removeprefix("tab-"))
                opens(page)
                for plot_id in plot_ids:
                    seen["drawn"][plot_id] = settled(page, plot_id, font)
                    seen["exported"][plot_id] = page.evaluate(EXPORTED, plot_id)
        return done[look]

    return walk


@pytest.mark.parametrize("look", DRAWN_LOOKS)
def test_every_plot_keeps_its_text_inside_and_apart(walks, library, look):
    walked = walks(look)
    grid = next(plot for plot in PLOTS if plot.id == "plot-cross")  # the lesson's grid, as the page shows it first
    drawn_for_page = View(expected_trace(library, SENTENCE), presentation=slides(look), in_box=True)
    grid_height = grid.figure(drawn_for_page).layout.height
    found = {}
    for plot_id, drawn in walked["drawn"].items():
        assert drawn["texts"], f"{plot_id} [{look}] shows no text at all"
        if problems := misfits(drawn):
            found[plot_id] = problems
    if slides(look):
        assert_scrolls_in_its_box(walked["box"], grid.id, look, grid_height)
    else:  # on screen the lesson's map is fitted: whole in its box, which does not scroll
        box, scroll, drawn = walked["box"]
        assert grid_height == LESSON_FIT_PX and scroll <= box and box - 30 <= drawn <= box, (box, scroll, drawn)
    assert not found, f"[{look}] at {VIEWPORT}:\n" + report(found)


# What the camera button downloads, made as it makes it (Plotly.toImage with the plot's own download options: a
# slide's size, or the size the page shows), as an SVG (its texts measured in the page: box and font size) and as
# the PNG itself (its pixels read for blank bands).
EXPORTED = """async id => {
    const gd = document.querySelector('#' + id + ' .js-plotly-plot');
    const options = gd._context.toImageButtonOptions;
    const width = options.width || gd._fullLayout.width, height = options.height || gd._fullLayout.height;
    const url = await window.Plotly.toImage(gd, {format: 'svg', width, height});
    const png = await window.Plotly.toImage(gd, {format: 'png', width, height, scale: options.scale});
    const holder = document.createElement('div');
    holder.style.cssText = 'position: absolute; left: 0; top: 0; visibility: hidden';
    holder.innerHTML = decodeURIComponent(url.slice(url.indexOf(',') + 1));
    document.body.appendChild(holder);
    const svg = holder.querySelector('svg'), box = svg.getBoundingClientRect(), texts = [];
    for (const node of svg.querySelectorAll('text')) {
        const text = node.textContent.trim(), r = node.getBoundingClientRect();
        if (!text || !r.width || !r.height || node.closest('.hoverlayer')) continue;
        const group = node.closest('g[class]');
        texts.push({text, where: group ? group.getAttribute('class') : 'svg',
                    rect: [r.left - box.left, r.top - box.top, r.right - box.left, r.bottom - box.top],
                    size: parseFloat(getComputedStyle(node).fontSize)});
    }
    holder.remove();
    return {width, height, scale: options.scale, texts, png, note: !gd.data.length};
}"""
BAND = 0.10  # a run of blank rows may take at most this share of a download's height …
BAND_PX = 24  # … or this many pixels (a margin's worth) of the figure as laid out
SLIDE_FONT_PX = 14  # the smallest text on a slide laid out 1280×720 (21 px in its 1920×1080 PNG)


def blank_band(png: str, scale: float) -> tuple[float, float]:
    """The longest run of rows all of the background's colour in a PNG data URL: (its height, where it starts), in
    pixels of the figure as laid out."""
    pixels = np.asarray(Image.open(io.BytesIO(base64.b64decode(png.split(",", 1)[1]))).convert("RGB"), dtype=int)
    blank = (np.abs(pixels - pixels[0, 0]).sum(axis=2) <= 6).all(axis=1)
    longest = start = run = 0
    for row, empty in enumerate(blank):
        run = run + 1 if empty else 0
        if run > longest:
            longest, start = run, row - run + 1
    return longest / scale, start / scale


def download_misfits(exported: dict, slide: bool) -> list[str]:
    """What keeps a download from being pasted as it is: a text outside the image, a blank band, a slide's text too
    small to read."""
    found = []
    width, height = exported["width"], exported["height"]
    for text in exported["texts"]:
        if outside(text, [0, 0, width, height]):
            found.append(f"{text['text']!r} ({text['where']}) at {rounded(text['rect'])} outside {width}×{height}")
        # a slide's text at least 14 px; tilted key labels (x ticks) may shrink further to stay apart on a long axis
        if slide and text["size"] < SLIDE_FONT_PX and not re.fullmatch(r"x\d*tick", text["where"]):
            found.append(f"{text['text']!r} ({text['where']}) in a {text['size']} px font")
    band, at = blank_band(exported["png"], exported["scale"])
    if band > max(BAND * height, BAND_PX):
        found.append(f"a blank band {band:.0f} px high ({band / height:.0%}) from y = {at:.0f} of {height:.0f}")
    return found


def download_problems(page, plot_id: str, slide: bool) -> list[str]:
    """What keeps the plot's camera download from being pasted as it is (download_misfits), and a
    slide's size other than 1280 wide and 720 or taller."""
    exported = page.evaluate(EXPORTED, plot_id)
    problems = download_misfits(exported, slide)
    if slide and not (exported["width"] == 1280 and exported["height"] >= 720):
        problems.append(f"a slide of {exported['width']}×{exported['height']}")
    return problems


@pytest.mark.parametrize("look", DRAWN_LOOKS)
def test_every_download_is_ready_to_paste(walks, look):
    """Every registered plot's camera download and those of the views a click opens, in each look: every text inside
    the image, no blank band over a tenth of its height, and on a slide no text under 14 px (the slide laid out
    1280×720)."""
    exports = walks(look)["exported"]
    found = {}
    for plot_id, exported in exports.items():
        if slides(look):
            # 16:9 or taller; a note alone (nothing to plot) at its own height
            assert exported["width"] == 1280 and (exported["height"] >= 720 or exported["note"]), plot_id
        if problems := download_misfits(exported, slides(look)):
            found[plot_id] = problems
    assert len(exports) == len(PLOTS) + sum(len(plot_ids) for _, plot_ids in OPENED.values())
    assert not found, f"[{look}] downloads:\n" + report(found)
