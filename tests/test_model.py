"""The Transformer against torch.nn.Transformer, cached vs. uncached decoding, and the seeds' model bugs.

Seed 000: layers in a plain list (bug 3), PE table rebuilt per call (bug 4), a `training` argument (bug 5).
Seed 004: dropout after LayerNorm (bug 4), device hard-coded to "mps" (bug 5).
"""
from __future__ import annotations

import inspect
import math
import warnings

import pytest
import torch
from torch import nn

import transformer_viz.model as model_module
from transformer_viz import Tracer
from transformer_viz.config import PRESETS
from transformer_viz.model import Sublayer, Transformer, resolve_device

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
            c.d_model, c.n_heads, c.n_layers, c.n_layers, c.d_ff, dropout=0.0,
            batch_first=True, norm_first=c.norm_first, layer_norm_eps=c.layer_norm_eps,
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


def expected_num_parameters(c) -> int:
    D, F, V = c.d_model, c.d_ff, c.tgt_vocab_size
    attention = 4 * D * D + (4 * D if c.attn_bias else 0)
    ffn, norm = D * F + F + F * D + D, 2 * D
    encoder_layer, decoder_layer = attention + ffn + 2 * norm, 2 * attention + ffn + 3 * norm
    embeddings = c.src_vocab_size * D + V * D + (2 * c.max_len * D if c.positional == "learned" else 0)
    return c.n_layers * (encoder_layer + decoder_layer) + embeddings + (2 * norm if c.final_norm else 0) + D * V + V


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_layer_is_registered(preset, tiny_model):
    """Seed 000 bug 3: blocks in a plain Python list are never trained, saved or moved."""
    model = tiny_model(preset)
    state = model.state_dict()
    for stack in (model.encoder, model.decoder):
        assert isinstance(stack.layers, nn.ModuleList)
        per_layer = len(stack.layers[0].state_dict())
        prefix = "encoder" if stack is model.encoder else "decoder"
        counts = [sum(key.startswith(f"{prefix}.layers.{i}.") for key in state) for i in range(2)]
        assert counts == [per_layer, per_layer] and per_layer >= 10
    assert {name for name, _ in model.named_parameters()} <= set(state)
    assert model.num_parameters() == expected_num_parameters(model.config)


@pytest.mark.parametrize("target", [torch.float64, "meta"])
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_to_moves_every_parameter_and_buffer(preset, target, tiny_model, make_ids):
    model = tiny_model(preset).to(target)
    tensors = dict(model.named_parameters()) | dict(model.named_buffers())
    if preset == "seed000":
        assert "encoder.pos.table" in tensors and "decoder.pos.table" in tensors  # the sinusoidal buffers
    for name, tensor in tensors.items():
        if target == "meta":
            assert tensor.device.type == "meta", name
        else:
            assert tensor.dtype == torch.float64, name
    device = "meta" if target == "meta" else "cpu"
    logits = model(make_ids([5, 3]).to(device), make_ids([4, 4], bos=True).to(device))
    assert logits.shape == (2, 4, 50) and logits.device.type == device
    assert logits.dtype == (torch.float32 if target == "meta" else torch.float64)


def test_sinusoidal_table_is_built_once(tiny_model, make_ids, monkeypatch):
    """Seed 000 bug 4: the table is a buffer built in __init__, not recomputed at every call."""
    model = tiny_model("seed000")
    table = model.encoder.pos.table
    pointer = table.data_ptr()

    def fail(*args, **kwargs):
        raise AssertionError("the positional table was recomputed during forward")

    monkeypatch.setattr(torch, "sin", fail)
    monkeypatch.setattr(torch, "cos", fail)
    src, tgt = make_ids([6]), make_ids([5], bos=True)
    with torch.no_grad(), Tracer(model, names="*.hook_pos") as tracer:
        model(src, tgt)
        model(src, tgt)
    assert model.encoder.pos.table.data_ptr() == pointer
    assert torch.equal(tracer["encoder.hook_pos"], table[None, :6])
    assert torch.equal(tracer["decoder.hook_pos"], table[None, :5])


def test_train_and_eval_control_dropout(tiny_model, make_ids):
    """Seed 000 bug 5: no `training` argument; nn.Module.train()/eval() switch dropout."""
    model = tiny_model("seed000", dropout=0.3)
    src, tgt = make_ids([6, 4]), make_ids([5, 5], bos=True)
    with torch.no_grad():
        model.eval()
        first, second = model(src, tgt), model(src, tgt)
        model.train()
        third, fourth = model(src, tgt), model(src, tgt)
    assert torch.equal(first, second)
    assert not torch.allclose(third, first, atol=1e-4) and not torch.allclose(third, fourth, atol=1e-4)
    for module in [model, *model.modules()]:
        assert "training" not in inspect.signature(module.forward).parameters, type(module).__name__
    for method in (model.encode, model.decode):
        assert "training" not in inspect.signature(method).parameters


@pytest.mark.parametrize("norm_first", [False, True])
def test_dropout_hits_the_sublayer_output_before_the_residual_add(norm_first, tiny_config):
    """Seed 004 bug 4: with a dropout that drops everything only the residual path survives.

    post-LN: LayerNorm(x + Dropout(f(x))) = LayerNorm(x); the buggy Dropout(LayerNorm(…)) would be 0.
    pre-LN:  x + Dropout(f(LayerNorm(x))) = x.
    """
    sublayer = Sublayer(tiny_config("seed004", dropout=0.5, norm_first=norm_first)).train()
    sublayer.dropout.p = 1.0  # drop every unit (the config refuses p = 1; the module allows it)
    x = torch.randn(2, 3, 32)
    f = nn.Linear(32, 32)
    with torch.no_grad():
        out = sublayer(x, f)
        expected = x if norm_first else sublayer.norm(x)
        assert torch.allclose(out, expected, atol=1e-6)
        assert out.abs().sum() > 0
        sublayer.eval()  # and without dropout the sublayer's output is added
        expected = x + f(sublayer.norm(x)) if norm_first else sublayer.norm(x + f(x))
        assert torch.allclose(sublayer(x, f), expected, atol=1e-6)


def test_no_hard_coded_device(tiny_config, make_ids):
    """Seed 004 bug 5: the model runs on the CPU with default arguments; only resolve_device names backends."""
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    if not torch.cuda.is_available() and not torch.backends.mps.is_available():
        assert resolve_device() == torch.device("cpu")
    model = Transformer(tiny_config("seed004"))
    assert model.device == torch.device("cpu")
    assert model(make_ids([4]), make_ids([3], bos=True)).device == torch.device("cpu")
    source = inspect.getsource(model_module).replace(inspect.getsource(resolve_device), "")
    assert "mps" not in source and "cuda" not in source


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


def test_sinusoidal_encoding_values(tiny_model):
    model = tiny_model("seed000")
    table, D = model.encoder.pos.table, 32
    assert not isinstance(table, nn.Parameter) and table.shape == (64, D)
    for pos in (0, 1, 7, 63):
        for i in (0, 1, 5, 15):
            angle = pos / 10000 ** (2 * i / D)
            assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)
    assert torch.equal(model.decoder.pos.table, table)


def test_learned_positions_are_parameters(tiny_model, make_ids):
    model = tiny_model("seed004")
    params = dict(model.named_parameters())
    for stack in ("encoder", "decoder"):
        assert params[f"{stack}.pos.table.weight"].shape == (64, 32)  # (max_len, D)
    src, tgt = make_ids([5]), make_ids([4], bos=True)
    with torch.no_grad(), Tracer(model, names="*.hook_pos") as tracer:
        memory, cache = model.encode(src), model.new_cache()
        for t in range(4):
            model.decode(tgt[:, t : t + 1], memory, src, cache)
    assert torch.equal(tracer["encoder.hook_pos"], model.encoder.pos.table.weight[None, :5])
    steps = tracer.history["decoder.hook_pos"]  # one per step, at the step's offset
    assert torch.equal(torch.cat(steps, dim=1), model.decoder.pos.table.weight[None, :4])


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_sequences_longer_than_max_len_are_refused(preset, tiny_model, make_ids):
    model = tiny_model(preset)
    short, long = make_ids([3]), make_ids([65])
    with pytest.raises(ValueError, match="sequence of 65 tokens is longer than the model's max_len=64"):
        model.encode(long)
    with pytest.raises(ValueError, match="max_len=64"):
        model(short, long)
    memory, cache = model.encode(short), model.new_cache()
    model.decode(make_ids([64]), memory, short, cache)
    with pytest.raises(ValueError, match="sequence of 65 tokens"):
        model.decode(make_ids([1]), memory, short, cache)


def test_seed000_embeddings_are_scaled_and_zero_at_padding(tiny_model, make_ids):
    model = tiny_model("seed000")
    src = make_ids([5, 3])
    with torch.no_grad():
        model.encoder.embed.lookup.weight[PAD] = 1.0  # as if training (a tied output row) had moved it
    with torch.no_grad(), Tracer(model, names="encoder.hook_embed") as tracer:
        model.encode(src)
    embed = tracer["encoder.hook_embed"]
    assert (embed[src == PAD] == 0).all()
    expected = model.encoder.embed.lookup.weight[src] * math.sqrt(32)
    assert torch.allclose(embed[src != PAD], expected[src != PAD], atol=1e-6)


def test_seed004_embeddings_are_plain_lookups(tiny_model, make_ids):
    model = tiny_model("seed004")
    src = make_ids([5, 3])
    with torch.no_grad(), Tracer(model, names="encoder.hook_embed") as tracer:
        model.encode(src)
    assert torch.equal(tracer["encoder.hook_embed"], model.encoder.embed.lookup.weight[src])


def test_tied_and_shared_embeddings(tiny_model):
    tied = tiny_model("seed000", tie_embeddings=True)
    assert tied.decoder.generator.weight is tied.decoder.embed.lookup.weight
    assert tied.encoder.embed is not tied.decoder.embed
    untied = tiny_model("seed000")
    assert tied.num_parameters() == untied.num_parameters() - 50 * 32
    with torch.no_grad():
        tied.decoder.embed.lookup.weight[7] += 1.0
    assert tied.decoder.generator.weight.data_ptr() == tied.decoder.embed.lookup.weight.data_ptr()
    shared = tiny_model("seed004", share_embeddings=True)
    assert shared.encoder.embed is shared.decoder.embed
    assert shared.encoder.embed.lookup.weight is shared.decoder.embed.lookup.weight


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
            f"encoder.layers.{i}.self_attn_sublayer.hook_out": (B, S, D),
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
            f"decoder.layers.{i}.self_attn_sublayer.hook_out": (B, T, D),
            f"decoder.layers.{i}.cross_attn.hook_q": (B, H, T, Dh),
            f"decoder.layers.{i}.cross_attn.hook_k": (B, H, S, Dh),
            f"decoder.layers.{i}.cross_attn.hook_v": (B, H, S, Dh),
            f"decoder.layers.{i}.cross_attn.hook_mask": (B, 1, T, S),
            f"decoder.layers.{i}.cross_attn.hook_scores": (B, H, T, S),
            f"decoder.layers.{i}.cross_attn.hook_pattern": (B, H, T, S),
            f"decoder.layers.{i}.cross_attn.hook_z": (B, H, T, Dh),
            f"decoder.layers.{i}.cross_attn_sublayer.hook_out": (B, T, D),
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
    assert len(expected) == 71
    names = model.hook_names()
    assert len(names) == len(set(names)) and set(names) == set(expected)
    with torch.no_grad(), Tracer(model) as tracer:
        model(make_ids([S, 3]), make_ids([T, 2], bos=True))
    assert set(tracer.cache) == set(expected)
    assert {name: tuple(t.shape) for name, t in tracer.cache.items()} == expected
    assert all(t.dtype == torch.bool for n, t in tracer.cache.items() if n.endswith("hook_mask"))
