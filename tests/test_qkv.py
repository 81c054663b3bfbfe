"""One query, real numbers: the panel's numbers are the hooks' (hook_pattern, hook_z) and what the weights give.

Both presets (pre-LN seed000, post-LN seed004) on the tiny models; every attention kind; the recompute starts from
the residual stream before the sublayer and goes through the layer's LayerNorm, W_Q, W_K, W_V and W_O by hand.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from tests.tiny import SENTENCES, tiny_translator
from transformer_viz import figures
from transformer_viz.figures.qkv_numbers import query_numbers, strongest_source
from transformer_viz.model.hooks import Tracer
from transformer_viz.trace import ATTENTION_KINDS, Trace, encoder_residual_points

PRESETS = ("seed000", "seed004")
SENTENCE = SENTENCES[7][0]


@pytest.fixture(scope="module", params=PRESETS)
def recorded(request):
    translator = tiny_translator(request.param)
    return translator, translator.trace(SENTENCE, max_new_tokens=6)


def modules(model, kind: str, layer: int):
    """(attention, its sublayer) of one kind and layer."""
    if kind == "encoder_self":
        block = model.encoder.layers[layer]
        return block.self_attn, block.self_attn_sublayer
    block = model.decoder.layers[layer]
    return (
        (block.cross_attn, block.cross_attn_sublayer)
        if kind == "cross"
        else (block.self_attn, block.self_attn_sublayer)
    )


def by_hand(translator, trace: Trace, kind: str, layer: int, head: int, query: int) -> dict:
    """The query's numbers from the weights, starting from the recorded residual stream before the sublayer."""
    model, cfg = translator.model, translator.config
    attn, sub = modules(model, kind, layer)
    stream = torch.from_numpy(
        trace.encoder_residual[2 * layer] if kind == "encoder_self" else trace.residual[3 * layer + (kind == "cross")]
    )
    with torch.no_grad():
        x = sub.norm(stream) if cfg.norm_first else stream  # (Tq, D): what W_Q reads
        if kind == "cross":
            source = model.encode(torch.tensor([trace.source_ids]))[0]  # the memory
        else:
            source = x
        rows = slice(head * cfg.d_head, (head + 1) * cfg.d_head)
        q = attn.w_q(x)[query, rows]
        k, v = attn.w_k(source)[:, rows], attn.w_v(source)[:, rows]
        scaled = k @ q / math.sqrt(cfg.d_head)
        keep = torch.ones(len(scaled), dtype=torch.bool)
        if kind == "decoder_self":
            keep = torch.arange(len(scaled)) <= query  # the causal mask
        weights = torch.softmax(scaled.masked_fill(~keep, -torch.inf), dim=-1)
        heads = []
        for h in range(cfg.n_heads):
            cols = slice(h * cfg.d_head, (h + 1) * cfg.d_head)
            qh, kh, vh = attn.w_q(x)[query, cols], attn.w_k(source)[:, cols], attn.w_v(source)[:, cols]
            score = (kh @ qh / math.sqrt(cfg.d_head)).masked_fill(~keep, -torch.inf)
            heads.append(torch.softmax(score, dim=-1) @ vh)
        out = attn.w_o(torch.cat(heads))
        total = stream[query] + out
        after = total if cfg.norm_first else sub.norm(total)
    return dict(
        x=x[query], q=q, k=k, v=v, scaled=scaled, mask=keep, weights=weights, z=weights @ v, out=out, after=after
    )


@pytest.mark.parametrize("kind", ATTENTION_KINDS)
def test_the_numbers_are_the_hooks_and_the_weights(recorded, kind):
    translator, trace = recorded
    layer, head, query = 1, 2, 3
    n = query_numbers(trace, kind, layer, head, query)
    # the hooks: hook_pattern and hook_z as the translation recorded them, for this model's own forward pass
    stack = "encoder" if kind == "encoder_self" else "decoder"
    attn = "cross_attn" if kind == "cross" else "self_attn"
    src = torch.tensor([trace.source_ids])
    names = [f"{stack}.layers.{layer}.{attn}.hook_{hook}" for hook in ("pattern", "z")]
    with torch.no_grad(), Tracer(translator.model, names) as tracer:
        translator.model(src, torch.tensor([[translator.config.bos_id] + trace.target_ids[:-1]]))
    np.testing.assert_allclose(n.weights, tracer[names[0]][0, head, query].numpy(), atol=1e-5)
    np.testing.assert_allclose(n.z, tracer[names[1]][0, head, query].numpy(), atol=1e-5)
    # the softmax of the panel's own scores under its mask is the panel's weights, and Σ α v its z
    kept = np.where(n.mask, n.scaled, -np.inf)
    np.testing.assert_allclose(np.exp(kept - kept.max()) / np.exp(kept - kept.max()).sum(), n.weights, atol=1e-5)
    np.testing.assert_allclose(n.weights @ n.v, n.z, atol=1e-5)
    np.testing.assert_allclose(n.heads.reshape(-1)[head * n.d_head : (head + 1) * n.d_head], n.z)
    # the weights: every number again from W_Q, W_K, W_V, W_O and the LayerNorm
    want = by_hand(translator, trace, kind, layer, head, query)
    for name in ("x", "q", "k", "v", "scaled", "weights", "z", "out", "after"):
        np.testing.assert_allclose(getattr(n, name), want[name].numpy(), atol=2e-5, err_msg=name)
    np.testing.assert_array_equal(n.mask, want["mask"].numpy())
    np.testing.assert_allclose(n.dots, n.scaled * math.sqrt(n.d_head), atol=1e-6)
    assert n.pre_ln == (translator.config.norm_first)
    if n.pre_ln:  # the residual add itself; post-LN normalises it (checked against the norm above)
        np.testing.assert_allclose(n.before + n.out, n.after, atol=1e-5)


def test_the_new_trace_fields_round_trip(recorded):
    _, trace = recorded
    again = Trace.from_dict(json.loads(trace.to_json()))
    L, S = trace.n_layers, len(trace.source_ids)
    assert again.encoder_residual.shape == (len(encoder_residual_points(L)), S, trace.residual.shape[-1])
    np.testing.assert_allclose(again.encoder_residual, trace.encoder_residual, atol=1e-6)
    for kind in ATTENTION_KINDS:
        for name in ("input", "output"):
            np.testing.assert_allclose(again.sublayers[kind][name], trace.sublayers[kind][name], atol=1e-6)
    old = {k: v for k, v in trace.to_dict().items() if k not in ("sublayers", "encoder_residual")}
    with pytest.raises(ValueError, match="record it again"):
        query_numbers(Trace.from_dict(old), "cross", 0, 0, 0)


def test_the_figures_show_the_numbers_and_are_named(recorded):
    _, trace = recorded
    n = query_numbers(trace, "cross", 1, 3, 2)
    fig = figures.qkv_figure(trace, "cross", 1, 3, 2)
    go.Figure(fig.to_dict())  # valid Plotly
    assert figures.download_name_of(fig) == "qkv_cross_L1-H3_step-2"
    assert (
        "Layer 1" in fig.layout.title.text and "Head 3" in fig.layout.title.text and "step 2" in fig.layout.title.text
    )
    keys = next(trace for trace in fig.data if trace.name == "K: a column per key")
    np.testing.assert_allclose(np.asarray(keys.z), n.k.T, atol=1e-6)
    assert np.asarray(keys.customdata)[0].tolist() == list(range(len(n.key_tokens)))  # a click names the key
    scores = next(trace for trace in fig.data if trace.name == "scores")
    np.testing.assert_allclose(np.asarray(scores.z)[1], n.scaled, atol=1e-6)
    assert [trace.name for trace in fig.data].count("residual before") == 1
    product = figures.qk_product(trace, "cross", 1, 3, 2, key=1, presentation=True)
    go.Figure(product.to_dict())
    assert figures.download_name_of(product) == "qkv-key_cross_L1-H3_step-2_key-1"
    np.testing.assert_allclose(np.asarray(product.data[2].z)[:, 0], n.q * n.k[1], atol=1e-6)
    assert f"{n.dots[1]:.4f}" in product.layout.title.text
    enc = figures.qkv_figure(trace, "encoder_self", 0, 1, 4, presentation=True)
    assert figures.download_name_of(enc) == "qkv_encoder-self_L0-H1_source-4"
    with figures.language("ko"):
        assert "쿼리 하나를 숫자로" in figures.qkv_figure(trace, "decoder_self", 0, 0, 1).layout.title.text
    with pytest.raises(ValueError, match="key must be"):
        figures.qk_product(trace, "cross", 0, 0, 0, key=len(n.key_tokens))
    with pytest.raises(ValueError, match="query must be"):
        figures.qkv_figure(trace, "cross", 0, 0, len(trace.target_ids))


def test_the_tab_shows_the_pages_step_and_the_encoders_query(recorded):
    """Decoder kinds show the page's step; encoder self-attention the step's strongest source token or one picked."""
    from transformer_viz.app.tabs import beyond_qkv

    _, trace = recorded
    sess = SimpleNamespace(trace=trace)
    assert beyond_qkv.chosen(sess, "decoder self", "auto", 2, 1, "3") == ("decoder_self", 1, 3, 2)
    assert beyond_qkv.chosen(sess, "cross", "0", 99, 0, "mean") == ("cross", 0, 0, len(trace.target_ids) - 1)
    strongest = int(np.argmax(trace.attention["cross"][1, 2, 3]))
    assert strongest_source(trace, 1, 2, 3) == strongest
    assert beyond_qkv.chosen(sess, "encoder self", "auto", 3, 1, "2") == ("encoder_self", 1, 2, strongest)
    assert beyond_qkv.chosen(sess, "encoder self", "4", 3, 1, "2") == ("encoder_self", 1, 2, 4)
    view, product, menu = beyond_qkv.draw("ja", sess, "encoder self", "4", 3, 1, "2", "screen", 1)
    assert view["visible"] and product["visible"] and menu["visible"]
    assert "ソース側のトークン 4" in json.loads(view["value"].plot)["layout"]["title"]["text"]
    view, product, menu = beyond_qkv.draw("en", sess, "cross", "auto", 3, 1, "2", "screen", None)
    assert view["visible"] and not product["visible"] and not menu["visible"]
