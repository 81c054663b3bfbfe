"""The logit lens: its last point is the model's own output, its contributions add up, and it survives JSON."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.tiny import tiny_translator
from transformer_viz.decoding import ban_never_generated
from transformer_viz.model.hooks import Tracer, intervene
from transformer_viz.trace import Trace, residual_points

SENTENCE = "the dog sees the house."


@pytest.fixture(scope="module", params=["seed000", "seed004"])
def translator(request):
    return tiny_translator(request.param)


@pytest.fixture(scope="module")
def trace(translator):
    return translator.trace(SENTENCE, max_new_tokens=6)


def teacher_forced_logits(translator, trace, hooks=()):
    """The model's own logits (T, V) over <s> y1..y(T-1), under `hooks`."""
    cfg = translator.config
    src, _ = translator.encode_sources([SENTENCE])
    tgt_in = torch.tensor([[cfg.bos_id] + trace.target_ids[:-1]])
    with torch.inference_mode(), intervene(translator.model, list(hooks)):
        return translator.model(src, tgt_in)[0].float()


def test_the_last_point_is_the_models_own_output(translator, trace):
    lens = trace.logit_lens
    points = len(residual_points(translator.config.n_layers))
    assert lens["top_ids"].shape == lens["chosen_probs"].shape == (points, len(trace.target_ids))
    logits = teacher_forced_logits(translator, trace)
    chosen = logits[torch.arange(len(trace.target_ids)), torch.tensor(trace.target_ids)]
    np.testing.assert_allclose(lens["chosen_logits"][-1], chosen.numpy(), atol=1e-4)
    log_probs = ban_never_generated(logits.clone(), translator.config).log_softmax(-1)
    np.testing.assert_array_equal(lens["top_ids"][-1], log_probs.argmax(-1).numpy())  # greedy: the chosen tokens
    assert list(lens["top_ids"][-1]) == trace.target_ids
    np.testing.assert_allclose(lens["chosen_probs"][-1], [s["prob"] for s in trace.steps], atol=1e-5)
    assert lens["top_tokens"][-1] == trace.target_tokens
    assert lens["final_norm"] == translator.config.final_norm


def test_an_earlier_point_reads_as_the_model_would_if_the_last_layer_passed_it_on(translator, trace):
    """Skip the last layer (its output replaced by its input): the model's logits are the lens of L(n-2).ffn."""
    last = translator.config.n_layers - 1
    skipped = trace.residual[residual_points(last + 1).index(f"L{last - 1}.ffn")]
    hooks = [(f"decoder.layers.{last}.hook_resid_post", lambda x, hook: torch.as_tensor(skipped)[None])]
    logits = teacher_forced_logits(translator, trace, hooks)
    row = residual_points(last + 1).index(f"L{last - 1}.ffn")
    chosen = logits[torch.arange(len(trace.target_ids)), torch.tensor(trace.target_ids)]
    np.testing.assert_allclose(trace.logit_lens["chosen_logits"][row], chosen.numpy(), atol=1e-4)
    assert not np.array_equal(trace.logit_lens["chosen_logits"][row], trace.logit_lens["chosen_logits"][-1])


def test_the_contributions_add_up_to_the_chosen_logit(trace):
    lens = trace.logit_lens
    total = lens["contributions"].sum(axis=0) + lens["constant"]
    np.testing.assert_allclose(total, lens["chosen_logits"][-1], atol=1e-4)
    assert np.abs(lens["contributions"]).min(axis=1).max() > 0  # every point says something


def test_in_a_pre_ln_block_a_contribution_is_the_sublayers_output(translator, trace):
    """seed000: Δ_p = hook_out exactly, so W_U[y] · (γ ⊙ centre(hook_out)) / σ is the contribution."""
    if not translator.config.norm_first:
        pytest.skip("post-LN: a sublayer's own LayerNorm follows its add")
    cfg, model = translator.config, translator.model
    src, _ = translator.encode_sources([SENTENCE])
    tgt_in = torch.tensor([[cfg.bos_id] + trace.target_ids[:-1]])
    with torch.inference_mode(), Tracer(model, "decoder.layers.*.*_sublayer.hook_out") as tracer:
        model(src, tgt_in)
    norm = model.decoder.norm
    last = torch.as_tensor(trace.residual[-1])
    sigma = (last.var(-1, unbiased=False) + norm.eps).sqrt()
    u = model.decoder.generator.weight[torch.tensor(trace.target_ids)].detach()
    row = residual_points(cfg.n_layers).index("L1.cross")
    out = tracer.cache["decoder.layers.1.cross_attn_sublayer.hook_out"][0]
    expected = ((out - out.mean(-1, keepdim=True)) * norm.weight.detach() * u).sum(-1) / sigma
    np.testing.assert_allclose(trace.logit_lens["contributions"][row], expected.numpy(), atol=1e-4)


def test_the_lens_survives_the_trace_json(trace):
    back = Trace.from_dict(trace.to_dict())
    for name, value in trace.logit_lens.items():
        if isinstance(value, np.ndarray):
            assert back.logit_lens[name].dtype == (np.int64 if name.endswith("_ids") else np.float32), name
            np.testing.assert_allclose(back.logit_lens[name], value, atol=1e-5)
        else:
            assert back.logit_lens[name] == value, name
    assert Trace.from_dict({**trace.to_dict(), "logit_lens": None}).logit_lens is None
