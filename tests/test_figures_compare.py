"""Comparison figures draw exactly the comparison's numbers, label tokens on both sides and show user text literally."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import transformer_viz.figures as F
from tests.plots import assert_valid_plotly, axes_of, heatmaps, strings
from tests.plots import tick_labels as labels
from tests.tiny import EVIL, EVIL_ESCAPED, with_evil_tokens
from transformer_viz.decoding import DecodeOptions
from transformer_viz.figures.labels import min_font
from transformer_viz.figures.style import esc, piece_label, style
from transformer_viz.lab.compare import compare
from transformer_viz.probes.interventions import Intervention

SENTENCE = "the dog sees the dog."


@pytest.fixture(scope="module")
def comparison(translator):
    return compare(translator, SENTENCE, Intervention(bug="target_padding_unmasked"), DecodeOptions(max_new_tokens=6))


@pytest.fixture(scope="module")
def ablated(translator):
    return compare(
        translator, SENTENCE, Intervention(ablate=[("cross", 0, h) for h in range(4)]), DecodeOptions(max_new_tokens=6)
    )


def test_probability_change_bars_are_the_steps_probabilities(ablated):
    fig = F.probability_change(ablated.forced_original, ablated.forced_changed)
    original, changed, delta = fig.data
    p0 = [s["prob"] for s in ablated.forced_original.steps]
    p1 = [s["prob"] for s in ablated.forced_changed.steps]
    np.testing.assert_allclose(original.y, p0)
    np.testing.assert_allclose(changed.y, p1)
    np.testing.assert_allclose(delta.y, ablated.prob_change)
    assert original.x == changed.x == delta.x == tuple(range(len(p0)))
    tokens = labels(ablated.forced_original.target_tokens)
    assert list(fig.layout.xaxis2.ticktext) == tokens and list(fig.layout.xaxis2.tickvals) == list(range(len(p0)))
    assert fig.layout.xaxis2.title.text and fig.layout.yaxis.title.text == "probability"
    # losses and gains in different colours; the Δ axis covers every bar
    assert len(set(delta.marker.color)) == len({d >= 0 for d in ablated.prob_change})
    assert max(abs(d) for d in ablated.prob_change) <= fig.layout.yaxis2.range[1]
    assert_valid_plotly(fig)


def test_probability_change_needs_the_same_target(ablated):
    with pytest.raises(ValueError, match="same target"):
        F.probability_change(
            ablated.forced_original,
            dataclasses.replace(ablated.forced_changed, target_ids=ablated.forced_changed.target_ids[:-1]),
        )


def test_side_by_side_panels_are_the_two_heads_on_one_scale(translator, ablated):
    # free-running traces of different lengths: each panel keeps its own tokens
    shorter = translator.trace(SENTENCE, max_new_tokens=3)
    for kind in ("encoder_self", "decoder_self", "cross"):
        fig = F.attention_side_by_side(ablated.original, shorter, kind, 1, 2, labels=("before", "after"))
        left, right = heatmaps(fig)
        np.testing.assert_allclose(left.z, F.head_matrix(ablated.original, kind, 1, 2))
        np.testing.assert_allclose(right.z, F.head_matrix(shorter, kind, 1, 2))
        assert left.coloraxis == right.coloraxis == "coloraxis"
        assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
        for panel, trace in ((left, ablated.original), (right, shorter)):
            queries, keys = F.attention_axes(trace, kind)
            x, y = axes_of(fig, panel)
            assert list(x.ticktext) == labels(keys) and list(y.ticktext) == labels(queries)
            assert np.asarray(panel.z).shape == (len(queries), len(keys)) and y.autorange == "reversed"
        assert [a.text for a in fig.layout.annotations] == ["before", "after"]
        assert "Layer 1" in fig.layout.title.text and "Head 2" in fig.layout.title.text
        assert "query" in axes_of(fig, left)[1].title.text and "key" in axes_of(fig, left)[0].title.text
        edges = [s for s in fig.layout.shapes if s.type == "path"]
        assert len(edges) == (2 if kind == "decoder_self" else 0)  # the causal edge only where a causal mask is
        assert_valid_plotly(fig)


def test_side_by_side_of_the_head_mean(ablated):
    fig = F.attention_side_by_side(
        ablated.forced_original, ablated.forced_changed, "cross", 1, "mean", presentation=True
    )
    left, right = heatmaps(fig)
    np.testing.assert_allclose(right.z, ablated.forced_changed.attention["cross"][1].mean(axis=0), atol=1e-6)
    assert not np.allclose(left.z, right.z, atol=1e-4)  # zeroing layer 0's cross heads moves layer 1's queries
    assert (
        fig.layout.font.size
        > F.attention_side_by_side(ablated.original, ablated.changed, "cross", 0, 0).layout.font.size
    )


@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize("sentence", ["I see the house.", "the dog sees the dog.", "I see the dog and the house."])
def test_side_by_side_key_labels_stay_readable(translator, sentence, presentation):
    """A sentence of 11, 15 or 20 pieces: every key is labelled in at least the look's smallest label font (8 px on
    screen, 14 on a slide), side by side where they fit so, else with the maps one above the other."""
    trace = translator.trace(sentence, max_new_tokens=6)
    assert 10 <= len(trace.source_tokens) <= 20
    least = min_font(style(presentation).font_size)
    for kind in ("cross", "encoder_self"):  # the source's pieces as keys
        fig = F.attention_side_by_side(trace, trace, kind, 0, 0, presentation=presentation)
        for x in (fig.layout.xaxis, fig.layout.xaxis2):
            assert list(x.ticktext) == labels(trace.source_tokens)
            assert (x.tickfont.size or fig.layout.font.size) >= least, (len(trace.source_tokens), x.tickfont.size)
        assert_valid_plotly(fig)


def test_side_by_side_maps_stand_one_above_the_other_when_their_keys_need_the_width():
    """Keys that fit side by side stay so; too many for half the width put the maps one above the other, each
    across the whole width, the lower one's title under the upper one's key labels."""
    queries = [f"▁q{i}" for i in range(8)]

    def pair(n_keys: int, presentation: bool):
        keys = [f"▁k{i}" for i in range(n_keys)]
        panels = [(np.zeros((8, n_keys)), queries, keys, name) for name in ("a", "b")]
        return F.attention_pair(panels, "cross", "t", presentation=presentation)

    for presentation in (False, True):
        side, stacked = pair(12, presentation).layout, pair(40 if presentation else 80, presentation).layout
        assert side.yaxis.domain == side.yaxis2.domain and side.xaxis.domain[1] < side.xaxis2.domain[0]
        assert stacked.xaxis.domain == stacked.xaxis2.domain == (0, 1)
        assert stacked.yaxis2.domain[1] < stacked.yaxis.domain[0]  # the second map below the first
        assert stacked.yaxis.title.text and stacked.yaxis2.title.text  # each map names its rows
        assert stacked.height > side.height


def test_padding_figure_shows_the_pad_keys(comparison):
    c = comparison
    fig = F.padding_side_by_side(
        c.padded_original, c.padded_changed, c.original.target_tokens, c.padded_keys, c.left_pad, 1, 3
    )
    left, right = heatmaps(fig)
    np.testing.assert_allclose(left.z, c.padded_original[1, 3])
    np.testing.assert_allclose(right.z, c.padded_changed[1, 3])
    x, _ = axes_of(fig, right)
    assert list(x.ticktext[:4]) == ["&lt;pad&gt;"] * 3 + ["&lt;s&gt;"]
    framed = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(framed) == 2 and all((s.x0, s.x1) == (-0.5, 2.5) for s in framed)
    most = float(c.padded_changed[1, 3][:, :3].sum(-1).max())
    assert f"0% vs {most:.0%}" in fig.layout.title.text
    edge = [s for s in fig.layout.shapes if s.type == "path"][0]
    assert edge.path.startswith("M 3.5 -0.5")  # the first real query sees the 3 pads and <s>
    assert_valid_plotly(fig)
    with pytest.raises(ValueError, match="layer must be in 0..1 and head in 0..3"):
        F.padding_side_by_side(c.padded_original, c.padded_changed, c.original.target_tokens, c.padded_keys, 3, 0, 4)


def test_attention_pair_refuses_mismatched_labels():
    with pytest.raises(ValueError, match="do not match 2 queries × 3 keys"):
        F.attention_pair([(np.zeros((2, 2)), ["a", "b"], ["a", "b", "c"], "left")], "cross", "t")
    with pytest.raises(ValueError, match="kind must be one of"):
        F.attention_pair([(np.zeros((1, 1)), ["a"], ["a"], "left")], "decoder", "t")


def test_user_text_is_escaped(ablated):
    original, changed = with_evil_tokens(ablated.forced_original), with_evil_tokens(ablated.forced_changed)
    figs = [
        F.probability_change(original, changed, labels=(EVIL, "b")),
        F.attention_side_by_side(original, changed, "cross", 0, 0, labels=(EVIL, "b")),
        F.attention_pair([(np.eye(2), [EVIL, "x"], ["y", EVIL], EVIL)], "encoder_self", "t"),
    ]
    for fig in figs:
        found = list(strings(fig.to_plotly_json()))
        assert not any("<img" in s for s in found)
        assert any(EVIL_ESCAPED in s for s in found)
    bars = figs[0]
    assert bars.layout.xaxis2.ticktext[0] == esc(piece_label(EVIL))
    assert "changed model's first choice: ·&lt;img" in bars.data[0].hovertext[0]  # a piece as the axes show it
