"""Head summary, rollout, word-level and beam tree figures: the analysis's numbers, labelled, escaped, clickable."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import transformer_viz.figures as F
from tests.plots import assert_valid_plotly, strings, tick_labels
from tests.tiny import EVIL, EVIL_ESCAPED
from transformer_viz.figures.style import HIGHLIGHT, MASKED_GREY, esc
from transformer_viz.lab import analysis as A


def test_head_summary_figure_shows_labels_and_clicks_map_to_heads(trace):
    # Give encoder layer 1 known heads: previous token, diagonal, all on </s>, uniform.
    S = len(trace.source_tokens)
    previous = np.eye(S)[[0] + list(range(S - 1))]
    patterns = np.stack([previous, np.eye(S), np.eye(S)[[S - 1] * S], np.full((S, S), 1 / S)])
    attention = dict(trace.attention, encoder_self=np.stack([trace.attention["encoder_self"][0], patterns]))
    known = dataclasses.replace(trace, attention=attention)
    fig = F.head_summary_figure(known, "encoder_self")
    (cells,) = fig.data
    summary = A.head_summary(known, "encoder_self")
    np.testing.assert_allclose(cells.z, summary.confidence, atol=1e-6)
    # short names over the best score, two lines so no label runs into the next cell; the hover names it in full
    assert [list(row) for row in cells.text][1] == ["previous<br>1.00", "self<br>1.00", "sink<br>1.00", "mixed<br>0.00"]
    for lang, words in (("ja", ["直前", "対角線", "シンク", "混合"]), ("ko", ["앞 토큰", "대각선", "싱크", "혼합"])):
        with F.language(lang):  # the cells speak the visitor's language too
            (translated,) = F.head_summary_figure(known, "encoder_self").data
        assert [text.split("<br>")[0] for text in translated.text[1]] == words
    for layer in range(known.n_layers):
        for head in range(known.n_heads):
            assert list(cells.customdata[layer][head]) == [layer, head]
            hover = cells.hovertext[layer][head]
            assert f"Layer {layer} · Head {head}" in hover
            assert f"entropy {summary.entropy[layer, head]:.2f} nats" in hover
            assert f"confidence {summary.confidence[layer, head]:.2f}" in hover
    assert "sink key: &lt;/s&gt;" in cells.hovertext[1][2] and "</s>" not in cells.hovertext[1][2]
    assert list(fig.layout.yaxis.ticktext) == ["L0", "L1"]
    assert list(fig.layout.xaxis.ticktext) == ["H0", "H1", "H2", "H3"]
    assert fig.layout.xaxis.title.text == "head" and fig.layout.yaxis.title.text == "layer"
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1
    assert_valid_plotly(fig)


@pytest.mark.parametrize("kind", ["decoder_self", "cross"])
def test_head_summary_figure_every_kind(trace, kind):
    fig = F.head_summary_figure(trace, kind)
    summary = A.head_summary(trace, kind)
    best = [[max(summary.head(i, h)["scores"].values()) for h in range(trace.n_heads)] for i in range(trace.n_layers)]
    expected = [[f"{x}<br>{b:.2f}" for x, b in zip(*rows)] for rows in zip(summary.labels, best)]
    assert [list(row) for row in fig.data[0].text] == expected
    assert all(len(line) <= 9 for row in fig.data[0].text for cell in row for line in cell.split("<br>"))
    for hover_row, label_row in zip(fig.data[0].hovertext, summary.labels):  # the hover names each label in full
        assert all(f"label: {A.LABEL_NAMES[x]}" in text for text, x in zip(hover_row, label_row))
    assert all(A.LABEL_NAMES[name] in fig.layout.title.text for name in A.DETECTORS[kind])
    assert_valid_plotly(fig)


@pytest.mark.parametrize("words", [False, True])
def test_rollout_figure_is_raw_mean_beside_rollout(trace, words):
    layer = 1
    fig = F.rollout_figure(trace, layer, words=words)
    raw, rolled = fig.data
    expected_raw = trace.attention["encoder_self"][layer].mean(axis=0)
    expected_rollout = A.attention_rollout(trace.attention["encoder_self"])[layer]
    labels = tick_labels(trace.source_tokens)
    if words:
        expected_raw, words_q, _ = A.word_level(expected_raw, trace.source_tokens, trace.source_tokens)
        expected_rollout = A.word_level(expected_rollout, trace.source_tokens, trace.source_tokens)[0]
        labels = [esc(w) for w in words_q]
        assert len(labels) < len(trace.source_tokens) and "dog" in labels
    np.testing.assert_allclose(raw.z, expected_raw, atol=1e-6)
    np.testing.assert_allclose(rolled.z, expected_rollout, atol=1e-6)
    np.testing.assert_allclose(np.asarray(rolled.z).sum(axis=1), 1.0, atol=1e-5)
    for name in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert list(fig.layout[name].ticktext) == labels
    assert "query" in fig.layout.yaxis.title.text and "key" in fig.layout.xaxis.title.text
    assert "query" in fig.layout.yaxis2.title.text and "key" in fig.layout.xaxis2.title.text
    assert [a.text for a in fig.layout.annotations][1] == "Rollout · Layers 0–1 · ½ attention + ½ residual"
    assert raw.coloraxis == rolled.coloraxis == "coloraxis"
    # Another residual share: plotted, and named in the title.
    other = F.rollout_figure(trace, layer, words=words, residual=0.3)
    assert [a.text for a in other.layout.annotations][1] == "Rollout · Layers 0–1 · 0.7 attention + 0.3 residual"
    assert not np.allclose(other.data[1].z, rolled.z)
    assert_valid_plotly(fig)
    with pytest.raises(ValueError):
        F.rollout_figure(trace, trace.n_layers)


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_word_attention_figure(trace, kind):
    fig = F.word_attention_figure(trace, kind, 0, 1)
    queries, keys = F.attention_axes(trace, kind)
    expected, query_words, key_words = A.word_level(trace.attention[kind][0, 1], queries, keys)
    np.testing.assert_allclose(fig.data[0].z, expected, atol=1e-6)
    np.testing.assert_allclose(np.asarray(fig.data[0].z).sum(axis=1), 1.0, atol=1e-5)
    assert list(fig.layout.xaxis.ticktext) == [esc(w) for w in key_words]
    assert list(fig.layout.yaxis.ticktext) == [esc(w) for w in query_words]
    assert "word" in fig.layout.xaxis.title.text and "word" in fig.layout.yaxis.title.text
    assert "Layer 0" in fig.layout.title.text and "Head 1" in fig.layout.title.text
    assert_valid_plotly(fig)


def test_user_text_is_escaped_in_the_figure_json(evil_trace, beam_trace):
    evil_sink = evil_trace.attention["encoder_self"].copy()
    evil_sink[0, 0] = 0
    evil_sink[0, 0, :, 1] = 1  # head 0 stares at the payload: its hover names the sink key
    sunk = dataclasses.replace(evil_trace, attention=dict(evil_trace.attention, encoder_self=evil_sink))
    figs = [
        F.head_summary_figure(sunk, "encoder_self"),
        F.rollout_figure(evil_trace),
        F.rollout_figure(evil_trace, words=True),
        F.word_attention_figure(evil_trace, "cross", 0, "mean"),
        F.beam_tree_figure(beam_trace, id_to_token={beam_trace.target_ids[0]: EVIL}),
    ]
    for fig in figs:
        assert not any("<img" in s for s in strings(fig.to_plotly_json()))
        assert EVIL_ESCAPED in F.figure_json(fig)
    assert EVIL_ESCAPED in figs[0].data[0].hovertext[0][0]
    assert figs[1].layout.xaxis.ticktext[1] == "·" + EVIL_ESCAPED  # a piece that continues a word


def marker_groups(fig):
    return {t.name: t for t in fig.data if t.mode == "markers+text" and t.name != "start"}


def test_beam_tree_greys_pruned_highlights_the_chosen_path_and_carries_node_ids(beam_trace):
    tree = beam_trace.beam_tree
    fig = F.beam_tree_figure(beam_trace)
    groups = marker_groups(fig)
    pruned, kept, chosen = groups["pruned"], groups["kept in the beam"], groups["chosen translation"]
    assert pruned.marker.color == MASKED_GREY and chosen.marker.color == HIGHLIGHT
    assert kept.marker.color not in (MASKED_GREY, HIGHLIGHT)
    ids = [i for g in (pruned, kept, chosen) for i in g.customdata]
    assert sorted(ids) == list(range(len(tree)))  # every node once, named by its index in trace.beam_tree
    assert list(pruned.customdata) == [i for i, n in enumerate(tree) if not n["kept"]]
    assert [tree[i]["id"] for i in chosen.customdata] == beam_trace.target_ids  # the chosen path, in order
    assert A.beam_node_prefix(tree, chosen.customdata[-1]) == (beam_trace.target_ids, len(beam_trace.target_ids) - 1)
    for group in (pruned, kept, chosen):
        for x, node, hover in zip(group.x, group.customdata, group.hovertext):
            assert x == tree[node]["step"]
            assert f"node {node} · step {tree[node]['step']}" in hover
            assert f"log P(hypothesis) = {tree[node]['log_prob']:.3f}" in hover
            assert ("pruned" in hover) == (not tree[node]["kept"])
    edges = {t.name: t for t in fig.data if t.mode == "lines"}
    assert edges["pruned edges"].line.color == MASKED_GREY and edges["chosen edges"].line.color == HIGHLIGHT
    assert list(edges["chosen edges"].x).count(None) == len(beam_trace.target_ids)  # one edge per chosen node
    assert_valid_plotly(fig)


@pytest.mark.parametrize(
    "build",
    [
        lambda t, b, p: F.head_summary_figure(t, "cross", presentation=p),
        lambda t, b, p: F.rollout_figure(t, presentation=p),
        lambda t, b, p: F.word_attention_figure(t, "decoder_self", 1, "mean", presentation=p),
        lambda t, b, p: F.beam_tree_figure(b, presentation=p),
    ],
)
def test_presentation_mode(trace, beam_trace, build):
    light, slides = build(trace, beam_trace, False), build(trace, beam_trace, True)
    assert light.layout.font.size == 12 and slides.layout.font.size == 20
    assert slides.layout.paper_bgcolor == "white" and slides.layout.plot_bgcolor == "white"
    assert slides.layout.title.font.size > light.layout.title.font.size
    assert len(slides.to_json()) < 200_000
    assert_valid_plotly(slides)
