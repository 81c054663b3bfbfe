"""The model's parts and the seeds' bugs in them: registered layers, moves, dropout, device, positions, embeddings.

Seed 000: layers in a plain list (bug 3), PE table rebuilt per call (bug 4), a `training` argument (bug 5).
Seed 004: dropout after LayerNorm (bug 4), device hard-coded to "mps" (bug 5).
"""

from __future__ import annotations

import inspect
import math

import pytest
import torch
from torch import nn

import transformer_viz.model.transformer as model_module
from transformer_viz import Tracer
from transformer_viz.model.config import PRESETS
from transformer_viz.model.transformer import Sublayer, Transformer, resolve_device

PRESET_NAMES = sorted(PRESETS)
PAD = 0


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
