"""Tracer and intervene: detached captures, selection, no leftover hooks, per-context isolation, PyTorch's hooks."""

from __future__ import annotations

import asyncio
import copy
import threading

import numpy as np
import pytest
import torch
from torch import nn

from tests.no_hooks import assert_no_hooks
from transformer_viz import Tracer, intervene
from transformer_viz.decoding import DecodeOptions, generate
from transformer_viz.model.hooks import HookPoint, active_hooks, select_hooks

Z_NAME = "decoder.layers.0.self_attn.hook_z"
DH = 32 // 4  # d_head of conftest's tiny models (d_model 32, 4 heads)


def test_tracer_captures_detached_cpu_copies(model, batch):
    assert all(p.requires_grad for p in model.parameters())
    with Tracer(model) as tracer:
        logits = model(*batch)
    assert logits.requires_grad  # tracing does not detach the model's own computation
    assert len(tracer.cache) == len(model.hook_names())
    for name, tensor in tracer.cache.items():
        assert not tensor.requires_grad and tensor.grad_fn is None, name
        assert tensor.device.type == "cpu", name
    tracer["decoder.hook_logits"].zero_()  # a copy: editing it touches nothing else
    assert logits.detach().abs().sum() > 0
    logits.sum().backward()
    assert model.decoder.generator.weight.grad is not None


def test_select_by_exact_name_glob_and_predicate(model, batch):
    cases = {
        "decoder.hook_logits": {"decoder.hook_logits"},
        ("encoder.hook_output", "decoder.hook_output"): {"encoder.hook_output", "decoder.hook_output"},
        "encoder.layers.*.self_attn.hook_pattern": {f"encoder.layers.{i}.self_attn.hook_pattern" for i in (0, 1)},
    }
    predicate = lambda name: ".cross_attn." in name and name.endswith("hook_z")  # noqa: E731
    cases[predicate] = {f"decoder.layers.{i}.cross_attn.hook_z" for i in (0, 1)}
    with torch.no_grad():
        for names, expected in cases.items():
            with Tracer(model, names=names) as tracer:
                model(*batch)
            assert set(tracer.cache) == expected, names


@pytest.mark.parametrize(
    "names", ["decoder.hook_nope", "decoder.layers.9.*", ["decoder.hook_logits", "encoder.hook_logits"]]
)
def test_unknown_names_raise_key_error(model, names):
    with pytest.raises(KeyError, match="no hook point matches"):
        Tracer(model, names=names)
    with pytest.raises(KeyError, match="no hook point matches"):
        with intervene(model, {names if isinstance(names, str) else names[1]: lambda x, hook: x}):
            pass
    assert_no_hooks(model)


def test_no_hooks_remain_after_a_thousand_traces(model, make_ids):
    src, x = make_ids([2]), torch.randn(1, 2, 32)
    with torch.no_grad():
        for i in range(1000):
            with Tracer(model, names="encoder.hook_output") as tracer:
                # A full forward now and then; in between only the hook point itself runs (cheap).
                model.encode(src) if i % 100 == 0 else model.encoder.hook_output(x)
            assert len(tracer.history["encoder.hook_output"]) == 1
    assert_no_hooks(model)


def test_no_hooks_remain_when_the_forward_raises(model, batch, make_ids):
    with pytest.raises(ValueError, match="max_len"):
        with Tracer(model) as tracer:
            model.encode(make_ids([65]))  # the positional encoding refuses it mid-forward
    assert "encoder.hook_embed" in tracer.cache  # what ran before the error was captured
    assert_no_hooks(model)

    def boom(x, hook):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        with Tracer(model) as tracer, intervene(model, {"encoder.layers.1.hook_resid_mid": boom}):
            model(*batch)
    assert_no_hooks(model)
    captured = dict(tracer.cache)
    with torch.no_grad():
        model(*batch)  # outside the block: nothing is recorded any more
    assert tracer.cache.keys() == captured.keys()


def test_nested_tracers_both_capture(model, batch):
    with torch.no_grad(), Tracer(model, names="encoder.hook_output") as outer:
        with Tracer(model, names="decoder.hook_logits") as inner:
            model(*batch)
        assert set(active_hooks()) == {"encoder.hook_output"}  # the inner hooks are gone
        model(*batch)
    assert set(inner.cache) == {"decoder.hook_logits"} and len(inner.history["decoder.hook_logits"]) == 1
    assert len(outer.history["encoder.hook_output"]) == 2
    assert_no_hooks(model)


def test_history_has_one_entry_per_decoding_step(model, make_ids):
    src, tgt = make_ids([6, 4]), make_ids([5, 5], bos=True)
    names = [
        "encoder.layers.0.self_attn.hook_pattern",
        "decoder.layers.1.self_attn.hook_pattern",
        "decoder.hook_logits",
    ]
    with torch.no_grad(), Tracer(model, names=names) as tracer:
        memory, cache = model.encode(src), model.new_cache()
        for t in range(5):
            model.decode(tgt[:, t : t + 1], memory, src, cache)
    assert len(tracer.history["encoder.layers.0.self_attn.hook_pattern"]) == 1
    logits = tracer.history["decoder.hook_logits"]
    assert [tuple(x.shape) for x in logits] == [(2, 1, 50)] * 5
    assert torch.equal(tracer["decoder.hook_logits"], logits[-1])  # cache holds the last value
    patterns = tracer.history["decoder.layers.1.self_attn.hook_pattern"]
    assert [tuple(p.shape) for p in patterns] == [(2, 4, 1, t + 1) for t in range(5)]  # (B, H, 1, keys so far)
    with Tracer(model, names="decoder.hook_logits") as tracer:  # a Tracer entered again starts empty
        pass
    assert tracer.history == {} and tracer.cache == {}


def ablate_head(head: int):
    def fn(z: torch.Tensor, hook: HookPoint) -> torch.Tensor:
        z = z.clone()
        z[:, head] = 0.0  # (B, H, T, Dh): one head's weighted sum of values
        return z

    return fn


def test_intervene_ablates_one_head_through_that_head_only(model, batch):
    with torch.no_grad():
        base = model(*batch)
        with intervene(model, {Z_NAME: ablate_head(1)}), Tracer(model, names=Z_NAME) as tracer:
            ablated = model(*batch)
        with intervene(model, {Z_NAME: lambda z, hook: z}):
            identity = model(*batch)
        with intervene(model, {Z_NAME: lambda z, hook: None}):  # None = leave the tensor as it is
            untouched = model(*batch)
        # Zeroing head 1's output is the same as zeroing the columns of W^O that read it.
        reference = copy.deepcopy(model)
        reference.decoder.layers[0].self_attn.w_o.weight[:, 1 * DH : 2 * DH] = 0.0
        expected = reference(*batch)
        after = model(*batch)
    assert not torch.allclose(ablated, base, atol=1e-4)
    assert torch.allclose(ablated, expected, atol=1e-6)
    assert torch.equal(identity, base) and torch.equal(untouched, base)
    assert torch.equal(after, base)  # scoped to the block
    z = tracer[Z_NAME]  # hooks run in order: the tracer sees the ablated tensor
    assert (z[:, 1] == 0).all() and (z[:, [0, 2, 3]] != 0).any()
    assert_no_hooks(model)


def test_tracing_and_intervening_never_change_the_model(model, batch):
    before = {name: t.clone() for name, t in model.state_dict().items()}
    with torch.no_grad():
        with Tracer(model):
            model(*batch)
        with intervene(model, {"*.hook_z": ablate_head(0), "*.hook_pattern": lambda p, hook: p * 0}):
            model(*batch)
    after = model.state_dict()
    assert after.keys() == before.keys()
    assert all(torch.equal(after[name], before[name]) for name in before)
    assert not model.training


# Hook points whose input is also held elsewhere: the positional table, the mask every layer shares, the K/V cache.
SHARED_INPUTS = [
    "encoder.hook_pos",
    "decoder.hook_pos",
    "encoder.layers.0.self_attn.hook_mask",
    "decoder.layers.0.self_attn.hook_mask",
    "decoder.layers.1.cross_attn.hook_mask",
    "decoder.layers.0.self_attn.hook_k",
    "decoder.layers.0.self_attn.hook_v",
    "decoder.layers.1.cross_attn.hook_k",
]


def edit_in_place(x, hook):
    """A hook in the TransformerLens manner: edit the input, return None."""
    if x.dtype == torch.bool:
        x[..., 0] = False  # the first key hidden
    else:
        x.mul_(1.5)


def edit_a_copy(x, hook):
    x = x.clone()
    edit_in_place(x, hook)
    return x


@pytest.mark.parametrize("preset", ["seed000", "seed004"])
@pytest.mark.parametrize("name", SHARED_INPUTS)
def test_an_in_place_hook_acts_only_on_its_own_call(tiny_model, make_ids, preset, name):
    """Editing a shared input in place is the same as returning an edited copy, with and without the cache:
    the edit reaches neither the model's weights (the positional table), nor the other layers, nor later steps."""
    from transformer_viz.decoding import DecodeOptions, generate

    model, src = tiny_model(preset), make_ids([6, 4])
    before = {key: t.clone() for key, t in model.state_dict().items()}

    def run(fn=None, use_cache=True):
        with intervene(model, {name: fn} if fn else {}):
            hyps = generate(model, src, DecodeOptions(max_new_tokens=8, use_cache=use_cache, n_alternatives=3))
        return [h.ids for h in hyps], np.concatenate([[s.top_probs for s in h.steps] for h in hyps])  # (steps, 3)

    expected_ids, expected_probs = run(edit_a_copy, use_cache=False)
    for fn, use_cache in ((edit_in_place, True), (edit_in_place, False), (edit_a_copy, True)):
        ids, probs = run(fn, use_cache)
        assert ids == expected_ids, (fn.__name__, use_cache)
        np.testing.assert_allclose(probs, expected_probs, atol=1e-5)
    assert all(torch.equal(model.state_dict()[key], t) for key, t in before.items())
    plain_ids, plain_probs = run()
    assert plain_ids != expected_ids or not np.allclose(plain_probs, expected_probs, atol=1e-5)  # the edit does act


def test_only_hooks_that_may_write_get_a_copy(model, batch):
    """The Tracer only reads what it copies anyway: tracing shared inputs adds no copy; any other hook gets one."""
    from torch.overrides import TorchFunctionMode

    class CountClones(TorchFunctionMode):
        clones = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.clones += func is torch.Tensor.clone
            return func(*args, **(kwargs or {}))

    with torch.no_grad():
        with CountClones() as plain:
            model(*batch)
        with Tracer(model, ["*.hook_mask", "*.hook_pos"]) as tracer, CountClones() as traced:
            model(*batch)
        with intervene(model, {"*.hook_mask": lambda x, hook: None}), CountClones() as edited:
            model(*batch)
    assert len(tracer.cache) == 3 * 2 + 2  # three attentions in each of 2 layers, two positional tables
    assert traced.clones == plain.clones and edited.clones == plain.clones + 3 * 2


def test_two_threads_tracing_concurrently_see_only_their_own_tensors(model, make_ids):
    inputs = [(make_ids([3]), make_ids([2], bos=True)), (make_ids([6, 5]), make_ids([4, 4], bos=True))]
    with torch.no_grad():
        expected = [model(*pair) for pair in inputs]
    barrier = threading.Barrier(2, timeout=20)
    results: dict[int, tuple] = {}
    errors: list[BaseException] = []

    def meet(x, hook):  # both forward passes are in flight at this point, in the same model
        barrier.wait()

    def work(i: int) -> None:
        try:
            with torch.no_grad(), Tracer(model) as tracer, intervene(model, {"encoder.layers.0.hook_resid_mid": meet}):
                logits = model(*inputs[i])
                barrier.wait()  # both Tracer blocks are open at the same time
            results[i] = (logits, tracer)
        except BaseException as error:  # noqa: BLE001 - reported in the main thread
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    for i, (logits, tracer) in results.items():
        (src, tgt) = inputs[i]
        assert torch.allclose(logits, expected[i], atol=1e-6)
        assert torch.equal(tracer["decoder.hook_logits"], logits)
        assert tracer["encoder.hook_embed"].shape == (*src.shape, 32)
        assert all(len(values) == 1 for values in tracer.history.values())
    assert len(results) == 2
    assert_no_hooks(model)


def test_a_forward_in_another_thread_is_not_captured_nor_intervened(model, batch):
    with torch.no_grad():
        base = model(*batch)
        other: list[torch.Tensor] = []
        zero_logits = {"decoder.hook_logits": lambda x, hook: torch.zeros_like(x)}
        with Tracer(model) as tracer, intervene(model, zero_logits):
            thread = threading.Thread(target=lambda: other.append(model(*batch)))
            thread.start()
            thread.join(timeout=30)
            assert tracer.cache == {}
            mine = model(*batch)
    assert torch.equal(other[0], base)
    assert (mine == 0).all() and all(len(values) == 1 for values in tracer.history.values())


def test_asyncio_tasks_are_isolated(model, make_ids):
    inputs = [make_ids([3]), make_ids([5, 5])]

    async def trace(src: torch.Tensor) -> Tracer:
        with Tracer(model, names="encoder.hook_output") as tracer:
            await asyncio.sleep(0)  # let the other task open its Tracer too
            with torch.no_grad():
                model.encode(src)
            await asyncio.sleep(0)
        return tracer

    async def both():
        return await asyncio.gather(*(trace(src) for src in inputs))

    tracers = asyncio.run(both())
    for src, tracer in zip(inputs, tracers, strict=True):
        assert [tuple(x.shape) for x in tracer.history["encoder.hook_output"]] == [(*src.shape, 32)]
    assert_no_hooks(model)


def test_a_tracer_sees_only_its_own_model(tiny_model, batch):
    """Two models have the same hook names; hooks on one never fire in the other (e.g. comparing presets)."""
    first, second = tiny_model("seed000"), tiny_model("seed004")
    with torch.no_grad():
        expected = second(*batch)
        zero_patterns = {"*.hook_pattern": lambda p, hook: p * 0}
        with Tracer(first, names="decoder.hook_logits") as tracer, intervene(first, zero_patterns):
            mine = first(*batch)
            theirs = second(*batch)
    assert len(tracer.history["decoder.hook_logits"]) == 1
    assert torch.equal(tracer["decoder.hook_logits"], mine)
    assert torch.equal(theirs, expected)  # the intervention on `first` did not touch `second`


def test_tracing_a_submodule(model, make_ids):
    with torch.no_grad(), Tracer(model.encoder, names="layers.1.*") as tracer:
        model.encode(make_ids([4]))
    # Selected by paths inside the submodule, cached under the hook points' model-wide names.
    assert len(tracer.names) == 13 and all(name.startswith("layers.1.") for name in tracer.names)
    assert sorted(tracer.cache) == sorted(f"encoder.{name}" for name in tracer.names)


def test_pytorch_hooks_run_on_hook_points_and_every_module(model, batch):
    """Hook points are ordinary modules: PyTorch's own forward, global and backward hooks run on them too."""
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
