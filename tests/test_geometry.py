"""Query–key geometry (the PCA plane of one head) and nearest pieces in the shared embedding, recomputed here."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tests.tiny import tiny_translator
from transformer_viz.figures import geometry as G
from transformer_viz.figures.style import esc, piece_label
from transformer_viz.lab import geometry as lab_geometry
from transformer_viz.trace import ATTENTION_KINDS


@pytest.mark.parametrize("kind", ATTENTION_KINDS)
def test_the_plane_is_the_centred_vectors_times_the_top_two_right_singular_vectors(trace, kind):
    q, k = trace.vectors[kind]["q"][1, 2], trace.vectors[kind]["k"][1, 2]
    plane = lab_geometry.query_key_plane(trace, kind, 1, 2)
    both = np.concatenate([q, k]).astype(np.float64)
    centred = both - both.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred)
    for i in range(2):  # the same axes as numpy's own SVD, up to the sign a singular vector may take
        assert abs(plane.components[i] @ vt[i]) == pytest.approx(1.0, abs=1e-6)
    assert np.allclose(plane.queries, centred[: len(q)] @ plane.components.T, atol=1e-6)
    assert np.allclose(plane.keys, centred[len(q) :] @ plane.components.T, atol=1e-6)
    assert np.allclose(plane.explained, singular[:2] ** 2 / (singular**2).sum())
    assert plane.explained[0] >= plane.explained[1] > 0
    again = lab_geometry.query_key_plane(trace, kind, 1, 2)
    assert np.array_equal(again.queries, plane.queries)  # the signs are fixed, not left to chance


@pytest.mark.parametrize("kind", ATTENTION_KINDS)
def test_each_querys_line_ends_at_the_key_its_pattern_weights_most(trace, kind):
    pattern = trace.attention[kind][0, 1]  # (Q, K)
    plane = lab_geometry.query_key_plane(trace, kind, 0, 1)
    assert list(plane.strongest) == [int(np.argmax(row)) for row in pattern]
    fig = G.query_key_figure(trace, kind, 0, 1)
    lines = next(d for d in fig.data if d.mode == "lines")
    xs, ys = list(lines.x), list(lines.y)
    for q, key in enumerate(pattern.argmax(axis=1)):
        start, end = 3 * q, 3 * q + 1
        assert (xs[start], ys[start]) == pytest.approx(tuple(plane.queries[q]))
        assert (xs[end], ys[end]) == pytest.approx(tuple(plane.keys[key]))
        assert xs[3 * q + 2] is None
    queries = next(d for d in fig.data if d.name == "queries")
    keys = next(d for d in fig.data if d.name == "keys")
    query_tokens, key_tokens = lab_geometry.axes_tokens(trace, kind)
    assert list(queries.text) == [esc(piece_label(t)) for t in query_tokens]
    assert list(keys.text) == [esc(piece_label(t)) for t in key_tokens]
    assert "layer 0" in fig.layout.title.text and "Head 1" in fig.layout.title.text


def test_the_plane_refuses_a_head_the_trace_lacks(trace):
    with pytest.raises(ValueError, match="head in 0..3"):
        lab_geometry.query_key_plane(trace, "cross", 0, 4)
    with pytest.raises(ValueError, match="kind"):
        lab_geometry.query_key_plane(trace, "both", 0, 0)


@pytest.fixture(scope="module")
def shared():
    """A tiny model with one embedding matrix for both languages and the output, as both presets train."""
    return tiny_translator("seed000", share_embeddings=True, tie_embeddings=True)


def test_neighbours_are_the_highest_cosines_recomputed_from_the_embedding(shared):
    translator, trace = shared, shared.trace("the dog sees the dog.", max_new_tokens=6)
    found = lab_geometry.nearest(translator, trace.source_ids, k=5)
    weight = translator.model.encoder.embed.lookup.weight.detach()
    tok = translator.tokenizer
    assert translator.model.decoder.embed is translator.model.encoder.embed  # one matrix for both languages
    assert found.tokens == [p for p in trace.source_tokens if p != "</s>"]
    for r, position in enumerate(found.positions):
        i = trace.source_ids[position]
        cos = torch.nn.functional.cosine_similarity(weight[i][None], weight, dim=-1)
        for j in range(weight.shape[0]):
            if j == i or tok.id_to_piece(j) in ("<pad>", "<s>", "</s>", "<unk>"):
                cos[j] = -2
        best = torch.topk(cos, 5).indices.tolist()
        assert found.ids[r].tolist() == best
        assert np.allclose(found.cosines[r], cos[best].numpy(), atol=1e-6)
        assert found.pieces[r] == [tok.id_to_piece(j) for j in best]
    assert all(np.all(np.diff(row) <= 1e-12) for row in found.cosines)  # nearest first


def test_without_a_shared_matrix_the_neighbours_are_target_pieces(translator, trace):
    source, target = lab_geometry.unit_embeddings(translator)
    assert translator.model.decoder.embed is not translator.model.encoder.embed
    expected = translator.model.decoder.embed.lookup.weight.detach().numpy()
    row = 7
    assert np.allclose(target[row], expected[row] / np.linalg.norm(expected[row]), atol=1e-6)
    assert not np.allclose(source[row], target[row])


def test_the_neighbours_figure_shows_each_piece_and_its_cosine(translator, trace):
    found = lab_geometry.nearest(translator, trace.source_ids)
    for presentation in (False, True):
        fig = G.neighbours_figure(found, presentation=presentation)
        cells = fig.data[0]
        assert np.allclose(np.asarray(cells.z), found.cosines, atol=1e-6)
        assert list(fig.layout.yaxis.ticktext) == [esc(piece_label(t)) for t in found.tokens]
        first = found.pieces[0][0]
        assert cells.text[0][0] == f"{esc(piece_label(first))}<br>{found.cosines[0][0]:.2f}"
    assert lab_geometry.unit_embeddings(translator) is lab_geometry.unit_embeddings(translator)  # once per model


def test_the_tab_draws_the_chosen_head_and_the_page_the_neighbours(empty_registry):
    from transformer_viz.app import handlers as h
    from transformer_viz.app import models
    from transformer_viz.app import session as sessions
    from transformer_viz.app.registry import PLOTS
    from transformer_viz.app.tabs import beyond_geometry as tab

    models.register_translator("tiny", tiny_translator("seed000"))
    sess = sessions.translate("I see the house.", "tiny", sessions.decode_options("greedy", 4, 1, 0, 1, 0, 6))
    box = tab.draw_plane("ja", sess, "decoder self", 1, "2", "screen")
    title = json.loads(box["value"].plot)["layout"]["title"]["text"]
    assert box["visible"] and "層 1" in title and "ヘッド 2" in title and "デコーダ" in title
    mean = json.loads(tab.draw_plane("en", sess, "cross", 0, "mean", "screen")["value"].plot)
    assert "Head 0" in mean["layout"]["title"]["text"]  # the mean has no queries of its own: head 0
    neighbours = next(p for p in PLOTS if p.id == "plot-neighbours")
    drawn = h.view_figures([neighbours], sess.trace)["plot-neighbours"]
    assert list(drawn.layout.yaxis.ticktext) == [esc(piece_label(t)) for t in sess.trace.source_tokens[:-1]]
    models.register_translator("tiny", tiny_translator("seed004"))  # another model now answers to the name
    assert h.view_figures([neighbours], sess.trace)["plot-neighbours"] is None
