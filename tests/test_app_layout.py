"""The lesson at 1280×720 (a projector), driven by Chromium: what a teacher needs is on screen without scrolling.

Same server as test_app_browser.py (two tiny random checkpoints); one browser tab for the module, which each test
puts on the lesson it starts from (tests/pages.py: start_lesson), so the tests pass in any order.
"""

from __future__ import annotations

import math
from urllib.parse import urlencode

import pytest

from tests.pages import (
    RECORD_TOASTS,
    SENTENCE,
    WAIT,
    PageTimeout,
    expected_trace,
    open_tab,
    plot_info,
    wait_plot,
    wait_step,
    wait_translation,
)
from transformer_viz import i18n
from transformer_viz.app import handlers as h
from transformer_viz.decoding import DecodeOptions
from transformer_viz.figures.strip import readable, token_strip
from transformer_viz.translator import load_model

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 720}
LESSON = [
    "#sentence",
    "#translate",
    "#token-strip",
    "#step-prev",
    "#step-next",
    "#step-slider",
    "#layer",
    "#head",  # beside the layer: the main map's head is chosen without scrolling
    "#step-label",  # the step in words, whole (not cut at the screen's edge)
    "#plot-cross",
    "#plot-topk",
]


@pytest.fixture(scope="module")
def app_tab(browser, app_server):
    """The module's one browser tab, at 1280×720."""
    url, _ = app_server
    context = browser.new_context(locale="en-US", viewport=VIEWPORT)
    context.add_init_script(f"({RECORD_TOASTS})()")  # keeps every toast, the notice at the last step among them
    page = context.new_page()
    yield page
    context.close()


def test_after_translating_the_lesson_fits_the_screen_at_step_0(app_tab, app_server, library):
    trace = expected_trace(library)
    page = app_tab
    page.goto(app_server[0], wait_until="load")  # the app as a visitor opens it
    page.wait_for_selector("#sentence textarea", timeout=WAIT)
    page.fill("#sentence textarea", SENTENCE)
    page.click("#translate")
    wait_translation(page, trace.target_text)
    wait_step(page, 0)  # a translation opens on its first step
    wait_plot(page, "plot-cross", "step 0: producing")
    assert page.evaluate("() => [window.scrollX, window.scrollY]") == [0, 0]
    for selector in LESSON:
        box = page.locator(selector).bounding_box()
        assert box is not None, f"{selector} is not shown"
        inside = box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"]
        assert inside and box["y"] + box["height"] <= VIEWPORT["height"], f"{selector} is off screen: {box}"


# The main map and the top-k chart as the page draws them: each plot against its box and the screen, whether the
# box scrolls, and how far the main map's query labels (one per target token) run into each other.
LESSON_FIT = """() => {
  const out = {};
  for (const id of ['plot-cross', 'plot-topk']) {
    const box = document.getElementById(id), plot = box.querySelector('.js-plotly-plot .main-svg');
    const b = box.getBoundingClientRect(), p = plot.getBoundingClientRect();
    const el = box.querySelector('.js-plotly-plot');
    out[id] = {boxTop: b.top, boxBottom: b.bottom, plotTop: p.top, plotBottom: p.bottom,
               scrolls: box.scrollHeight > box.clientHeight + 1, element: el.clientHeight,
               height: el.layout.height || null, look: document.querySelector('#presentation input:checked')?.value};
  }
  const labels = [...document.querySelectorAll('#plot-cross .ytick text')].map(t => t.getBoundingClientRect())
    .filter(r => r.height > 0).sort((a, b) => a.top - b.top);
  out.rows = labels.length;
  out.overlap = Math.max(0, ...labels.slice(1).map((r, i) => labels[i].bottom - r.top));
  return out;
}"""
# The step line's box, how many lines its text takes and whether its box cuts the text.
STEP_LINE = """() => {
  const el = document.querySelector('#step-label'), text = el.querySelector('p') || el, r = el.getBoundingClientRect();
  const style = getComputedStyle(text), pitch = parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);
  const lines = Math.round(text.getBoundingClientRect().height / pitch);
  return {bottom: r.bottom, right: r.right, lines, text: el.innerText,
          cut: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1};
}"""
LONG_SENTENCE = "My brother and my sister are going to the cinema with their friends tonight."
# The main map of the translation shown has its rows drawn: one per target token (their labels, or where the labels
# are thinned, the cells' own hover names).
ROWS_DRAWN = """n => {
  const el = document.querySelector('#plot-cross .js-plotly-plot'), trace = el && el.data && el.data[0];
  const labels = document.querySelectorAll('#plot-cross .ytick text').length;
  return !!trace && (trace.customdata ? trace.customdata.length === n && labels > 0 : labels === n);
}"""
# Both lesson plots inside their boxes.
FITTED = """() => ['plot-cross', 'plot-topk'].every(id => {
  const box = document.getElementById(id).getBoundingClientRect();
  const plot = document.querySelector('#' + id + ' .js-plotly-plot .main-svg').getBoundingClientRect();
  return plot.top >= box.top - 1 && plot.bottom <= box.bottom + 1;
})"""
# The language menu's choices: each name's box, and the boxes of the title beside it and the sentence under it.
LANGUAGE_MENU = """() => {
  const box = el => {
    const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  return {names: [...document.querySelectorAll('#language label')].map(l => ({text: l.innerText.trim(), ...box(l)})),
          title: box(document.querySelector('#title')), sentence: box(document.querySelector('#sentence'))};
}"""
# (model, sentence, the translation's length asked for): a short and a long translation, opened by their share links
LESSONS = [("seed000", SENTENCE, 6), ("seed004", LONG_SENTENCE, 20)]


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_whole_lesson_map_and_top_k_fit_a_projectors_first_screen(browser, app_server, lang):
    """At 1280×720, after a 6-token and a 20-token translation in English, and the 20-token one in each other
    language: the whole main map and top-k chart are inside the first screen, neither is cut off or scrolled in its
    box, and no two query labels overlap; the language menu names every language on one line beside the title."""
    url, folder = app_server
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        for model, sentence, length in LESSONS if lang == "en" else LESSONS[-1:]:  # the long one in every language
            options = DecodeOptions(max_new_tokens=length)
            trace = load_model(folder / model, device="cpu").trace(sentence, options=options)
            assert len(trace.target_ids) == length, "the tiny model runs on to the length asked for"
            # the model and the length from a link, the sentence typed and translated as in class
            page.goto(f"{url}?{urlencode(dict(model=model, max_len=length, lang=lang))}", wait_until="load")
            page.wait_for_selector("#sentence textarea", timeout=WAIT)
            page.fill("#sentence textarea", sentence)
            page.click("#translate")
            wait_translation(page, trace.target_text)
            menu = page.evaluate(LANGUAGE_MENU)
            assert [name["text"] for name in menu["names"]] == list(i18n.LANGUAGES.values()), menu
            assert len({round(name["top"]) for name in menu["names"]}) == 1, f"the menu wraps: {menu}"
            assert (
                menu["names"][-1]["right"] <= VIEWPORT["width"] and menu["title"]["right"] <= menu["names"][0]["left"]
            )
            assert max(name["bottom"] for name in menu["names"]) <= menu["sentence"]["top"], menu
            try:
                page.wait_for_function(ROWS_DRAWN, arg=length, timeout=WAIT)
            except PageTimeout:
                raise AssertionError(f"the main map never had {length} rows: {plot_info(page, 'plot-cross')}") from None
            try:  # the maps refit once the page around them has settled (a long translation wraps its box)
                page.wait_for_function(FITTED, timeout=10_000)
            except PageTimeout:
                pass  # measured as it is: the assertions below say what does not fit
            fit = page.evaluate(LESSON_FIT)
            assert page.evaluate("() => window.scrollY") == 0
            line = page.evaluate(STEP_LINE)  # the step in words: one whole line on the first screen
            assert line["bottom"] <= VIEWPORT["height"] and line["right"] <= VIEWPORT["width"], line
            assert line["lines"] == 1 and not line["cut"], line
            for plot_id in ("plot-cross", "plot-topk"):
                shown = fit[plot_id]
                assert shown["boxBottom"] <= VIEWPORT["height"], f"{plot_id} ends below the screen: {shown}"
                assert shown["plotTop"] >= shown["boxTop"] - 1 and shown["plotBottom"] <= shown["boxBottom"] + 1, (
                    f"{plot_id} is cut off by its box: {shown}"
                )
                assert not shown["scrolls"], f"{plot_id} scrolls inside its box: {shown}"
            # every row labelled, or (rows too close for the smallest font) every second one; none run together
            assert fit["rows"] in (length, math.ceil(length / 2)) and fit["overlap"] < 1, (model, length, fit)
            assert fit["rows"] == length or length > 12, "a short translation has every row labelled"
    finally:
        context.close()


def test_the_strip_shows_readable_pieces_and_marks_the_step(lesson, library):
    trace = expected_trace(library)
    page = lesson()
    source = page.locator("#token-strip span.tv-piece").all_inner_texts()
    target = page.locator("#token-strip button.tv-piece").all_inner_texts()
    assert [t.strip() for t in source] == [readable(p)[0] for p in trace.source_tokens]
    assert [t.strip() for t in target] == [readable(p)[0] for p in trace.target_tokens]
    assert not any("\u2581" in t for t in source + target)  # no SentencePiece word mark
    current = page.locator("#token-strip .tv-current")
    assert current.count() == 1 and current.get_attribute("data-step") == "0"


def test_stepping_is_drawn_in_the_browser_without_asking_the_server(lesson, library):
    """Previous, Next, the slider and the strip change the map, the label, the strip and the alternatives."""
    trace = expected_trace(library)
    page = lesson(step=len(trace.target_ids) - 1)
    wait_step(page, len(trace.target_ids) - 1)
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    moves = [
        (lambda: page.click("#step-prev"), len(trace.target_ids) - 2),
        (lambda: page.locator("#token-strip button.tv-piece").nth(1).click(), 1),
        (lambda: page.click("#step-next"), 2),
        (
            lambda: (
                page.fill("#step-slider input[type=number]", "0"),
                page.press("#step-slider input[type=number]", "Enter"),
            ),
            0,
        ),
    ]
    for move, step in moves:
        move()
        wait_step(page, step)
        wait_plot(page, "plot-cross", f"step {step}: producing")
        page.wait_for_function(
            "s => document.querySelector('#token-strip .tv-current').dataset.step === String(s)", arg=step, timeout=WAIT
        )
        assert page.inner_text("#step-label").startswith(h.step_label(trace, step, "en")[:12])
    page.click("#alternative input")
    shown = page.locator("ul[role=listbox] li").all_inner_texts()
    page.keyboard.press("Escape")
    assert [" ".join(s.split()) for s in shown] == [" ".join(label.split()) for label, _ in h.alternatives(trace, 0)]
    assert not [url for url in asked if "/gradio_api/" in url and "heartbeat" not in url], asked


def test_a_step_redraws_every_drawn_plot_in_place_named_for_the_step(lesson, library):
    """The lesson's plots at once and the tabs' plots (shown or hidden) just after, with no request: each names
    the step in its title, and its camera button downloads it under the step's name. Translating the same
    sentence again goes back to step 0, though its figures are the ones Gradio holds already."""
    trace = expected_trace(library)
    last = len(trace.target_ids) - 1
    page = lesson()
    open_tab(page, "dec-self")  # Gradio mounts a tab's plots when it first opens; from then on they are redrawn
    wait_plot(page, "plot-dec-self", "step")
    open_tab(page, "cross")
    page.fill("#step-slider input[type=number]", "0")
    page.press("#step-slider input[type=number]", "Enter")
    wait_step(page, 0)
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    filename = "id => document.querySelector('#' + id + ' .js-plotly-plot')._context.toImageButtonOptions.filename"
    for step in range(1, min(last, 3) + 1):
        page.click("#step-next")
        for plot_id in ("plot-cross", "plot-topk", "plot-alignment", "plot-dec-self"):
            wait_plot(page, plot_id, f"tep {step}:")  # "Step 2: next-token …", "step 2: producing …"
            assert page.evaluate(filename, plot_id).endswith(f"_step-{step}"), plot_id
    open_tab(page, "dec-self")
    assert f"step {step}: producing" in plot_info(page, "plot-dec-self")["title"]
    assert not [url for url in asked if "/gradio_api/" in url and "heartbeat" not in url], asked
    open_tab(page, "cross")
    page.click("#translate")
    wait_step(page, 0)
    wait_plot(page, "plot-cross", "step 0: producing")
    assert page.evaluate(filename, "plot-cross").endswith("_step-0")


def test_a_new_head_or_layer_is_drawn_from_the_variants_without_new_frames(lesson, library):
    """Once every step's frames and their variants have arrived, a head chosen in the menu and a layer on the slider
    repaint the map and the open tab's step plots from them: the server draws no frames for them."""
    page = lesson()
    wait_step(page, 0)
    page.wait_for_function(
        "() => { const {frames: f, variants: v, bases} = transformerViz.page; "
        "return !!f && f.only === null && !!v && bases.has(v.base); }",
        timeout=WAIT,
    )
    serial = page.evaluate("() => transformerViz.page.frames.serial")
    page.click("#step-next")
    page.click("#head input")
    page.locator("ul[role=listbox] li", has_text="1").first.click()
    wait_plot(page, "plot-cross", "Head 1<br>", "step 1:")
    layer = 1 - int(page.input_value("#layer input[type=number]"))  # the tiny model's other layer
    page.fill("#layer input[type=number]", str(layer))
    page.press("#layer input[type=number]", "Enter")
    wait_plot(page, "plot-cross", f"Layer {layer} ", "Head 1<br>", "step 1:")
    wait_plot(page, "plot-alignment", f"ayer {layer}", "step 1")  # the open tab's plot follows the layer too
    page.click("#step-prev")
    wait_plot(page, "plot-cross", f"Layer {layer} ", "Head 1<br>", "step 0:")
    page.wait_for_timeout(500)  # a server's frames, had it sent any, have arrived
    assert page.evaluate("() => transformerViz.page.frames.serial") == serial, "the server drew the frames"
    assert page.evaluate("() => JSON.parse(transformerViz.page.frames.key).slice(0, 2)") == [layer, "1"]


# ------------------------------------------------------------------------------------------------ no browser
def test_strip_pieces_read_as_words_and_stay_text(evil_trace):
    assert readable("\u2581house") == ("house", True) and readable("se") == ("se", False)
    assert readable("\u2581") == ("\u2423", True)  # a bare word mark stays visible
    strip = token_strip(evil_trace, 0)
    assert "<img" not in strip and "&lt;img" in strip  # tokens come from user text
    assert strip.count("tv-current") == 1 and 'data-step="0" aria-pressed="true"' in strip  # step 0's token
    assert strip.count("data-step=") == len(evil_trace.target_tokens)


def test_a_long_strip_folds_to_a_window_around_the_step(evil_trace):
    """A side longer than STRIP_PIECES shows that many pieces: the source's first, the target's around the step,
    "…" where pieces are left out, so that a long paste keeps the lesson on the first screen."""
    import dataclasses
    import re

    from transformer_viz.figures.strip import FOLD, STRIP_PIECES

    n = 3 * STRIP_PIECES
    long = dataclasses.replace(
        evil_trace,
        source_tokens=[f"\u2581s{i}" for i in range(n)],
        target_tokens=[f"\u2581t{i}" for i in range(n)],
        target_ids=list(range(n)),
    )
    for step in (0, n // 2, n - 1):
        source, target = token_strip(long, step).split('<div class="tv-strip-row">')[1:]
        steps = [int(s) for s in re.findall(r'data-step="(\d+)"', target)]
        assert len(steps) == STRIP_PIECES and step in steps and steps == list(range(steps[0], steps[0] + len(steps)))
        assert (FOLD in target.split("<button")[0]) == (steps[0] > 0)  # "…" before: pieces left out before
        assert (FOLD in target.split("</button>")[-1]) == (steps[-1] < n - 1)
        assert source.count("tv-piece") == STRIP_PIECES and ">s0<" in source and source.count(FOLD) == 1
    assert FOLD not in token_strip(evil_trace, 0)  # a short sentence shows every piece
