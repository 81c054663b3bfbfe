"""The Transformer's forward pass: equal to torch.nn.Transformer, masked, padding-proof, cached, every hook's shape."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from transformer_viz import Tracer
from transformer_viz.model.config import PRESETS
from transformer_viz.model.transformer import Transformer

PRESET_NAMES = sorted(PRESETS)
PAD = 0


def copy_attention(ours, theirs: nn.MultiheadAttention) -> None:
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    if ours.w_q.bias is None:  # bias-free projections (seed000) = torch's biases at zero
        theirs.in_proj_bias.zero_()
        theirs.out_proj.bias.zero_()
    else:
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.bias.copy_(ours.w_o.bias)


def copy_ffn(ours, theirs) -> None:
    theirs.linear1.load_state_dict(ours.w_1.state_dict())
    theirs.linear2.load_state_dict(ours.w_2.state_dict())


def torch_reference(model: Transformer) -> nn.Transformer:
    """torch.nn.Transformer carrying our weights (eval mode, dropout 0).

    nn.Transformer always ends encoder and decoder with a LayerNorm; where our config has
    final_norm=False (seed004, post-LN) those two norms are replaced by nn.Identity().
    """
    c = model.config
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "enable_nested_tensor is True, but ... norm_first was True"
        ref = nn.Transformer(
            c.d_model,
            c.n_heads,
            c.n_layers,
            c.n_layers,
            c.d_ff,
            dropout=0.0,
            batch_first=True,
            norm_first=c.norm_first,
            layer_norm_eps=c.layer_norm_eps,
        )
    with torch.no_grad():
        for ours, theirs in zip(model.encoder.layers, ref.encoder.layers, strict=True):
            copy_attention(ours.self_attn, theirs.self_attn)
            copy_ffn(ours.ffn, theirs)
            theirs.norm1.load_state_dict(ours.self_attn_sublayer.norm.state_dict())
            theirs.norm2.load_state_dict(ours.ffn_sublayer.norm.state_dict())
        for ours, theirs in zip(model.decoder.layers, ref.decoder.layers, strict=True):
            copy_attention(ours.self_attn, theirs.self_attn)
            copy_attention(ours.cross_attn, theirs.multihead_attn)
            copy_ffn(ours.ffn, theirs)
            theirs.norm1.load_state_dict(ours.self_attn_sublayer.norm.state_dict())
            theirs.norm2.load_state_dict(ours.cross_attn_sublayer.norm.state_dict())
            theirs.norm3.load_state_dict(ours.ffn_sublayer.norm.state_dict())
        if c.final_norm:
            ref.encoder.norm.load_state_dict(model.encoder.norm.state_dict())
            ref.decoder.norm.load_state_dict(model.decoder.norm.state_dict())
        else:
            ref.encoder.norm, ref.decoder.norm = nn.Identity(), nn.Identity()
    return ref.eval()


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_equals_torch_nn_transformer_with_copied_weights(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    src, tgt = make_ids([7, 4]), make_ids([6, 3], bos=True)
    names = ["encoder.hook_input", "decoder.hook_input", "encoder.hook_output", "decoder.hook_output"]
    with torch.no_grad(), Tracer(model, names=names) as tracer:
        logits = model(src, tgt)
    ref = torch_reference(model)
    T = tgt.shape[1]
    # torch's boolean masks mean the opposite of ours: True = may NOT attend.
    masks = dict(
        src_key_padding_mask=src == PAD,
        tgt_mask=torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1),
        tgt_key_padding_mask=tgt == PAD,
        memory_key_padding_mask=src == PAD,
    )
    # Run with autograd on: torch then takes its plain Python path, not the fused "fast path"
    # (which packs the source into a nested tensor and returns zeros at padded positions).
    memory = ref.encoder(tracer["encoder.hook_input"], src_key_padding_mask=masks["src_key_padding_mask"]).detach()
    out = ref(tracer["encoder.hook_input"], tracer["decoder.hook_input"], **masks).detach()
    assert torch.allclose(tracer["encoder.hook_output"], memory, atol=1e-5)
    assert torch.allclose(tracer["decoder.hook_output"], out, atol=1e-5)
    with torch.no_grad():
        assert torch.allclose(logits, model.decoder.generator(out), atol=1e-5)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_attention_patterns_respect_the_masks(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    src, tgt = make_ids([7, 4]), make_ids([6, 3], bos=True)
    with torch.no_grad(), Tracer(model, names="*.hook_pattern") as tracer:
        model(src, tgt)
    src_pad, tgt_pad = (src == PAD)[:, None, None, :], (tgt == PAD)[:, None, None, :]  # (B, 1, 1, L)
    future = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    assert len(tracer.cache) == 3 * 2
    for name, pattern in tracer.cache.items():
        assert torch.allclose(pattern.sum(-1), torch.ones(pattern.shape[:-1]), atol=1e-6), name
        if name.startswith("encoder") or ".cross_attn." in name:
            assert (pattern.masked_select(src_pad.expand_as(pattern)) == 0).all(), name
        else:  # decoder self-attention: exactly 0 above the diagonal and at target padding
            assert (pattern[..., future] == 0).all(), name
            assert (pattern.masked_select(tgt_pad.expand_as(pattern)) == 0).all(), name


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_padding_does_not_change_a_sentence(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    src, tgt = make_ids([8, 4]), make_ids([7, 3], bos=True)
    with torch.no_grad():
        batched = model(src, tgt)
        alone = model(src[1:, :4], tgt[1:, :3])
    assert torch.allclose(batched[1:, :3], alone, atol=1e-5)


def decode_step_by_step(model, src, tgt, chunks):
    """Feed tgt through model.decode with a cache, `chunks` tokens at a time; (B, T, V)."""
    memory, cache, logits, start = model.encode(src), model.new_cache(), [], 0
    for size in chunks:
        logits.append(model.decode(tgt[:, start : start + size], memory, src, cache))
        start += size
    assert cache.length == tgt.shape[1] == start
    return torch.cat(logits, dim=1)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_cached_decoding_equals_teacher_forcing(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    src, tgt = make_ids([8, 5, 2]), make_ids([6, 6, 4], bos=True)  # source and target padding
    with torch.no_grad():
        full = model(src, tgt)
        one_at_a_time = decode_step_by_step(model, src, tgt, [1] * 6)
        forced_prefix = decode_step_by_step(model, src, tgt, [3, 1, 2])
    assert torch.allclose(one_at_a_time, full, atol=1e-5)
    assert torch.allclose(forced_prefix, full, atol=1e-5)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_decode_without_logits_gives_the_last_hidden_state(preset, tiny_model, make_ids):
    """decode(logits=False) stops before the output projection: generator(hidden) are the usual logits."""
    model = tiny_model(preset).eval()
    src, tgt = make_ids([8, 5, 2]), make_ids([6, 6, 4], bos=True)
    with torch.no_grad():
        memory = model.encode(src)
        hidden = model.decode(tgt, memory, src, logits=False)
        cache = model.new_cache()
        first = model.decode(tgt[:, :4], memory, src, cache, logits=False)
        assert hidden.shape == (3, 6, model.config.d_model)
        assert torch.allclose(model.decoder.generator(hidden), model(src, tgt), atol=1e-5)
        assert torch.allclose(first, hidden[:, :4], atol=1e-5)


@pytest.mark.parametrize("chunks", [[1] * 6, [3, 1, 2]])
def test_cached_masks_are_the_rows_of_the_full_masks(chunks, tiny_model, make_ids):
    """The cache builds its masks from stored key masks; each step must see the full pass's mask rows."""
    model = tiny_model("seed000")
    src, tgt = make_ids([8, 5, 2]), make_ids([6, 6, 4], bos=True)  # source and target padding
    names = ["decoder.layers.1.self_attn.hook_mask", "decoder.layers.1.cross_attn.hook_mask"]
    with torch.no_grad():
        with Tracer(model, names) as full:
            model(src, tgt)
        with Tracer(model, names) as cached:
            decode_step_by_step(model, src, tgt, chunks)
    full_self, full_cross = (full[name] for name in names)  # (B, 1, T, T), (B, 1, T, S)
    start = 0
    for size, self_mask, x_mask in zip(chunks, *(cached.history[name] for name in names)):
        rows = slice(start, start + size)
        assert torch.equal(self_mask, full_self[:, :, rows, : start + size])
        assert torch.equal(x_mask, full_cross[:, :, rows])
        start += size
    assert not full_self[2, 0, 5, 4]  # the checks above include a padded key hidden from a later query


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_cache_reorder_follows_the_chosen_rows(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    src, tgt = make_ids([6, 4, 5]), make_ids([5, 5, 5], bos=True)
    index = torch.tensor([2, 0, 0])
    with torch.no_grad():
        memory, cache = model.encode(src), model.new_cache()
        for t in range(2):
            model.decode(tgt[:, t : t + 1], memory, src, cache)
        cache.reorder(index)
        memory, src_kept, tgt_kept = memory[index], src[index], tgt[index]
        assert torch.equal(cache.tgt_ids, tgt_kept[:, :2])
        rest = [model.decode(tgt_kept[:, t : t + 1], memory, src_kept, cache) for t in range(2, 5)]
        expected = model(src_kept, tgt_kept)[:, 2:]
    assert torch.allclose(torch.cat(rest, dim=1), expected, atol=1e-5)


def expected_hook_shapes(B: int, S: int, T: int, H: int, D: int, V: int, n_layers: int) -> dict[str, tuple]:
    Dh = D // H
    shapes = {"encoder.hook_embed": (B, S, D), "encoder.hook_pos": (1, S, D), "encoder.hook_input": (B, S, D)}
    for i in range(n_layers):
        shapes |= {
            f"encoder.layers.{i}.self_attn.hook_q": (B, H, S, Dh),
            f"encoder.layers.{i}.self_attn.hook_k": (B, H, S, Dh),
            f"encoder.layers.{i}.self_attn.hook_v": (B, H, S, Dh),
            f"encoder.layers.{i}.self_attn.hook_mask": (B, 1, S, S),
            f"encoder.layers.{i}.self_attn.hook_scores": (B, H, S, S),
            f"encoder.layers.{i}.self_attn.hook_pattern": (B, H, S, S),
            f"encoder.layers.{i}.self_attn.hook_z": (B, H, S, Dh),
            f"encoder.layers.{i}.self_attn_sublayer.hook_in": (B, S, D),
            f"encoder.layers.{i}.self_attn_sublayer.hook_out": (B, S, D),
            f"encoder.layers.{i}.ffn_sublayer.hook_in": (B, S, D),
            f"encoder.layers.{i}.ffn_sublayer.hook_out": (B, S, D),
            f"encoder.layers.{i}.hook_resid_mid": (B, S, D),
            f"encoder.layers.{i}.hook_resid_post": (B, S, D),
        }
    shapes |= {"encoder.hook_output": (B, S, D)}
    shapes |= {"decoder.hook_embed": (B, T, D), "decoder.hook_pos": (1, T, D), "decoder.hook_input": (B, T, D)}
    for i in range(n_layers):
        shapes |= {
            f"decoder.layers.{i}.self_attn.hook_q": (B, H, T, Dh),
            f"decoder.layers.{i}.self_attn.hook_k": (B, H, T, Dh),
            f"decoder.layers.{i}.self_attn.hook_v": (B, H, T, Dh),
            f"decoder.layers.{i}.self_attn.hook_mask": (B, 1, T, T),
            f"decoder.layers.{i}.self_attn.hook_scores": (B, H, T, T),
            f"decoder.layers.{i}.self_attn.hook_pattern": (B, H, T, T),
            f"decoder.layers.{i}.self_attn.hook_z": (B, H, T, Dh),
            f"decoder.layers.{i}.self_attn_sublayer.hook_in": (B, T, D),
            f"decoder.layers.{i}.self_attn_sublayer.hook_out": (B, T, D),
            f"decoder.layers.{i}.cross_attn.hook_q": (B, H, T, Dh),
            f"decoder.layers.{i}.cross_attn.hook_k": (B, H, S, Dh),
            f"decoder.layers.{i}.cross_attn.hook_v": (B, H, S, Dh),
            f"decoder.layers.{i}.cross_attn.hook_mask": (B, 1, T, S),
            f"decoder.layers.{i}.cross_attn.hook_scores": (B, H, T, S),
            f"decoder.layers.{i}.cross_attn.hook_pattern": (B, H, T, S),
            f"decoder.layers.{i}.cross_attn.hook_z": (B, H, T, Dh),
            f"decoder.layers.{i}.cross_attn_sublayer.hook_in": (B, T, D),
            f"decoder.layers.{i}.cross_attn_sublayer.hook_out": (B, T, D),
            f"decoder.layers.{i}.ffn_sublayer.hook_in": (B, T, D),
            f"decoder.layers.{i}.ffn_sublayer.hook_out": (B, T, D),
            f"decoder.layers.{i}.hook_resid_mid": (B, T, D),
            f"decoder.layers.{i}.hook_resid_cross": (B, T, D),
            f"decoder.layers.{i}.hook_resid_post": (B, T, D),
        }
    shapes |= {"decoder.hook_output": (B, T, D), "decoder.hook_logits": (B, T, V)}
    return shapes


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_hook_names_and_shapes(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    B, S, T = 2, 5, 7  # distinct sizes, so a swapped axis cannot pass
    expected = expected_hook_shapes(B=B, S=S, T=T, H=4, D=32, V=50, n_layers=2)
    assert len(expected) == 81
    names = model.hook_names()
    assert len(names) == len(set(names)) and set(names) == set(expected)
    with torch.no_grad(), Tracer(model) as tracer:
        model(make_ids([S, 3]), make_ids([T, 2], bos=True))
    assert set(tracer.cache) == set(expected)
    assert {name: tuple(t.shape) for name, t in tracer.cache.items()} == expected
    assert all(t.dtype == torch.bool for n, t in tracer.cache.items() if n.endswith("hook_mask"))
