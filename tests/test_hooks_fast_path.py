"""The fast call paths.

HookPoint and eval-mode modules skip nn.Module's call machinery, and hook names are looked up once.

None of it may change what PyTorch's own hooks, inference mode or a caller's list of names see.
"""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from tests.no_hooks import assert_no_hooks
from transformer_viz import Tracer, intervene
from transformer_viz.decoding import DecodeOptions, generate
from transformer_viz.model.dropout import Dropout
from transformer_viz.model.hooks import select_hooks
from transformer_viz.model.modules import Linear, Module

DH = 32 // 4  # d_head of conftest's tiny models (d_model 32, 4 heads)


def test_pytorch_hooks_on_hook_points_and_dropout_still_run(model, batch):
    """HookPoint and eval-mode Dropout skip nn.Module's call machinery only while no PyTorch hook is registered."""
    model.eval()
    plain = model(*batch)
    hook_point = model.decoder.layers[0].self_attn.hook_z
    dropout = model.decoder.layers[0].ffn.dropout
    linear, norm = model.decoder.layers[1].ffn.w_2, model.encoder.layers[0].ffn_sublayer.norm
    seen: list[str] = []
    local = [
        hook_point.register_forward_hook(lambda m, args, out: out * 0),  # replaces the output
        dropout.register_forward_pre_hook(lambda m, args: seen.append("dropout")),
        linear.register_forward_hook(lambda m, args, out: seen.append("linear")),
        norm.register_forward_pre_hook(lambda m, args: seen.append("norm")),
    ]
    try:
        changed = model(*batch)
        every_module = nn.modules.module.register_module_forward_hook(
            lambda m, args, out: seen.append(type(m).__name__)
        )
        try:
            model(*batch)
        finally:
            every_module.remove()
    finally:
        for handle in local:
            handle.remove()
    assert not torch.allclose(changed, plain)
    assert {"dropout", "linear", "norm", "HookPoint", "Dropout", "Linear", "LayerNorm", "MultiHeadAttention"} <= set(
        seen
    )
    assert torch.equal(model(*batch), plain)
    assert_no_hooks(model)
    grads: list[torch.Tensor] = []  # a full backward hook on a hook point sees the gradient flowing through it
    handle = hook_point.register_full_backward_hook(lambda m, grad_in, grad_out: grads.append(grad_out[0]))
    try:
        model(*batch).sum().backward()
    finally:
        handle.remove()
    assert len(grads) == 1 and grads[0].shape == plain.new_empty(batch[0].shape[0], 4, batch[1].shape[1], DH).shape


def test_eval_calls_skip_the_call_machinery_and_training_calls_do_not(model, batch, monkeypatch):
    """Without PyTorch hooks an eval-mode call is forward() itself; in training every module goes through nn.Module."""
    calls: list[str] = []
    call_impl = nn.Module._call_impl

    def counted(self, *args, **kwargs):
        calls.append(type(self).__name__)
        return call_impl(self, *args, **kwargs)

    monkeypatch.setattr(nn.Module, "_call_impl", counted)
    plain = model.eval()(*batch)
    assert calls == []
    model.train()(*batch)
    assert {"Transformer", "MultiHeadAttention", "Linear", "LayerNorm", "Embedding", "Dropout"} <= set(calls)
    calls.clear()
    assert torch.equal(model.eval()(*batch), plain) and calls == []


def test_dropout_is_the_identity_in_eval_and_drops_in_training():
    dropout, x = Dropout(0.5), torch.ones(4, 64)
    dropout.eval()
    assert dropout(x) is x
    dropout.train()
    dropped = dropout(x)
    assert (dropped == 0).any() and set(dropped.unique().tolist()) == {0.0, 1 / (1 - dropout.p)}


def test_traced_tensors_are_ordinary_tensors_although_generate_runs_in_inference_mode(model, make_ids):
    with Tracer(model, names="*.cross_attn.hook_pattern") as tracer:
        generate(model.eval(), make_ids([6, 4]), DecodeOptions(max_new_tokens=3))
    pattern = tracer["decoder.layers.0.cross_attn.hook_pattern"]
    assert not pattern.is_inference()
    pattern.mul_(2)  # an inference tensor would refuse an in-place update here
    assert pattern.requires_grad_().requires_grad


def test_a_model_is_walked_once_for_its_hook_points(tiny_model, batch):
    model = tiny_model("seed000")
    walks = []
    walk = model.named_modules
    model.named_modules = lambda *a, **k: walks.append(1) or walk(*a, **k)  # count the walks from here on
    for _ in range(3):
        with intervene(model, []):  # nothing to add: nothing to look up
            model(*batch)
        with Tracer(model, "*.hook_pattern") as tracer, intervene(model, {"decoder.hook_logits": lambda x, h: x}):
            model(*batch)
    assert len(walks) <= 1 and len(tracer.cache) == 3 * 2  # three attention kinds × 2 layers


def test_a_remembered_selection_is_handed_out_as_a_copy(model):
    first = select_hooks(model, ["*.cross_attn.hook_pattern", "encoder.hook_pos"])
    first.clear()  # a caller's list is its own
    assert select_hooks(model, ["*.cross_attn.hook_pattern", "encoder.hook_pos"]) == [
        "encoder.hook_pos",
        "decoder.layers.0.cross_attn.hook_pattern",
        "decoder.layers.1.cross_attn.hook_pattern",
    ]
    for _ in range(2):  # an unknown pattern is refused every time, not remembered
        with pytest.raises(KeyError, match="no_such"):
            select_hooks(model, ["encoder.hook_pos", "no_such_hook"])


def children_in_step(module: nn.Module) -> bool:
    """Whether every child of every `Module` is the very object its plain attribute lookup finds."""
    return all(
        m.__dict__.get(name, "missing") is child
        for m in module.modules()
        if isinstance(m, Module)
        for name, child in m._modules.items()
    )


@pytest.mark.parametrize("preset", ["seed000", "seed004"])
def test_a_decoding_step_never_needs_nn_modules_getattr(tiny_model, make_ids, monkeypatch, preset):
    """A decoding step finds every submodule, parameter and buffer by Python's own lookup."""
    model = tiny_model(preset)
    assert children_in_step(model) and children_in_step(copy.deepcopy(model))
    fallbacks: list[str] = []
    getattr_ = nn.Module.__getattr__
    monkeypatch.setattr(nn.Module, "__getattr__", lambda self, name: fallbacks.append(name) or getattr_(self, name))
    generate(model.eval(), make_ids([6, 4]), DecodeOptions(max_new_tokens=3))
    assert fallbacks == []
    model.decoder.register_buffer("probe", torch.zeros(1))  # a name no class declares still falls back, and is found
    fallbacks.clear()  # (registering asked hasattr first)
    probe = model.decoder.probe
    assert probe is model.decoder._buffers["probe"] and fallbacks == ["probe"]


def test_registered_parameters_are_what_the_module_holds_now(model, batch):
    """Registered attributes read _parameters/_buffers at every access: functional_call, a new Parameter,
    del, None, a parametrization, .double() and a state_dict load all show through."""
    from torch.nn.utils import parametrize

    model.eval()
    before = model(*batch)
    w_o = model.decoder.layers[0].self_attn.w_o
    name = "decoder.layers.0.self_attn.w_o.weight"
    swapped = torch.func.functional_call(model, {name: w_o.weight * 0}, batch)
    assert not torch.allclose(swapped, before) and torch.allclose(model(*batch), before)  # swapped for that call only
    manual = copy.deepcopy(model)
    manual.decoder.layers[0].self_attn.w_o.weight.data.zero_()
    assert torch.allclose(swapped, manual(*batch), atol=1e-6)

    class Double(nn.Module):
        def forward(self, weight):
            return 2 * weight

    original = w_o.weight.detach().clone()
    parametrize.register_parametrization(w_o, "weight", Double())
    assert torch.equal(w_o.weight, 2 * original) and not torch.allclose(model(*batch), before)
    parametrize.remove_parametrizations(w_o, "weight", leave_parametrized=False)
    assert torch.equal(w_o.weight, original) and torch.allclose(model(*batch), before)

    new = nn.Parameter(torch.ones_like(original))
    w_o.weight = new
    assert w_o.weight is new is w_o._parameters["weight"]
    norm = model.decoder.layers[0].self_attn_sublayer.norm
    del norm.bias
    assert not hasattr(norm, "bias") and "bias" not in norm._parameters
    norm.register_parameter("bias", None)
    assert norm.bias is None
    table = model.encoder.pos.table
    model.double()
    assert (
        model.encoder.pos.table.dtype == torch.float64
        and model.encoder.pos.table is model.encoder.pos._buffers["table"]
    )
    assert torch.equal(model.encoder.pos.table, table.double())


def test_replaced_and_removed_children_are_what_attribute_lookup_finds(model, batch):
    """Assigning, assigning None, deleting, add_module and register_module keep the attribute and the child in step."""
    attention = model.decoder.layers[0].self_attn
    before = model.eval()(*batch)
    new = Linear(32, 32, bias=False)
    new.weight.data = attention.w_o.weight.data * 2
    attention.w_o = new  # the forward pass must use the new child
    assert attention.w_o is new and attention._modules["w_o"] is new and children_in_step(model)
    assert not torch.allclose(model(*batch), before)
    attention.add_module("w_o", Linear(32, 32, bias=False))
    assert attention.w_o is attention._modules["w_o"] is not new
    attention.register_module("extra", new)
    assert attention.extra is new and children_in_step(model)
    attention.extra = None
    assert attention.extra is None and attention._modules["extra"] is None
    del attention.extra
    assert "extra" not in attention._modules and not hasattr(attention, "extra") and children_in_step(model)
    attention.w_o = new  # back to a Linear: a Parameter may now take the name of a removed child
    del attention.w_o
    attention.w_o = nn.Parameter(torch.ones(2))
    assert attention.w_o is attention._parameters["w_o"] and "w_o" not in attention._modules


def test_a_compiled_module_runs_its_compiled_call(model, batch):
    """module.compile() stores a compiled call that nn.Module.__call__ runs: the eval shortcut must not bypass it."""
    model.eval()
    calls = []
    model._compiled_call_impl = lambda *args, **kwargs: calls.append(len(args)) or model.forward(*args, **kwargs)
    try:
        out = model(*batch)
    finally:
        model._compiled_call_impl = None
    assert calls == [2] and torch.equal(out, model(*batch))
