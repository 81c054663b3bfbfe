"""Attribution by gradients: integrated gradients' completeness, gradient × input's definition, an untouched model,
and the numbers that compare it with attention."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
import torch

from tests.tiny import tiny_translator
from transformer_viz.lab import agreement as ag
from transformer_viz.lab.attribution import attribute, log_probs_and_gradients
from transformer_viz.trace import Trace

SENTENCE = "my brother wants the garden."


@pytest.fixture(scope="module", params=["seed000", "seed004"])
def case(request):
    """(translator, source ids (1, S), its trace) of one preset."""
    translator = tiny_translator(request.param)
    return translator, translator.encode_sources([SENTENCE])[0], translator.trace(SENTENCE, max_new_tokens=5)


@pytest.fixture(scope="module")
def translator(case):
    return case[0]


@pytest.fixture(scope="module")
def source(case):
    return case[1]


@pytest.fixture(scope="module")
def trace(case):
    return case[2]


def test_integrated_gradients_are_complete(translator, source, trace):
    """Σ_i IG_i = f(x) − f(x') within 1% of the change, with enough steps; a short path leaves more over."""
    fine = attribute(translator.model, source, trace.target_ids, steps=512)
    change = fine["log_probs"] - fine["baseline_log_probs"]
    assert np.abs(change).min() > 1e-2  # a change to account for
    np.testing.assert_allclose(fine["integrated_gradients"].sum(-1), change, rtol=1e-2)
    coarse = attribute(translator.model, source, trace.target_ids, steps=1)
    assert (
        np.abs(coarse["integrated_gradients"].sum(-1) - change).max()
        > np.abs(fine["integrated_gradients"].sum(-1) - change).max()
    )


def test_the_log_probs_are_those_of_decoding(translator, source, trace):
    found = attribute(translator.model, source, trace.target_ids, steps=2)
    np.testing.assert_allclose(np.exp(found["log_probs"]), [s["prob"] for s in trace.steps], atol=1e-5)


def test_gradient_x_input_is_the_directional_derivative(translator, source, trace):
    """G_i = d/dε f(x + ε e_i x_i) at 0, by central differences in float64 on a copy of the model."""
    model = copy.deepcopy(translator.model).double()
    found = attribute(model, source, trace.target_ids, steps=1)
    with torch.no_grad():
        x = model.encoder.embed(source)  # (1, S, D)
    eps = 1e-5
    for i in range(x.shape[1]):
        bump = torch.zeros_like(x)
        bump[0, i] = x[0, i]
        f_plus, _ = log_probs_and_gradients(model, source, trace.target_ids, x + eps * bump)
        f_minus, _ = log_probs_and_gradients(model, source, trace.target_ids, x - eps * bump)
        numeric = ((f_plus - f_minus) / (2 * eps))[0].numpy()
        np.testing.assert_allclose(found["gradient_x_input"][:, i], numeric, rtol=1e-4, atol=1e-7)


def test_the_shared_model_gets_no_gradient_and_no_change(translator, source, trace):
    model = translator.model
    before = {name: p.detach().clone() for name, p in model.state_dict().items()}
    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    attribute(model, source, trace.target_ids, steps=4)
    assert all(p.grad is None for p in model.parameters())
    assert {name: p.requires_grad for name, p in model.named_parameters()} == flags
    assert all(torch.equal(before[name], p) for name, p in model.state_dict().items())
    assert not model.training


def test_bad_steps_are_refused(translator, source, trace):
    with pytest.raises(ValueError, match="steps"):
        attribute(translator.model, source, trace.target_ids, steps=0)


def test_spearman_ranks_ties_and_constants():
    assert ag.spearman(np.array([1.0, 2, 3]), np.array([10.0, 20, 30])) == pytest.approx(1.0)
    assert ag.spearman(np.array([1.0, 2, 3]), np.array([3.0, 1, 0])) == pytest.approx(-1.0)
    np.testing.assert_array_equal(ag.ranks(np.array([5.0, 1, 5, 2])), [2.5, 0, 2.5, 1])
    # with ties: Pearson of the mid-ranks [0, 1.5, 1.5] and [0, 1, 2]
    assert ag.spearman(np.array([0.0, 1, 1]), np.array([0.0, 1, 2])) == pytest.approx(np.sqrt(3) / 2)
    assert np.isnan(ag.spearman(np.ones(3), np.arange(3.0)))


def test_the_agreement_compares_words(translator, source, trace):
    attributed = dataclasses.replace(trace, attribution=attribute(translator.model, source, trace.target_ids, 8))
    found = ag.agreement(attributed, layer=0)
    spans = ag.word_spans(trace.source_tokens)
    assert len(found.words) == len(spans) < len(trace.source_tokens)
    T = len(trace.target_ids)
    for name in (ag.REFERENCE, *ag.METHODS):
        assert found.weights[name].shape == (T, len(spans)), name
    np.testing.assert_allclose(found.weights["attention"].sum(-1), 1, atol=1e-5)
    np.testing.assert_allclose(found.weights["rollout"].sum(-1), 1, atol=1e-5)
    ig = attributed.attribution["integrated_gradients"]
    np.testing.assert_allclose(found.signed[ag.REFERENCE][:, 0], ig[:, spans[0]].sum(-1), atol=1e-6)
    for method in ag.METHODS:
        row = 1
        expected = ag.spearman(found.weights[method][row], found.weights[ag.REFERENCE][row])
        assert found.rho[method][row] == pytest.approx(expected, nan_ok=True)
        assert found.top1_share(method) == pytest.approx(
            np.mean(found.weights[method].argmax(-1) == found.weights[ag.REFERENCE].argmax(-1))
        )
    layer, head = found.best_head
    assert ag.head_summary(trace, "cross").scores["alignment"][layer, head] == (
        ag.head_summary(trace, "cross").scores["alignment"].max()
    )
    with pytest.raises(ValueError, match="no attribution"):
        ag.agreement(trace)


def test_the_attribution_survives_the_trace_json(translator, source, trace):
    attributed = dataclasses.replace(trace, attribution=attribute(translator.model, source, trace.target_ids, 4))
    back = Trace.from_dict(attributed.to_dict()).attribution
    assert back["ig_steps"] == 4 and back["baseline"] == "zero"
    for name in ("integrated_gradients", "gradient_x_input", "log_probs", "baseline_log_probs"):
        np.testing.assert_allclose(back[name], attributed.attribution[name], atol=1e-5)
