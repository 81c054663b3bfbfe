"""Figures draw exactly the trace's numbers, label every axis with the tokens, and show user text literally."""
from __future__ import annotations

import ast
import copy
import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

import transformer_viz.figures as F
from tests.tiny import tiny_translator
from transformer_viz.figures.style import esc

EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def translator():
    return tiny_translator()


@pytest.fixture(scope="module")
def trace(translator):
    # "the dog … the dog" repeats pieces: duplicate tick labels must stay apart.
    return translator.trace("the dog sees the dog.", max_new_tokens=8)


@pytest.fixture(scope="module")
def beam_trace(translator):
    return translator.trace("I see the house.", strategy="beam", beam_size=3, max_new_tokens=5)


@pytest.fixture(scope="module")
def evil_trace(trace):
    """The same trace with an HTML payload as a source token, a target token and an alternative."""
    steps = copy.deepcopy(trace.steps)
    steps[0]["token"] = steps[0]["top_k"][0]["token"] = EVIL
    source = list(trace.source_tokens)
    source[1] = EVIL
    target = list(trace.target_tokens)
    target[0] = EVIL
    return dataclasses.replace(trace, source_tokens=source, target_tokens=target, steps=steps)


def heatmaps(fig):
    return [t for t in fig.data if t.type == "heatmap"]


def axes_of(fig, trace_):
    """The layout x and y axes a trace is drawn on."""
    x, y = trace_.xaxis or "x", trace_.yaxis or "y"  # a single-plot figure leaves them unset
    return fig.layout["xaxis" + x[1:]], fig.layout["yaxis" + y[1:]]


def hover_at(fig, panel, row, col):
    """The hover label Plotly.js draws over a heatmap cell: %{x} and %{y} show the axes' tick text at that
    position (tickmode "array"; checked in Chromium), %{hovertext} the cell's own hover text."""
    x, y = axes_of(fig, panel)
    label = panel.hovertemplate
    if panel.hovertext is not None:
        label = label.replace("%{hovertext}", np.asarray(panel.hovertext)[row, col])
    return (label.replace("%{x}", x.ticktext[list(x.tickvals).index(col)])
            .replace("%{y}", y.ticktext[list(y.tickvals).index(row)]))


def strings(obj):
    """Every string inside a figure's JSON-ready form."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from strings(value)
    elif isinstance(obj, (list, tuple, np.ndarray)):
        for value in obj:
            yield from strings(value)


def all_figures(trace, beam_trace):
    return {
        "grid": F.attention_grid(trace, "cross", 0, step=2),
        "head": F.attention_head(trace, "decoder_self", 1, 0, step=2),
        "alignment": F.alignment(trace, 1, step=1),
        "overview": F.overview(trace, "encoder_self"),
        "topk": F.topk_bar(trace, 1),
        "pe": F.positional_heatmap(trace.positional_encoding, tokens=trace.source_tokens),
        "curves": F.positional_curves(trace.positional_encoding),
        "similarity": F.position_similarity(trace.positional_encoding),
        "padding": F.encoder_padding_mask(trace, len(trace.source_tokens) + 4),
        "causal": F.decoder_causal_mask(trace, step=2),
        "cross_mask": F.cross_mask(trace),
        "pipeline": F.score_pipeline(trace, 0, 1, step=2),
        "beam": F.beam_tree_figure(beam_trace),
    }


@pytest.mark.parametrize("kind", ["cross", "decoder_self", "encoder_self"])
@pytest.mark.parametrize("layer", [0, 1])
def test_grid_panels_are_the_heads_and_their_mean(trace, kind, layer):
    fig = F.attention_grid(trace, kind, layer)
    panels = heatmaps(fig)
    weights = trace.attention[kind][layer]  # (H, Q, K)
    assert len(panels) == trace.n_heads + 1
    for h in range(trace.n_heads):
        np.testing.assert_allclose(panels[h].z, weights[h], atol=1e-7)
    np.testing.assert_allclose(panels[-1].z, weights.mean(axis=0), atol=1e-6)
    # One colour scale, 0 to 1, one colour bar: every panel uses the layout's shared colour axis.
    assert {p.coloraxis for p in panels} == {"coloraxis"}
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    assert fig.layout.coloraxis.colorscale is not None
    assert not any(p.showscale for p in panels) and all(p.colorscale is None for p in panels)
    titles = [a.text for a in fig.layout.annotations]
    assert [t for t in titles if t.startswith("Head")] == [f"Head {h}" for h in range(trace.n_heads)] + ["Head mean (average of 4)"]
    assert f"Layer {layer}" in fig.layout.title.text and "Head" in fig.layout.title.text


@pytest.mark.parametrize("kind", ["cross", "decoder_self", "encoder_self"])
def test_ticks_are_the_tokens_in_order_duplicates_included(trace, kind):
    queries = trace.source_tokens if kind == "encoder_self" else trace.target_tokens
    keys = {"cross": trace.source_tokens, "encoder_self": trace.source_tokens,
            "decoder_self": trace.decoder_input_tokens}[kind]
    assert len(set(trace.source_tokens)) < len(trace.source_tokens)  # the sentence repeats pieces
    for fig in (F.attention_grid(trace, kind, 0), F.attention_head(trace, kind, 0, 1)):
        for panel in heatmaps(fig):
            x, y = axes_of(fig, panel)
            assert list(x.ticktext) == [esc(t) for t in keys] and list(x.tickvals) == list(range(len(keys)))
            assert list(y.ticktext) == [esc(t) for t in queries] and list(y.tickvals) == list(range(len(queries)))
            assert y.autorange == "reversed"  # row 0 at the top
            assert np.asarray(panel.z).shape == (len(queries), len(keys))
            last_query, last_key = len(queries) - 1, len(keys) - 1
            assert esc(queries[-1]) in hover_at(fig, panel, last_query, 0)
            assert esc(keys[-1]) in hover_at(fig, panel, 0, last_key)
            assert "weight" in panel.hovertemplate


def test_axis_titles_say_what_rows_and_columns_are(trace):
    def titles(fig):
        return " ".join(a.title.text.replace("<br>", " ") for a in (fig.layout.xaxis, fig.layout.yaxis))

    assert "query (target token being produced)" in titles(F.attention_head(trace, "cross", 0, 0))
    assert "key (source token)" in titles(F.attention_head(trace, "cross", 0, 0))
    assert "key (decoder input: &lt;s&gt;, y1" in titles(F.attention_head(trace, "decoder_self", 0, 0))
    assert "query (source token)" in titles(F.attention_head(trace, "encoder_self", 0, 0))


def test_decoder_self_at_a_step_hides_later_rows_and_outlines_the_current_one(trace):
    t = 2
    for fig in (F.attention_grid(trace, "decoder_self", 1, step=t), F.attention_head(trace, "decoder_self", 1, 3, step=t)):
        for panel in heatmaps(fig):
            z = np.asarray(panel.z, dtype=float)
            assert np.isfinite(z[: t + 1]).all() and np.isnan(z[t + 1:]).all()
        outlines = [s for s in fig.layout.shapes if s.line.width and s.y0 == t - 0.5 and s.y1 == t + 0.5]
        assert len(outlines) == len(heatmaps(fig))
    np.testing.assert_allclose(heatmaps(fig)[0].z[: t + 1], trace.attention["decoder_self"][1, 3, : t + 1])
    assert f"step {t}" in fig.layout.title.text
    cross = heatmaps(F.attention_grid(trace, "cross", 0, step=t))[0]
    assert np.isfinite(np.asarray(cross.z, dtype=float)).all()  # cross rows stay unless asked
    hidden = heatmaps(F.attention_grid(trace, "cross", 0, step=t, hide_future=True))[0]
    assert np.isnan(np.asarray(hidden.z, dtype=float)[t + 1:]).all()


def test_attention_head_mean_and_title(trace):
    fig = F.attention_head(trace, "cross", 1, "mean", show_values=True)
    np.testing.assert_allclose(heatmaps(fig)[0].z, trace.attention["cross"][1].mean(axis=0), atol=1e-6)
    assert "Layer 1" in fig.layout.title.text and "Head mean" in fig.layout.title.text
    assert heatmaps(fig)[0].texttemplate
    single = F.attention_head(trace, "encoder_self", 0, 2)
    assert "Layer 0" in single.layout.title.text and "Head 2" in single.layout.title.text


@pytest.mark.parametrize("call", [
    lambda t: F.attention_grid(t, "self", 0),
    lambda t: F.attention_grid(t, "cross", 2),
    lambda t: F.attention_head(t, "cross", 0, 4),
    lambda t: F.attention_head(t, "cross", 0, 0, step=len(t.target_tokens)),
    lambda t: F.topk_bar(t, -1),
    lambda t: F.score_pipeline(t, 0, "mean"),
    lambda t: F.positional_curves(t.positional_encoding, dims=[999]),
    lambda t: F.positional_heatmap(np.zeros(5)),
    lambda t: F.mask_matrix(np.ones((2, 3)), ["a"], ["b"], "m"),
    lambda t: F.plot_config("gif"),
])
def test_bad_arguments_raise_a_clear_value_error(trace, call):
    with pytest.raises(ValueError):
        call(trace)


def test_overview_has_every_layer_and_head_and_clicks_map_back(trace):
    fig = F.overview(trace, "decoder_self")
    panels = heatmaps(fig)
    assert len(fig.data) == len(panels) == trace.n_layers * trace.n_heads
    for curve, panel in enumerate(panels):
        layer, head = F.overview_index(curve, trace.n_heads)
        assert list(panel.meta) == [layer, head] and panel.name == f"L{layer} H{head}"
        np.testing.assert_allclose(panel.z, trace.attention["decoder_self"][layer, head])
        x, y = axes_of(fig, panel)
        assert x.showticklabels is False and y.showticklabels is False
    assert [a.text for a in fig.layout.annotations] == [f"L{l} H{h}" for l in range(2) for h in range(4)]
    assert {p.coloraxis for p in panels} == {"coloraxis"}
    for layer in range(3):
        for head in range(5):
            assert F.overview_index(layer * 5 + head, 5) == (layer, head)


def test_alignment_draws_a_line_per_weight_above_threshold(trace):
    layer, step = 1, 3
    weights = trace.attention["cross"][layer].mean(axis=0)
    fig = F.alignment(trace, layer, step=step, threshold=0.05)
    lines = [t for t in fig.data if t.mode == "lines"]
    segments = sum(list(t.x).count(None) for t in lines)
    assert segments == int((weights >= 0.05).sum())
    current = [t for t in lines if t.name.startswith(f"step {step}")]
    assert sum(list(t.x).count(None) for t in current) == int((weights[step] >= 0.05).sum())
    assert {t.line.color for t in current} == {F.OKABE_ITO["vermillion"]}
    texts = {t.name: list(t.text) for t in fig.data if t.mode == "markers+text"}
    assert texts["source tokens"] == [esc(x) for x in trace.source_tokens]
    assert texts["target tokens"] == [esc(x) for x in trace.target_tokens]
    assert "Layer 1" in fig.layout.title.text and "Head mean" in fig.layout.title.text


def test_topk_bar_probabilities_and_the_chosen_token(trace):
    t = 1
    record = trace.steps[t]
    fig = F.topk_bar(trace, t)
    bars = {b.name: b for b in fig.data}
    total = sum(sum(b.x) for b in fig.data)
    assert 0 < total <= 1 + 1e-6
    assert list(fig.layout.xaxis.range) == [0, 1]
    chosen = bars["chosen token"]
    assert len(chosen.x) == 1 and math.isclose(chosen.x[0], record["prob"], rel_tol=1e-6)
    assert fig.layout.yaxis.ticktext[chosen.y[0]] == esc(record["token"])
    assert chosen.marker.color != bars["alternative"].marker.color
    assert fig.layout.yaxis.ticktext == tuple(esc(o["token"]) for o in record["top_k"])
    assert fig.layout.title.text == f"Step {t}: next-token probabilities (entropy {record['entropy']:.2f} nats)"


def test_user_text_is_escaped_everywhere(evil_trace, trace):
    figs = [
        F.attention_grid(evil_trace, "cross", 0, step=0), F.attention_head(evil_trace, "encoder_self", 0, 0),
        F.alignment(evil_trace, 0, step=0), F.topk_bar(evil_trace, 0),
        F.decoder_causal_mask(evil_trace), F.encoder_padding_mask(evil_trace, 20),
        F.score_pipeline(evil_trace, 0, 0), F.positional_heatmap(evil_trace.positional_encoding, evil_trace.source_tokens),
        F.positional_heatmap(trace.positional_encoding, title=EVIL),
    ]
    for fig in figs:
        found = list(strings(fig.to_plotly_json()))
        assert not any("<img" in s for s in found)
        assert any("&lt;img src=x onerror=alert(1)&gt;" in s for s in found)
    grid = figs[0]
    assert grid.layout.xaxis.ticktext[1] == "&lt;img src=x onerror=alert(1)&gt;"
    assert "&lt;img" in hover_at(grid, heatmaps(grid)[0], 0, 1)
    assert "&lt;img" in grid.layout.title.text  # step 0 produces the payload
    assert esc("a & b $x$") == "a &amp; b &#36;x&#36;"


@pytest.mark.parametrize("name", ["grid", "head", "alignment", "overview", "topk", "pe", "curves", "similarity",
                                  "padding", "causal", "cross_mask", "pipeline", "beam"])
def test_presentation_mode_is_large_on_white_and_json_is_small(trace, beam_trace, name):
    builders = {
        "grid": lambda p: F.attention_grid(trace, "cross", 0, step=2, presentation=p),
        "head": lambda p: F.attention_head(trace, "decoder_self", 1, 0, step=2, presentation=p),
        "alignment": lambda p: F.alignment(trace, 1, step=1, presentation=p),
        "overview": lambda p: F.overview(trace, "encoder_self", presentation=p),
        "topk": lambda p: F.topk_bar(trace, 1, presentation=p),
        "pe": lambda p: F.positional_heatmap(trace.positional_encoding, presentation=p),
        "curves": lambda p: F.positional_curves(trace.positional_encoding, presentation=p),
        "similarity": lambda p: F.position_similarity(trace.positional_encoding, presentation=p),
        "padding": lambda p: F.encoder_padding_mask(trace, 20, presentation=p),
        "causal": lambda p: F.decoder_causal_mask(trace, step=2, presentation=p),
        "cross_mask": lambda p: F.cross_mask(trace, presentation=p),
        "pipeline": lambda p: F.score_pipeline(trace, 0, 1, step=2, presentation=p),
        "beam": lambda p: F.beam_tree_figure(beam_trace, presentation=p),
    }
    light, slides = builders[name](False), builders[name](True)
    assert light.layout.font.size == 12 and slides.layout.font.size == 20
    assert slides.layout.paper_bgcolor == "white" and slides.layout.plot_bgcolor == "white"
    assert slides.layout.title.font.size > light.layout.title.font.size
    for fig in (light, slides):
        assert len(fig.to_json()) < 200_000


def test_positional_figures_accept_any_table(trace):
    pe = trace.positional_encoding  # sinusoidal (S, D)
    learned = np.random.default_rng(0).normal(size=(7, 6)).astype(np.float32)
    learned[3] = 0  # a zero vector is similar to nothing, not NaN
    for table in (pe, learned):
        heat = F.positional_heatmap(table)
        np.testing.assert_array_equal(heat.data[0].z, table)
        assert heat.data[0].colorscale and heat.data[0].zmid == 0
        assert heat.layout.xaxis.title.text == "dimension i" and heat.layout.yaxis.title.text == "position"
        sim = np.asarray(F.position_similarity(table).data[0].z)
        norms = np.linalg.norm(table, axis=1)
        np.testing.assert_allclose(np.diag(sim)[norms > 0], 1, atol=1e-5)
        np.testing.assert_allclose(sim, sim.T, atol=1e-6)
        assert np.isfinite(sim).all()
    assert np.diag(np.asarray(F.position_similarity(learned).data[0].z))[3] == 0
    curves = F.positional_curves(pe, dims=(0, 1, 4, 5))
    assert [c.name for c in curves.data] == ["dim 0", "dim 1", "dim 4", "dim 5"]
    for c, d in zip(curves.data, (0, 1, 4, 5)):
        np.testing.assert_array_equal(c.y, pe[:, d])
    labelled = F.positional_heatmap(pe, tokens=trace.source_tokens)
    assert labelled.layout.yaxis.ticktext[1] == f"1 · {esc(trace.source_tokens[1])}"


def test_mask_figures_show_exactly_the_masks(trace):
    for fig, mask in ((F.decoder_causal_mask(trace, step=1), trace.masks["decoder"]),
                      (F.cross_mask(trace), trace.masks["cross"])):
        z = np.asarray(fig.data[0].z)
        np.testing.assert_array_equal(z, mask.astype(int))
        assert set(np.unique(z)) <= {0, 1}
        assert list(fig.data[0].colorbar.ticktext) == ["masked", "may attend"]
    causal = F.decoder_causal_mask(trace)
    assert list(causal.layout.xaxis.ticktext) == [esc(t) for t in trace.decoder_input_tokens]
    n, width = len(trace.source_tokens), len(trace.source_tokens) + 3
    pad = F.encoder_padding_mask(trace, width)
    z = np.asarray(pad.data[0].z)
    assert z.shape == (width, width) and (z[:, :n] == 1).all() and (z[:, n:] == 0).all()
    assert list(pad.layout.xaxis.ticktext[n:]) == ["&lt;pad&gt;"] * 3
    assert "<br>" in pad.layout.title.text and "&lt;br&gt;" not in pad.layout.title.text  # breaks, not literal tags
    assert "&lt;b&gt;" in F.mask_matrix(np.ones((1, 1), bool), ["a"], ["b"], "<b>x</b>").layout.title.text  # titles stay escaped
    assert np.asarray(F.encoder_padding_mask(trace, 2).data[0].z).all()  # a shorter partner pads nothing
    custom = F.mask_matrix(np.array([[1, 0], [1, 1]], bool), ["a", "a"], ["b", "c"], "tiny")
    np.testing.assert_array_equal(custom.data[0].z, [[1, 0], [1, 1]])


def test_score_pipeline_panels(trace):
    layer, head = 1, 2
    fig = F.score_pipeline(trace, layer, head, step=3)
    scores, masked, minus_inf, weights = heatmaps(fig)
    mask = trace.masks["decoder"].astype(bool)
    np.testing.assert_allclose(scores.z, trace.decoder_self_scores[layer, head])
    shown = np.asarray(masked.z, dtype=float)
    assert (np.isnan(shown) == ~mask).all()
    np.testing.assert_allclose(shown[mask], trace.decoder_self_scores[layer, head][mask])
    grey = np.asarray(minus_inf.z, dtype=float)
    assert (np.isfinite(grey) == ~mask).all()
    assert (np.asarray(minus_inf.text)[~mask] == "−∞").all() and (np.asarray(minus_inf.text)[mask] == "").all()
    np.testing.assert_allclose(weights.z, trace.attention["decoder_self"][layer, head])
    assert weights.coloraxis == "coloraxis2" and fig.layout.coloraxis2.cmin == 0 and fig.layout.coloraxis2.cmax == 1
    assert scores.coloraxis == masked.coloraxis == "coloraxis"
    assert "Layer 1" in fig.layout.title.text and "Head 2" in fig.layout.title.text


def test_beam_tree(beam_trace, trace):
    fig = F.beam_tree_figure(beam_trace, id_to_token={beam_trace.target_ids[0]: EVIL})
    groups = {t.name: t for t in fig.data if t.mode == "markers+text" and t.name != "start"}
    assert sum(len(t.x) for t in groups.values()) == len(beam_trace.beam_tree)
    assert len(groups["pruned"].x) == sum(not n["kept"] for n in beam_trace.beam_tree)
    assert len(groups["chosen translation"].x) == len(beam_trace.target_ids)
    assert list(groups["chosen translation"].x) == list(range(len(beam_trace.target_ids)))
    assert not any("<img" in s for s in strings(fig.to_plotly_json()))
    empty = F.beam_tree_figure(trace)  # greedy: no tree, a message instead of an error
    assert "No beam tree" in empty.layout.annotations[0].text


def test_plot_config_and_figure_json(trace):
    assert F.PLOT_CONFIG["toImageButtonOptions"]["format"] == "png"
    assert F.PLOT_CONFIG["toImageButtonOptions"]["scale"] >= 2 and F.PLOT_CONFIG["displaylogo"] is False
    assert F.plot_config("svg")["toImageButtonOptions"]["format"] == "svg"
    data = json.loads(F.figure_json(F.topk_bar(trace, 0), fmt="svg"))
    assert data["config"]["toImageButtonOptions"]["format"] == "svg" and data["data"] and data["layout"]


def test_figures_import_neither_torch_nor_gradio():
    for path in Path(F.__file__).parent.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))
        roots = {name.lstrip(".").split(".")[0] for name in imported if not name.startswith(".")}
        assert not roots & {"torch", "gradio"}, path
        assert imported & {"..model", "..translator", "..hooks"} == set(), path


@pytest.fixture(scope="module")
def every_figure(trace, beam_trace):
    """Every builder in its light and presentation looks, with the options that add shapes or text."""
    figs = {**all_figures(trace, beam_trace), "greedy beam": F.beam_tree_figure(trace),
            "grid hidden": F.attention_grid(trace, "decoder_self", 1, step=2),
            "head values": F.attention_head(trace, "cross", 0, "mean", step=1, hide_future=True, show_values=True),
            "alignment no step": F.alignment(trace, 0, head=2),
            "mask": F.mask_matrix(np.array([[1, 0], [1, 1]], bool), ["a", "a"], ["b", "c"], "tiny", step=1),
            "similarity tokens": F.position_similarity(trace.positional_encoding, tokens=trace.source_tokens)}
    slides = {
        "grid": F.attention_grid(trace, "decoder_self", 0, step=1, presentation=True),
        "alignment": F.alignment(trace, 1, step=1, presentation=True),
        "overview": F.overview(trace, "cross", presentation=True),
        "topk": F.topk_bar(trace, 0, presentation=True),
        "curves": F.positional_curves(trace.positional_encoding, presentation=True),
        "padding": F.encoder_padding_mask(trace, 20, presentation=True),
        "pipeline": F.score_pipeline(trace, 1, 3, step=0, presentation=True),
        "beam": F.beam_tree_figure(beam_trace, presentation=True),
    }
    return {**figs, **{f"{name} (slides)": fig for name, fig in slides.items()}}


def test_every_figure_is_valid_plotly_and_its_json_is_plotlys(every_figure):
    """Builders skip Plotly's validation for speed: validating their output afterwards must accept it unchanged."""
    for name, fig in every_figure.items():
        validated = go.Figure(fig.to_plotly_json())  # raises ValueError on any unknown or ill-typed property
        ours = json.loads(F.figure_json(fig))
        assert ours.pop("config") == F.plot_config(), name
        assert ours == json.loads(validated.to_json()), name


def test_figure_json_of_any_figure_reads_as_plotlys():
    """figure_json writes a figure's properties itself: for any figure it must read back as fig.to_json() does."""
    points = go.Scatter(x=np.arange(4), y=[1.0, float("nan"), None, 2.5], text=np.array(["<b>", "a/b", "▁c", "d"]),
                        marker=dict(size=np.array([3.5, 4, 5, 6])))
    fig = go.Figure(points, layout=dict(title=dict(text="</script>")))
    text = F.figure_json(fig)
    ours = json.loads(text)
    assert ours.pop("config") == F.plot_config()
    assert ours == json.loads(fig.to_json())
    assert "<" not in text and ">" not in text and "/" not in text  # safe inside an HTML <script>


def test_heatmap_hover_sends_no_string_per_cell(every_figure):
    """The query and key tokens reach the hover through the axes' tick text, not a string per cell."""
    for name, fig in every_figure.items():
        for panel in heatmaps(fig):
            assert panel.hovertext is None and panel.customdata is None, name
            assert "%{x}" in panel.hovertemplate and "%{y}" in panel.hovertemplate, name
