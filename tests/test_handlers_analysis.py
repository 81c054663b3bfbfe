"""Handlers behind the head-summary, rollout and beam-search views: plain functions on tiny random models."""

from __future__ import annotations

import dataclasses
import html
import math

import numpy as np
import pytest

from tests.tiny import MARKUP, shown, tiny_translator
from transformer_viz.app import handlers as h
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.figures import esc
from transformer_viz.figures.style import piece_label
from transformer_viz.lab import analysis

SENTENCE = "I see the house."
BEAM = dict(strategy="beam", beam_size=3, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_new_tokens=6)


@pytest.fixture(autouse=True)
def _tiny(empty_registry):
    """The tiny seed000 model, alone in the registry as "tiny"."""
    models.register_translator("tiny", tiny_translator("seed000", max_len=24))


@pytest.fixture
def beam_session():
    return sessions.translate(SENTENCE, "tiny", sessions.decode_options(*BEAM.values()))


def test_analysis_figures_label_every_head_and_token(beam_session):
    trace = beam_session.trace
    figs = h.analysis_figures(trace, layer=1, presentation=False)
    assert set(figs) == {
        "plot-heads-cross",
        "plot-heads-dec-self",
        "plot-heads-enc-self",
        "plot-rollout",
        "plot-rollout-words",
        "plot-words-cross",
        "plot-beam",
    }
    for key, kind in (
        ("plot-heads-cross", "cross"),
        ("plot-heads-dec-self", "decoder_self"),
        ("plot-heads-enc-self", "encoder_self"),
    ):
        cells = figs[key].data[0]
        summary = analysis.head_summary(trace, kind)
        assert np.asarray(cells.z).shape == (trace.n_layers, trace.n_heads)
        np.testing.assert_allclose(np.asarray(cells.z, dtype=float), summary.confidence, atol=1e-6)
    rollout = figs["plot-rollout"].layout.to_plotly_json()
    assert [esc(piece_label(t)) for t in trace.source_tokens] in [
        list(rollout[k]["ticktext"]) for k in rollout if k.startswith(("xaxis", "yaxis")) and rollout[k].get("ticktext")
    ]


def test_every_beam_node_reopens_with_its_own_tokens_and_probability(beam_session):
    tree = beam_session.trace.beam_tree
    assert len(tree) > BEAM["beam_size"]  # the tree holds pruned nodes too, not only the answer
    for node in range(0, len(tree), max(1, len(tree) // 6)):
        trace, step = h.beam_node_trace(beam_session, node)
        path, current = [], node
        while current != -1:  # walk the parents by hand
            path.append(tree[current]["id"])
            current = tree[current]["parent"]
        assert trace.target_ids[: step + 1] == path[::-1] and step == tree[node]["step"]
        # The forced trace is the same hypothesis: its log-probability equals the node's total.
        total = sum(math.log(s["prob"]) for s in trace.steps[: step + 1])
        assert total == pytest.approx(tree[node]["log_prob"], abs=1e-3)
        assert trace.attention["cross"].shape[2] > step  # a query row exists for the node's token


@pytest.mark.parametrize("lang", ["en", "ja", "ko"])
def test_beam_node_info_shows_the_tokens_as_written_in_bold(beam_session, lang):
    tree = beam_session.trace.beam_tree
    node = max(range(len(tree)), key=lambda n: tree[n]["step"])
    trace, step = h.beam_node_trace(beam_session, node)
    assert step >= 2
    tokens = MARKUP[
        -step - 1 :
    ]  # pieces that read as markup; the last ends in punctuation, which Korean's bold must survive
    trace = dataclasses.replace(trace, target_tokens=tokens + trace.target_tokens[step + 1 :])
    rendered, text = shown(h.beam_node_info(trace, node, step, lang))
    written = " ".join(piece_label(token) for token in tokens)  # as the axes show pieces: "·" continues a word
    assert f"<strong>{html.escape(written, quote=False)}</strong>" in rendered
    assert written in text and "<em>" not in rendered and "<img" not in rendered


def test_beam_node_rejects_nodes_outside_the_tree(beam_session):
    with pytest.raises(ValueError, match="beam_tree index"):
        h.beam_node_trace(beam_session, len(beam_session.trace.beam_tree))


@pytest.mark.parametrize(
    "value, fields, expected",
    [
        ("cross 1 2 (1732000)", 3, ["cross", "1", "2"]),
        ("7 (1732000)", 1, ["7"]),
    ],
)
def test_parse_click(value, fields, expected):
    assert h.parse_click(value, fields) == expected


def test_parse_click_refuses_a_short_value():
    with pytest.raises(ValueError):
        h.parse_click("cross 1", 3)
