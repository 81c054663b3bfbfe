"""Figures draw exactly the trace's numbers and label every axis with the tokens, duplicates apart."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import transformer_viz.figures as F
from tests.plots import axes_of, heatmaps, hover_at, strings
from tests.plots import tick_labels as labels
from tests.tiny import EVIL
from transformer_viz import i18n
from transformer_viz.figures.style import esc, piece_label


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
    assert [t for t in titles if t.startswith("Head")] == [f"Head {h}" for h in range(trace.n_heads)] + [
        "Head mean (average of 4)"
    ]
    assert f"Layer {layer}" in fig.layout.title.text and "Head" in fig.layout.title.text


@pytest.mark.parametrize("kind", ["cross", "decoder_self", "encoder_self"])
def test_ticks_are_the_tokens_in_order_duplicates_included(trace, kind):
    queries = trace.source_tokens if kind == "encoder_self" else trace.target_tokens
    keys = {
        "cross": trace.source_tokens,
        "encoder_self": trace.source_tokens,
        "decoder_self": trace.decoder_input_tokens,
    }[kind]
    assert len(set(trace.source_tokens)) < len(trace.source_tokens)  # the sentence repeats pieces
    for fig in (F.attention_grid(trace, kind, 0), F.attention_head(trace, kind, 0, 1)):
        for panel in heatmaps(fig):
            x, y = axes_of(fig, panel)
            assert list(x.ticktext) == labels(keys) and list(x.tickvals) == list(range(len(keys)))
            assert list(y.ticktext) == labels(queries) and list(y.tickvals) == list(range(len(queries)))
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
    for fig in (
        F.attention_grid(trace, "decoder_self", 1, step=t),
        F.attention_head(trace, "decoder_self", 1, 3, step=t),
    ):
        for panel in heatmaps(fig):
            z = np.asarray(panel.z, dtype=float)
            assert np.isfinite(z[: t + 1]).all() and np.isnan(z[t + 1 :]).all()
        outlines = [s for s in fig.layout.shapes if s.line.width and s.y0 == t - 0.5 and s.y1 == t + 0.5]
        assert len(outlines) == len(heatmaps(fig))
    np.testing.assert_allclose(heatmaps(fig)[0].z[: t + 1], trace.attention["decoder_self"][1, 3, : t + 1])
    assert f"step {t}" in fig.layout.title.text
    cross = heatmaps(F.attention_grid(trace, "cross", 0, step=t))[0]
    assert np.isfinite(np.asarray(cross.z, dtype=float)).all()  # cross rows stay unless asked
    hidden = heatmaps(F.attention_grid(trace, "cross", 0, step=t, hide_future=True))[0]
    assert np.isnan(np.asarray(hidden.z, dtype=float)[t + 1 :]).all()


def test_attention_head_mean_and_title(trace):
    fig = F.attention_head(trace, "cross", 1, "mean", show_values=True)
    np.testing.assert_allclose(heatmaps(fig)[0].z, trace.attention["cross"][1].mean(axis=0), atol=1e-6)
    assert "Layer 1" in fig.layout.title.text and "Head mean" in fig.layout.title.text
    assert heatmaps(fig)[0].texttemplate
    single = F.attention_head(trace, "encoder_self", 0, 2)
    assert "Layer 0" in single.layout.title.text and "Head 2" in single.layout.title.text


@pytest.mark.parametrize("rows", [6, 12, 20, 24])
def test_a_fitted_head_map_is_its_boxs_height_with_labels_that_fit_their_rows(translator, rows):
    """The lesson's map drawn for a box (fit_px): that tall, tight margins, and a query-label font no taller than
    the rows' share of what the margins leave; where rows are too close for the smallest readable font, every
    second row (or third) is labelled and the hover names every row; without fit_px, every row labelled."""
    from transformer_viz.figures.labels import MIN_TICK_PX

    trace = translator.trace("the dog sees the dog.", max_new_tokens=rows)
    rows = len(trace.target_ids)
    fig = F.attention_head(trace, "cross", 0, "mean", step=1, fit_px=290)
    layout = fig.layout
    assert layout.height == 290 and layout.margin.t < 70  # not the free-standing figure's 100-px title band
    pitch = (290 - layout.margin.t - layout.margin.b) / rows
    labels, font = list(layout.yaxis.ticktext), layout.yaxis.tickfont.size
    stride = layout.yaxis.tickvals[1] - layout.yaxis.tickvals[0]
    assert font >= MIN_TICK_PX and 1.25 * font <= stride * pitch  # each label within its share of the rows
    free = F.attention_head(trace, "cross", 0, "mean", step=1)
    assert free.layout.height > 290 and len(free.layout.yaxis.ticktext) == rows
    assert labels == list(free.layout.yaxis.ticktext)[::stride]
    if stride == 1:
        assert fig.data[0].customdata is None and "%{y}" in fig.data[0].hovertemplate
    else:  # the rows without a label are named in the hover
        cells = fig.data[0].customdata  # [query, key] of each cell
        assert rows > 12 and [row[0][0] for row in cells] == list(free.layout.yaxis.ticktext)
        assert [cell[1] for cell in cells[0]] == list(free.layout.xaxis.ticktext)
        assert "%{customdata[0]}" in fig.data[0].hovertemplate and "%{y}" not in fig.data[0].hovertemplate


@pytest.mark.parametrize(
    "call",
    [
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
    ],
)
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
    assert [a.text for a in fig.layout.annotations] == [f"L{i} H{h}" for i in range(2) for h in range(4)]
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
    assert texts["source tokens"] == labels(trace.source_tokens)
    assert texts["target tokens"] == labels(trace.target_tokens)
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
    assert fig.layout.yaxis.ticktext[chosen.y[0]] == esc(piece_label(record["token"]))
    assert chosen.marker.color != bars["alternative"].marker.color
    assert fig.layout.yaxis.ticktext == tuple(labels(o["token"] for o in record["top_k"]))
    assert fig.layout.title.text == f"Step {t}: next-token probabilities<br>entropy {record['entropy']:.2f} nats"


@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize("lang", ["en", "ja", "ko"])
def test_topk_title_keeps_two_lines_inside_and_after_a_forced_prefix(translator, trace, lang, presentation):
    """Beside the lesson's map (TOPK_PX wide on screen), the title is two lines at every step: a step inside a
    branch's forced prefix (its note added) takes the same room as one after it, so the bars do not jump."""
    branched = translator.trace("the dog sees the dog.", forced_prefix=trace.target_ids[:3], max_new_tokens=6)
    assert branched.forced_prefix == 3
    with F.language(lang):
        forced, free = (F.topk_bar(branched, step, presentation=presentation) for step in (1, 4))
    for fig in (forced, free):
        assert fig.layout.title.text.count("<br>") + 1 <= 2, fig.layout.title.text
    note = i18n.text("fig-forced-prefix", lang)
    assert note in forced.layout.title.text and note not in free.layout.title.text
    if lang == "en":  # the browser tests wait for the chart of step n by its title's start
        assert forced.layout.title.text.startswith("Step 1:") and free.layout.title.text.startswith("Step 4:")
    assert forced.layout.height == free.layout.height
    assert forced.layout.margin.t == free.layout.margin.t
    assert forced.layout.title.pad.t == free.layout.title.pad.t


def test_topk_bars_stay_put_from_step_to_step(trace):
    """One left margin for every step, wide enough for the widest candidate of any step: no automargin moves the
    bars (or draws the chart twice) as the learner steps."""
    figs = [F.topk_bar(trace, t) for t in range(len(trace.target_ids))]
    margins = {fig.layout.margin.l for fig in figs}
    assert len(margins) == 1 and all(fig.layout.yaxis.automargin is False for fig in figs)
    widest = max(len(piece_label(o["token"])) for record in trace.steps for o in record["top_k"])
    assert margins.pop() >= 0.6 * figs[0].layout.font.size * widest


@pytest.mark.parametrize("presentation", [False, True])
def test_topk_probabilities_stay_inside_the_figure(trace, presentation):
    """A probability is written past its bar's end (Plotly leaves 3 px): for a bar that reaches 100% (the axis's
    end) the text lies in the right margin, which must hold "100.0%" as a browser's sans-serif draws it (DejaVu Sans,
    measured by Pillow) at the figure's font; the slide look's "97.0%" once fell outside its SVG."""
    from PIL import ImageFont

    fig = F.topk_bar(trace, 1, presentation=presentation)
    texts = [text for bar in fig.data for text in bar.text]
    assert texts and all(re.fullmatch(r"\d{1,3}\.\d%", text) for text in texts)  # none longer than "100.0%"
    assert list(fig.layout.xaxis.range) == [0, 1] and all(bar.textposition == "outside" for bar in fig.data)
    font = ImageFont.truetype("DejaVuSans.ttf", fig.layout.font.size)
    assert fig.layout.margin.r >= font.getlength(f"{1:.1%}") + 3


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
    assert labelled.layout.yaxis.ticktext[1] == f"1 {esc(piece_label(trace.source_tokens[1]))}"


def test_mask_figures_show_exactly_the_masks(trace):
    for fig, mask in (
        (F.decoder_causal_mask(trace, step=1), trace.masks["decoder"]),
        (F.cross_mask(trace), trace.masks["cross"]),
    ):
        z = np.asarray(fig.data[0].z)
        np.testing.assert_array_equal(z, mask.astype(int))
        assert set(np.unique(z)) <= {0, 1}
        assert list(fig.data[0].colorbar.ticktext) == ["masked", "may attend"]
    causal = F.decoder_causal_mask(trace)
    assert list(causal.layout.xaxis.ticktext) == labels(trace.decoder_input_tokens)
    n, width = len(trace.source_tokens), len(trace.source_tokens) + 3
    pad = F.encoder_padding_mask(trace, width)
    z = np.asarray(pad.data[0].z)
    assert z.shape == (width, width) and (z[:, :n] == 1).all() and (z[:, n:] == 0).all()
    assert list(pad.layout.xaxis.ticktext[n:]) == ["&lt;pad&gt;"] * 3
    assert "<br>" in pad.layout.title.text and "&lt;br&gt;" not in pad.layout.title.text  # breaks, not literal tags
    assert (
        "&lt;b&gt;" in F.mask_matrix(np.ones((1, 1), bool), ["a"], ["b"], "<b>x</b>").layout.title.text
    )  # titles stay escaped
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
    assert "No beam tree" in empty.layout.title.text and not empty.data  # the note under the title, nothing plotted
