"""Attention against torch's references; the seeds' attention bugs made impossible.

Seed 000: scores multiplied by √Dh (bug 1), the mask had no effect (bug 2).
Seed 004: one Dh×Dh projection shared by all heads (bug 1), scaled by √D instead of √Dh (bug 2).
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_viz.model.attention import KeyValueCache, MultiHeadAttention, attention
from transformer_viz.model.config import PRESETS
from transformer_viz.model.hooks import Tracer, name_hook_points

B, TQ, TK, D, H = 2, 5, 6, 32, 4
DH = D // H


def attention_module(tiny_config, preset: str = "seed000", **overrides) -> MultiHeadAttention:
    mha = MultiHeadAttention(tiny_config(preset, **overrides)).eval()
    name_hook_points(mha)  # standalone: hook names are "hook_pattern", "hook_z", ...
    return mha


def random_mask() -> torch.Tensor:
    """(B, 1, TQ, TK) with some keys hidden but at least one visible key per query."""
    mask = torch.rand(B, 1, TQ, TK) > 0.4
    mask[..., 0] = True
    return mask


def heads(x: torch.Tensor, linear: nn.Linear) -> torch.Tensor:
    """The test's own projection: x W^T + b split into H heads, (B, L, D) → (B, H, L, DH)."""
    y = x @ linear.weight.T + (0 if linear.bias is None else linear.bias)
    return y.view(x.shape[0], x.shape[1], H, DH).transpose(1, 2)


def softmax_pattern(q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor, scale: float) -> torch.Tensor:
    scores = (q @ k.transpose(-2, -1)) * scale
    return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)


def test_attention_equals_torch_scaled_dot_product_attention():
    q, k, v = torch.randn(B, H, TQ, DH), torch.randn(B, H, TK, DH), torch.randn(B, H, TK, DH)
    mask = random_mask()
    out, weights = attention(q, k, v, mask)
    # torch's boolean attn_mask has the same convention as ours: True = takes part in attention.
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), atol=1e-6)
    assert torch.allclose(weights, softmax_pattern(q, k, mask, 1 / math.sqrt(DH)), atol=1e-6)
    assert weights.shape == (B, H, TQ, TK)


def test_the_model_runs_the_attention_function_in_every_attention(tiny_model, batch, monkeypatch):
    """`attention()`, tested here, is what every attention of the model runs: at inference, traced and training."""
    from transformer_viz.model import attention as module

    model, calls = tiny_model("seed000").eval(), []
    expected = model(*batch)
    monkeypatch.setattr(module, "attention", lambda *args: calls.append(args[0].shape) or attention(*args))
    layers = model.config.n_layers
    assert torch.allclose(model(*batch), expected, atol=1e-6)
    assert len(calls) == 3 * layers  # encoder self, decoder self and cross in every layer
    calls.clear()
    with Tracer(model, names="*.hook_scores"):
        assert torch.allclose(model(*batch), expected, atol=1e-6)
    assert len(calls) == 3 * layers
    calls.clear()
    model.train()(*batch)  # (conftest's tiny models have no dropout)
    assert len(calls) == 3 * layers


def test_attention_scales_by_one_over_sqrt_d_head():
    q, k, v = 2 * torch.randn(B, H, TQ, DH), 2 * torch.randn(B, H, TK, DH), torch.randn(B, H, TK, DH)
    mask = torch.ones(1, 1, TQ, TK, dtype=torch.bool)
    _, weights = attention(q, k, v, mask)
    assert torch.allclose(weights, softmax_pattern(q, k, mask, DH**-0.5), atol=1e-6)
    assert not torch.allclose(weights, softmax_pattern(q, k, mask, DH**0.5), atol=1e-3)  # seed 000 bug 1


def test_attention_masked_keys_get_exactly_zero():
    q, k, v = torch.randn(B, H, TQ, DH), torch.randn(B, H, TK, DH), torch.randn(B, H, TK, DH)
    mask = random_mask()
    _, weights = attention(q, k, v, mask)
    assert (weights.masked_select(~mask.expand_as(weights)) == 0).all()
    # Values behind masked keys cannot leak into the output.
    key_mask = torch.tensor([True, True, False, True, False, False]).view(1, 1, 1, TK)
    out, _ = attention(q, k, v, key_mask)
    changed = v.clone()
    changed[..., ~key_mask.view(TK), :] = 100.0
    assert torch.allclose(attention(q, k, changed, key_mask)[0], out, atol=1e-6)


def test_attention_fully_masked_row_is_zeros_not_nan():
    q, k, v = torch.randn(1, H, TQ, DH), torch.randn(1, H, TK, DH), torch.randn(1, H, TK, DH)
    mask = torch.ones(1, 1, TQ, TK, dtype=torch.bool)
    mask[..., 2, :] = False
    out, weights = attention(q, k, v, mask)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    assert (weights[..., 2, :] == 0).all() and (out[..., 2, :] == 0).all()
    assert torch.allclose(weights[..., 1, :].sum(-1), torch.ones(1, H))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_multi_head_attention_equals_torch_multihead_attention(preset, tiny_config):
    mha = attention_module(tiny_config, preset)
    query, source, mask = torch.randn(B, TQ, D), torch.randn(B, TK, D), random_mask()
    reference = nn.MultiheadAttention(D, H, bias=mha.w_q.bias is not None, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([mha.w_q.weight, mha.w_k.weight, mha.w_v.weight]))
        reference.out_proj.weight.copy_(mha.w_o.weight)
        if mha.w_q.bias is not None:
            reference.in_proj_bias.copy_(torch.cat([mha.w_q.bias, mha.w_k.bias, mha.w_v.bias]))
            reference.out_proj.bias.copy_(mha.w_o.bias)
        # torch's boolean attn_mask means the opposite of ours: True = may NOT attend.
        torch_mask = (~mask).expand(B, H, TQ, TK).reshape(B * H, TQ, TK)
        expected, expected_weights = reference(
            query, source, source, attn_mask=torch_mask, need_weights=True, average_attn_weights=False
        )
        with Tracer(mha, names="hook_pattern") as tracer:
            out = mha(query, source, mask)
    assert torch.allclose(out, expected, atol=1e-5)
    assert torch.allclose(tracer["hook_pattern"], expected_weights, atol=1e-6)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_multi_head_attention_equals_functional_sdpa_per_head(preset, tiny_config):
    mha = attention_module(tiny_config, preset)
    query, source, mask = torch.randn(B, TQ, D), torch.randn(B, TK, D), random_mask()
    with torch.no_grad():
        q, k, v = heads(query, mha.w_q), heads(source, mha.w_k), heads(source, mha.w_v)
        z = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, TQ, DH)
        expected = mha.w_o(z.transpose(1, 2).reshape(B, TQ, D))
        with Tracer(mha, names=["hook_pattern", "hook_z"]) as tracer:
            out = mha(query, source, mask)
    assert torch.allclose(out, expected, atol=1e-5)
    assert torch.allclose(tracer["hook_z"], z, atol=1e-5)
    assert torch.allclose(tracer["hook_pattern"], softmax_pattern(q, k, mask, DH**-0.5), atol=1e-6)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_multi_head_attention_scale_is_one_over_sqrt_d_head(preset, tiny_config):
    """With D=32, H=4 the three candidate scales 1/√Dh, √Dh, 1/√D give clearly different patterns."""
    mha = attention_module(tiny_config, preset)
    query, source = 3 * torch.randn(B, TQ, D), 3 * torch.randn(B, TK, D)
    mask = torch.ones(B, 1, TQ, TK, dtype=torch.bool)
    with torch.no_grad(), Tracer(mha, names="hook_pattern") as tracer:
        mha(query, source, mask)
        q, k = heads(query, mha.w_q), heads(source, mha.w_k)
    pattern = tracer["hook_pattern"]
    right = softmax_pattern(q, k, mask, DH**-0.5)
    wrong = {"√Dh (seed 000 bug 1)": DH**0.5, "1/√D (seed 004 bug 2)": D**-0.5}
    for name, scale in wrong.items():
        assert (right - softmax_pattern(q, k, mask, scale)).abs().max() > 1e-2, f"test case does not separate {name}"
        assert not torch.allclose(pattern, softmax_pattern(q, k, mask, scale), atol=1e-3), name
    assert torch.allclose(pattern, right, atol=1e-6)


def test_multi_head_attention_mask_has_an_effect(tiny_config):
    mha = attention_module(tiny_config)
    query, source = torch.randn(B, TQ, D), torch.randn(B, TK, D)
    mask = torch.ones(B, 1, 1, TK, dtype=torch.bool)
    mask[0, ..., 3:] = False  # row 0: keys 3.. hidden from every query
    with torch.no_grad(), Tracer(mha, names=["hook_pattern", "hook_scores"]) as tracer:
        out = mha(query, source, mask)
        pattern, scores = tracer["hook_pattern"], tracer["hook_scores"]
        changed = source.clone()
        changed[0, 3:] = 100.0
        out_changed = mha(query, changed, mask)
    assert (pattern[0, :, :, 3:] == 0).all()  # seed 000 bug 2: exactly zero, not merely small
    assert (pattern[0, :, :, :3] > 0).all() and (pattern[1] > 0).all()
    assert (scores[0, :, :, 3:] == torch.finfo(scores.dtype).min).all()  # hook_scores is after masking
    assert torch.allclose(pattern.sum(-1), torch.ones(B, H, TQ), atol=1e-6)
    assert torch.allclose(out_changed, out, atol=1e-6)  # what hides behind a masked key never leaks


def test_multi_head_attention_fully_masked_row_is_zeros_not_nan(tiny_config):
    mha = attention_module(tiny_config, "seed004")
    mask = torch.ones(B, 1, TQ, TK, dtype=torch.bool)
    mask[1, :, 0, :] = False
    with torch.no_grad(), Tracer(mha, names=["hook_pattern", "hook_z"]) as tracer:
        out = mha(torch.randn(B, TQ, D), torch.randn(B, TK, D), mask)
    assert torch.isfinite(out).all()
    assert (tracer["hook_pattern"][1, :, 0] == 0).all() and (tracer["hook_z"][1, :, 0] == 0).all()


def test_masks_are_filled_alike_with_and_without_autograd(tiny_config):
    """Under inference mode and with autograd the same numbers, and the backward pass runs through the masks."""
    mha = attention_module(tiny_config)
    query, source, mask = torch.randn(B, TQ, D), torch.randn(B, TK, D), random_mask()
    mask[1, :, 2, :] = False  # and a fully masked row
    names = ["hook_scores", "hook_pattern", "hook_z"]
    with torch.inference_mode(), Tracer(mha, names=names) as plain:
        expected = mha(query, source, mask)
    source.requires_grad_(True)
    with Tracer(mha, names=names) as traced:
        out = mha(query, source, mask)
    out.sum().backward()
    assert torch.equal(out.detach(), expected)
    assert all(torch.equal(traced[name], plain[name]) for name in names)
    assert (plain["hook_pattern"].masked_select(~mask.expand(B, H, TQ, TK)) == 0).all()
    assert (plain["hook_scores"].masked_select(~mask.expand(B, H, TQ, TK)) == torch.finfo(torch.float32).min).all()
    assert torch.isfinite(source.grad).all() and source.grad.abs().sum() > 0


def test_multi_head_attention_pattern_is_captured_before_attention_dropout(tiny_config):
    mha = attention_module(tiny_config, dropout=0.5).train()
    with torch.no_grad(), Tracer(mha, names="hook_pattern") as tracer:
        mha(torch.randn(B, TQ, D), torch.randn(B, TK, D), torch.ones(1, 1, 1, TK, dtype=torch.bool))
    assert torch.allclose(tracer["hook_pattern"].sum(-1), torch.ones(B, H, TQ), atol=1e-6)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_projections_are_d_model_square(preset, tiny_config):
    mha = attention_module(tiny_config, preset)
    for linear in (mha.w_q, mha.w_k, mha.w_v, mha.w_o):
        assert isinstance(linear, nn.Linear) and linear.weight.shape == (D, D)
        assert (linear.bias is not None) == (preset == "seed004")
    # Seed 004 bug 1: no Dh×Dh matrix shared by all heads.
    assert all(p.shape != (DH, DH) for p in mha.parameters())


@pytest.mark.parametrize(("role", "head"), [("w_q", 0), ("w_k", 1), ("w_v", 2)])
def test_each_head_owns_its_slice_of_the_projection(role, head, tiny_config):
    """Changing the rows of W^Q/W^K/W^V that feed one head changes that head alone."""
    mha = attention_module(tiny_config)
    query, source, mask = torch.randn(B, TQ, D), torch.randn(B, TK, D), random_mask()

    def run():
        with torch.no_grad(), Tracer(mha, names=["hook_pattern", "hook_z"]) as tracer:
            mha(query, source, mask)
        return tracer["hook_pattern"], tracer["hook_z"]

    pattern, z = run()
    with torch.no_grad():
        rows = getattr(mha, role).weight[head * DH : (head + 1) * DH]
        rows.copy_(rows.flip(0) * 2 + 0.1)
    new_pattern, new_z = run()
    others = [h for h in range(H) if h != head]
    assert torch.allclose(new_pattern[:, others], pattern[:, others], atol=1e-7, rtol=0)
    assert torch.allclose(new_z[:, others], z[:, others], atol=1e-7, rtol=0)
    assert not torch.allclose(new_z[:, head], z[:, head], atol=1e-4)
    if role == "w_v":  # values do not change where a head looks, only what it brings back
        assert torch.equal(new_pattern, pattern)
    else:
        assert not torch.allclose(new_pattern[:, head], pattern[:, head], atol=1e-4)


def test_key_value_cache_holds_what_concatenation_would():
    chunks = [(torch.randn(3, 2, n, 4), torch.randn(3, 2, n, 4)) for n in (2, 1, 1, 5, 3)]
    cache = KeyValueCache(*chunks[0], capacity=4)  # 12 positions in all: it has to grow twice
    earlier = cache.keys()
    for i, (k, v) in enumerate(chunks[1:], start=2):
        keys, values = cache.append(k, v)
        assert torch.equal(keys, torch.cat([c[0] for c in chunks[:i]], dim=2))
        assert torch.equal(values, torch.cat([c[1] for c in chunks[:i]], dim=2))
    assert torch.equal(earlier, chunks[0][0])  # a view handed out before is not overwritten
    index = torch.tensor([2, 0])
    cache.reorder(index)
    assert torch.equal(cache.keys(), torch.cat([c[0] for c in chunks], dim=2)[index])
    assert torch.equal(cache.values(), torch.cat([c[1] for c in chunks], dim=2)[index])


def test_a_decoder_cache_reserves_max_len_for_self_attention_and_the_source_for_cross(tiny_model):
    """Self-attention keys grow by one position per step into room reserved up front (never copied);
    cross-attention keys are the memory's, computed once."""
    model = tiny_model("seed000", max_len=12)
    src = torch.tensor([[5, 6, 7, 8, 9]])  # (1, S=5)
    memory, cache = model.encode(src), model.new_cache()
    with torch.no_grad():
        model.decode(torch.tensor([[2]]), memory, src, cache)
        buffers = [(layer["self"].k.data_ptr(), layer["cross"].k.data_ptr()) for layer in cache.layers]
        for token in (11, 12, 13):
            model.decode(torch.tensor([[token]]), memory, src, cache)
    for layer, before in zip(cache.layers, buffers):
        assert layer["self"].k.shape[2] == 12 and layer["self"].keys().shape[2] == 4
        assert layer["cross"].k.shape[2] == 5 and layer["cross"].keys().shape[2] == 5
        assert (layer["self"].k.data_ptr(), layer["cross"].k.data_ptr()) == before
