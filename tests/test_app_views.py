"""The analysis views in Chromium: what the heads do (click a cell), rollout and words, the beam tree (click a node).

Same server as test_app_browser.py (two tiny random checkpoints); expected values come from the library.
"""

from __future__ import annotations

from urllib.parse import urlencode

import numpy as np
import pytest

from tests.pages import (
    DRAWN_LOOKS,
    RECORD_TOASTS,
    SCREENSHOTS,
    SENTENCE,
    WAIT,
    escaped,
    open_tab,
    wait_at_rest,
    wait_plot,
    wait_settled,
    wait_translation,
)
from tests.test_figures_fit import download_problems, settled
from transformer_viz import i18n
from transformer_viz.app.common import LOOKS, slides
from transformer_viz.decoding import DecodeOptions
from transformer_viz.figures import esc
from transformer_viz.figures.style import style
from transformer_viz.lab import analysis

pytestmark = pytest.mark.browser

# Page coordinates of every point that carries customdata: [{trace, x, y, data, px, py}].
POINTS = """id => { const el = document.querySelector('#' + id + ' .js-plotly-plot'); const fl = el._fullLayout;
    const r = el.getBoundingClientRect(); const out = [];
    el._fullData.forEach((d, i) => { if (!d.customdata) return;
        const xa = fl[(d.xaxis || 'x').replace('x', 'xaxis')], ya = fl[(d.yaxis || 'y').replace('y', 'yaxis')];
        if (d.type === 'heatmap') { d.customdata.forEach((row, yi) => row.forEach((c, xi) => out.push(
            {trace: i, data: c, px: r.left + xa._offset + xa.d2p(xi), py: r.top + ya._offset + ya.d2p(yi)}))); }
        else { d.customdata.forEach((c, j) => out.push(
            {trace: i, data: c, px: r.left + xa._offset + xa.d2p(d.x[j]), py: r.top + ya._offset + ya.d2p(d.y[j])})); }
    }); return out; }"""


@pytest.fixture(scope="module")
def open_app(browser, app_server):
    url, _ = app_server
    contexts = []

    def open_page(**query):
        # A context of its own: each page of the app holds long-lived streams (queue data, heartbeat), and in one
        # context the pages of earlier tests used up the browser's six connections to the server, so that a later
        # page's requests waited for good (the bug lab's Run click never reached the server).
        while contexts:
            contexts.pop().close()
        context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720})
        context.add_init_script(f"({RECORD_TOASTS})()")  # wait_plot's failures then list every message the page showed
        contexts.append(context)
        page = context.new_page()
        page.goto(url + "?" + urlencode({"sentence": SENTENCE, **query}), wait_until="load")
        page.wait_for_selector("#sentence textarea", timeout=WAIT)
        return page

    yield open_page
    for context in contexts:
        context.close()


def click_point(page, elem_id: str, point: dict) -> None:
    page.mouse.move(point["px"], point["py"], steps=5)  # Plotly clicks the point it is hovering
    page.wait_for_timeout(300)
    page.mouse.click(point["px"], point["py"])


def test_head_summary_cells_open_their_head(open_app, library):
    trace = library.trace(SENTENCE, options=DecodeOptions())
    page = open_app()
    open_tab(page, "heads")
    for elem_id, kind in (
        ("plot-heads-cross", "cross"),
        ("plot-heads-dec-self", "decoder_self"),
        ("plot-heads-enc-self", "encoder_self"),
    ):
        wait_plot(page, elem_id)
        labels = page.evaluate("id => document.querySelector('#' + id + ' .js-plotly-plot').data[0].text", elem_id)
        summary = analysis.head_summary(trace, kind)
        # each cell: the head's label over its best detector's score
        assert [[cell.split("<br>")[0] for cell in row] for row in labels] == summary.labels
        best = np.max(np.stack(list(summary.scores.values())), axis=0)  # (L, H)
        assert [[float(cell.split("<br>")[1]) for cell in row] for row in labels] == np.round(best, 2).tolist()
    page.locator("#plot-heads-dec-self").scroll_into_view_if_needed()
    cell = next(p for p in page.evaluate(POINTS, "plot-heads-dec-self") if p["data"] == [1, 2])
    click_point(page, "plot-heads-dec-self", cell)
    opened = wait_plot(page, "plot-heads-open", "Layer 1", "Head 2")
    assert escaped(trace.decoder_input_tokens) in opened["ticks"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#tab-heads").screenshot(path=str(SCREENSHOTS / "heads.png"))
    page.get_by_label("한국어").check()  # the head a click opened is redrawn in the new language
    wait_plot(page, "plot-heads-open", "층 1", "2")


def test_rollout_and_word_views_label_their_axes(open_app, library):
    trace = library.trace(SENTENCE, options=DecodeOptions())
    page = open_app()
    open_tab(page, "rollout")
    rollout = wait_plot(page, "plot-rollout", "rollout")
    assert escaped(trace.source_tokens) in rollout["ticks"]
    words = wait_plot(page, "plot-rollout-words", "words")
    source_words = [esc(w) for w in analysis.word_labels(trace.source_tokens, analysis.word_spans(trace.source_tokens))]
    assert source_words in words["ticks"]
    wait_plot(page, "plot-words-cross")
    page.locator("#tab-rollout").screenshot(path=str(SCREENSHOTS / "rollout.png"))


def test_beam_tree_node_click_opens_its_attention(open_app, library):
    options = DecodeOptions(strategy="beam", beam_size=4)
    trace = library.trace(SENTENCE, options=options, strategy="beam")
    page = open_app(strategy="beam", beam=4)
    open_tab(page, "beam")
    wait_plot(page, "plot-beam", "Beam search tree")
    page.locator("#plot-beam").scroll_into_view_if_needed()
    points = page.evaluate(POINTS, "plot-beam")
    assert sorted({p["data"] for p in points}) == list(range(len(trace.beam_tree)))  # every node, once, clickable
    node = max(points, key=lambda p: (trace.beam_tree[p["data"]]["step"], not trace.beam_tree[p["data"]]["kept"]))
    click_point(page, "plot-beam", node)
    step = trace.beam_tree[node["data"]]["step"]
    page.wait_for_function(
        "t => document.querySelector('#beam-node-info').innerText.includes(t)",
        arg=f"Node {node['data']}, step {step}",
        timeout=WAIT,
    )
    wait_plot(page, "plot-beam-node", f"step {step}", "Layer 0")
    page.locator("#tab-beam").screenshot(path=str(SCREENSHOTS / "beam.png"))
    # The opened view follows the layer slider (it kept layer 0 until a language switch redrew it).
    page.fill("#layer input[type=number]", "1")
    page.press("#layer input[type=number]", "Enter")
    wait_plot(page, "plot-beam-node", f"step {step}", "Layer 1")
    for look in [*DRAWN_LOOKS[1:], DRAWN_LOOKS[0]]:  # its camera download, as a slide and on screen, ready to paste
        page.locator("#presentation input").nth(LOOKS.index(look)).check()
        settled(page, "plot-beam-node", style(slides(look)).font_size)
        assert not (problems := download_problems(page, "plot-beam-node", slides(look))), (look, problems)
    # A new translation closes the view the click opened: it belonged to the old beam tree.
    other = "Where is the station?"
    page.fill("#sentence textarea", other)
    page.click("#translate")
    wait_translation(page, library.translate(other, strategy="beam", beam_size=4))
    page.wait_for_function(
        "() => document.querySelector('#beam-node-info').innerText.trim() === '' && "
        "!document.querySelector('#plot-beam-node .js-plotly-plot')",
        timeout=WAIT,
    )


def wait_value(page, selector: str, value: str) -> None:
    try:
        page.wait_for_function(
            "([s, v]) => { const el = document.querySelector(s); return !!el && el.value === v; }",
            arg=[selector, value],
            timeout=WAIT,
        )
    except Exception:
        raise AssertionError(f"{selector} never became {value!r}; it is {page.input_value(selector)!r}") from None


def test_whatif_switches_heads_off_and_shows_both_translations(open_app, library):
    from transformer_viz.lab.compare import compare
    from transformer_viz.probes.interventions import Intervention

    cfg = library.config
    intervention = Intervention(ablate=(("cross", 0, 0),), no_positions=True)
    expected = compare(library, SENTENCE, intervention, options=DecodeOptions())
    page = open_app()
    wait_translation(page, library.translate(SENTENCE))  # the lab needs the page's translation
    wait_at_rest(page)  # a new translation empties the labs' results: a Run clicked before then lost them
    open_tab(page, "whatif")
    page.locator("#ablate-cross").get_by_label("L0 H0", exact=True).check()
    assert page.locator("#ablate-enc input[type=checkbox]").count() == cfg.n_layers * cfg.n_heads
    page.locator("#no-positions input").check()
    page.click("#whatif-run")
    wait_value(page, "#whatif-changed textarea", expected.changed.target_text)
    assert page.input_value("#whatif-original textarea") == expected.original.target_text
    page.wait_for_function(
        "t => document.querySelector('#whatif-summary').innerText.includes(t)",
        arg="Remove the positional encodings.",
        timeout=WAIT,
    )
    wait_plot(page, "plot-whatif-probs", "probability of the original token")
    # the maps follow the attention the change switches off (cross), and the kind radio says so
    maps = wait_plot(page, "plot-whatif-maps", i18n.text("fig-kind-cross", "en"), "Layer 0")
    assert page.locator("#whatif-kind input:checked").get_attribute("value") == "cross"
    assert escaped(expected.forced_original.target_tokens) in maps["ticks"]  # queries: the tokens produced
    assert escaped(expected.forced_original.source_tokens) in maps["ticks"]  # keys: the source
    page.locator("#tab-whatif").screenshot(path=str(SCREENSHOTS / "whatif.png"))
    page.get_by_label("日本語").check()  # the summary and both figures follow the language switch
    page.wait_for_function(
        "t => document.querySelector('#whatif-summary').innerText.includes(t)",
        arg=i18n.text("iv-explain-no_positions", "ja")[:20],
        timeout=WAIT,
    )
    wait_plot(page, "plot-whatif-maps", "層 0")
    # A new sentence empties the lab: its results belonged to the old one (they stayed, and no longer redrew).
    other = "We like coffee."
    page.fill("#sentence textarea", other)
    page.click("#translate")
    wait_translation(page, library.translate(other))
    page.wait_for_function(
        "() => document.querySelector('#whatif-changed textarea').value === '' && "
        "document.querySelector('#whatif-original textarea').value === '' && "
        "document.querySelector('#whatif-summary').innerText.trim() === '' && "
        "!document.querySelector('#plot-whatif-maps .js-plotly-plot') && "
        "!document.querySelector('#plot-whatif-probs .js-plotly-plot')",
        timeout=WAIT,
    )


def test_seed_bug_lab_shows_real_tokens_reading_pads(open_app, library):
    from transformer_viz.lab.compare import compare
    from transformer_viz.probes.interventions import LABELS, Intervention

    # A short translation leaves room within the tiny models' max_len for the pads in front.
    expected = compare(
        library, SENTENCE, Intervention(bug="target_padding_unmasked"), options=DecodeOptions(max_new_tokens=8)
    )
    assert expected.left_pad > 0
    page = open_app(max_len=8)
    wait_translation(page, library.translate(SENTENCE, max_new_tokens=8))  # the lab needs the page's translation
    wait_at_rest(page)  # a new translation empties the labs' results: a Run clicked before then lost its maps
    open_tab(page, "bugs")
    page.locator("#bug label", has_text=LABELS["target_padding_unmasked"]).locator(
        "input"
    ).check()  # checked before Run
    page.click("#bug-run")
    maps = wait_plot(page, "plot-bug-maps", f"{expected.left_pad} pad tokens in front")
    assert escaped(expected.padded_keys) in maps["ticks"]
    page.wait_for_function(
        "t => document.querySelector('#bug-summary').innerText.includes(t)",
        arg=i18n.text("iv-explain-target_padding_unmasked", "en")[:60],
        timeout=WAIT,
    )
    page.locator("#tab-bugs").screenshot(path=str(SCREENSHOTS / "bugs.png"))
    # Picking another bug without running it, then redrawing (here: the language), keeps the map of the bug that ran.
    page.locator("#bug label", has_text=LABELS["mask_ignored"]).locator("input").check()
    page.click("#bug-run")
    wait_plot(page, "plot-bug-maps", i18n.text("fig-kind-decoder_self", "en"))
    page.locator("#bug label", has_text=LABELS["scale_multiplied"]).locator(
        "input"
    ).check()  # a bug whose maps are cross-attention
    page.get_by_label("日本語").check()
    wait_plot(page, "plot-bug-maps", i18n.text("fig-kind-decoder_self", "ja"))


# The centre of each overview thumbnail, in page coordinates: [{meta: [layer, head], px, py}].
THUMBNAILS = """id => { const el = document.querySelector('#' + id + ' .js-plotly-plot'); const fl = el._fullLayout;
    const r = el.getBoundingClientRect();
    return el._fullData.filter(d => d.meta).map(d => {
        const xa = fl[(d.xaxis || 'x').replace('x', 'xaxis')], ya = fl[(d.yaxis || 'y').replace('y', 'yaxis')];
        return {meta: d.meta, px: r.left + xa._offset + xa._length / 2, py: r.top + ya._offset + ya._length / 2};
    }); }"""


def test_an_overview_thumbnail_click_opens_its_head_and_sets_the_menu(open_app, library):
    page = open_app()
    open_tab(page, "overview")
    wait_plot(page, "plot-overview")
    assert not page.locator("#plot-head").is_visible()  # no empty box waits under the overview
    wait_settled(page)  # the link's translation at rest: its views no longer redrawn under the mouse
    page.locator("#plot-overview").scroll_into_view_if_needed()
    thumb = next(t for t in page.evaluate(THUMBNAILS, "plot-overview") if t["meta"] == [1, 2])
    click_point(page, "plot-overview", thumb)
    wait_plot(page, "plot-head", "Layer 1", "Head 2")
    page.wait_for_function(
        "v => document.querySelector('#overview-pick input').value === v", arg="layer 1 head 2", timeout=WAIT
    )
