"""Interventions change one call and nothing else: heads, positions, masks and the seed bugs, checked on the hooks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tests.tiny import tiny_translator
from transformer_viz import Tracer, intervene
from transformer_viz.decoding import DecodeOptions
from transformer_viz.lab.compare import compare, teacher_forced, teacher_forced_trace
from transformer_viz.model.hooks import active_hooks
from transformer_viz.probes.interventions import (
    EXPLANATIONS,
    LABELS,
    SEED_BUGS,
    Intervention,
    head_means,
    hooks,
    input_hooks,
)
from transformer_viz.training.train import weights_digest

SENTENCE = "the dog sees a cat."
EVERY_INTERVENTION = [
    Intervention(ablate=[("encoder_self", 0, 1), ("cross", 1, 3)]),
    Intervention(ablate=[("decoder_self", 1, 0), ("encoder_self", 1, 2)], ablation="mean"),
    Intervention(no_positions=True),
    Intervention(no_causal_mask=True),
    *[Intervention(bug=bug) for bug in SEED_BUGS],
    Intervention(ablate=[("cross", 0, 0)], no_positions=True, no_causal_mask=True, bug="scale_multiplied"),
]


@pytest.fixture(scope="module", params=["seed000", "seed004"])
def translator(request):
    return tiny_translator(request.param)


def source_and_target(translator, text=SENTENCE, n=6):
    """Source ids (1, S), a greedy translation's ids and the decoder input <s> y1 … y(T−1) (1, T)."""
    src, _ = translator.encode_sources([text])
    ids = translator.trace(text, max_new_tokens=n).target_ids
    tgt_in = torch.tensor([[translator.config.bos_id] + ids[:-1]])
    return src, ids, tgt_in


def run(model, src, tgt_in, names, extra=()):
    """One teacher-forced pass under `extra` hooks; the Tracer records after them (it is entered inside)."""
    with intervene(model, list(extra)), Tracer(model, names) as tracer, torch.no_grad():
        logits = model(src, tgt_in)
    return logits, tracer


# ---- the shared model is never changed -------------------------------------------------------------------------


def test_every_intervention_leaves_the_model_unchanged(translator):
    model = translator.model
    before = weights_digest(model.state_dict())
    clean = translator.trace(SENTENCE, max_new_tokens=6)
    for intervention in EVERY_INTERVENTION:
        compare(translator, SENTENCE, intervention, DecodeOptions(max_new_tokens=6))
        translator.translate([SENTENCE, "I like coffee."], intervention=intervention, max_new_tokens=4)
        assert active_hooks() == {}, intervention  # nothing left behind in this context
    assert weights_digest(model.state_dict()) == before
    again = translator.trace(SENTENCE, max_new_tokens=6)
    assert again.target_ids == clean.target_ids
    for kind, weights in clean.attention.items():
        np.testing.assert_array_equal(again.attention[kind], weights)


def test_an_intervention_that_raises_leaves_no_hooks(translator):
    with pytest.raises(ValueError, match="head 9 does not exist"):
        compare(translator, SENTENCE, Intervention(ablate=[("cross", 0, 9)]))
    assert active_hooks() == {}


# ---- head ablation ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, module",
    [
        ("encoder_self", "encoder.layers.1.self_attn"),
        ("decoder_self", "decoder.layers.1.self_attn"),
        ("cross", "decoder.layers.1.cross_attn"),
    ],
)
def test_zero_ablation_changes_exactly_the_ablated_head(translator, kind, module):
    model, head = translator.model, 2
    src, _, tgt_in = source_and_target(translator)
    names = [f"{module}.hook_z", f"{module}.hook_pattern"]
    clean_logits, clean = run(model, src, tgt_in, names)
    logits, ablated = run(model, src, tgt_in, names, hooks(model, Intervention(ablate=[(kind, 1, head)])))
    z, z0 = ablated[f"{module}.hook_z"], clean[f"{module}.hook_z"]  # (1, H, Tq, Dh)
    assert torch.all(z[:, head] == 0) and z0[:, head].abs().max() > 0
    others = [h for h in range(translator.config.n_heads) if h != head]
    torch.testing.assert_close(z[:, others], z0[:, others], rtol=0, atol=0)
    torch.testing.assert_close(ablated[f"{module}.hook_pattern"], clean[f"{module}.hook_pattern"], rtol=0, atol=0)
    assert not torch.allclose(logits, clean_logits)  # and the model's output does depend on that head


def test_mean_ablation_puts_the_heads_mean_at_every_position(translator):
    model = translator.model
    src, ids, tgt_in = source_and_target(translator)
    intervention = Intervention(ablate=[("encoder_self", 0, 1), ("decoder_self", 1, 3)], ablation="mean")
    names = ["encoder.layers.0.self_attn.hook_z", "decoder.layers.1.self_attn.hook_z"]
    _, clean = run(model, src, tgt_in, names)
    _, ablated = run(model, src, tgt_in, names, input_hooks(model, src, intervention, target_ids=ids))
    for name, head in zip(names, (1, 3)):
        mean = clean[name][:, head].mean(dim=1, keepdim=True)  # (1, 1, Dh): over the query positions
        z = ablated[name][:, head]  # (1, Tq, Dh)
        assert z.shape[1] > 1
        torch.testing.assert_close(z, mean.expand_as(z))
        assert not torch.allclose(clean[name][:, head], mean.expand_as(z))  # positions did differ before
    # the encoder head's other heads are untouched (the encoder runs before anything else changes)
    torch.testing.assert_close(ablated[names[0]][:, [0, 2, 3]], clean[names[0]][:, [0, 2, 3]], rtol=0, atol=0)


def test_mean_ablation_reaches_cached_decoding(translator):
    """Cached decoding shows a decoder head one position at a time: its mean must come from a full pass."""
    intervention = Intervention(ablate=[("decoder_self", 0, h) for h in range(4)], ablation="mean")
    clean = translator.trace(SENTENCE, max_new_tokens=6)
    ablated = translator.trace(SENTENCE, max_new_tokens=6, intervention=intervention)
    p_clean = [s["prob"] for s in clean.steps]
    p_ablated = [s["prob"] for s in ablated.steps][: len(p_clean)]
    assert not np.allclose(p_clean, p_ablated, atol=1e-6)
    assert any("mean-ablate" in note for note in ablated.notices)


def test_mean_ablation_after_a_branch_measures_the_branched_translation(translator):
    """With a forced prefix, the free-running and the teacher-forced changed runs ablate with the same means
    (those of the unmodified translation that starts with the prefix): over the tokens both have seen, their
    steps' distributions agree."""
    intervention = Intervention(ablate=(("decoder_self", 0, 1), ("cross", 1, 2)), ablation="mean")
    greedy = translator.trace(SENTENCE, max_new_tokens=8).target_ids
    prefix = [
        next(t for t in range(4, translator.config.tgt_vocab_size) if t not in greedy[:3])
    ] * 3  # not the model's own
    c = compare(translator, SENTENCE, intervention, options=DecodeOptions(max_new_tokens=8), forced_prefix=prefix)
    assert c.original.target_ids[:3] == c.changed.target_ids[:3] == prefix
    shared = next(
        (t for t, (a, b) in enumerate(zip(c.changed.target_ids, c.original.target_ids)) if a != b),
        min(len(c.changed.target_ids), len(c.original.target_ids)),
    )
    assert shared >= 3
    for t in range(shared + 1 if shared < len(c.changed.steps) else shared):  # step `shared` still saw the same tokens
        free, forced = c.changed.steps[t], c.forced_changed.steps[t]
        assert [a["id"] for a in free["top_k"]] == [a["id"] for a in forced["top_k"]]
        np.testing.assert_allclose([a["prob"] for a in free["top_k"]], [a["prob"] for a in forced["top_k"]], atol=1e-5)


def test_mean_ablation_without_means_is_refused(translator):
    with pytest.raises(ValueError, match="mean ablation needs"):
        hooks(translator.model, Intervention(ablate=[("cross", 0, 0)], ablation="mean"))


def test_head_means_shape(translator):
    src, ids, _ = source_and_target(translator)
    means = head_means(translator.model, src, ids, ["decoder.layers.0.cross_attn.hook_z"])
    cfg = translator.config
    assert means["decoder.layers.0.cross_attn.hook_z"].shape == (1, cfg.n_heads, 1, cfg.d_head)


# ---- positions -------------------------------------------------------------------------------------------------


def test_without_positions_the_encoder_is_permutation_equivariant(translator):
    """Attention treats its input as a set: permuting the source only permutes the encoder's output rows."""
    model = translator.model
    src, _ = translator.encode_sources([SENTENCE])
    perm = torch.tensor(list(reversed(range(src.shape[1]))))
    with torch.no_grad():
        clean, clean_permuted = model.encode(src), model.encode(src[:, perm])
        with intervene(model, hooks(model, Intervention(no_positions=True))):
            memory, permuted = model.encode(src), model.encode(src[:, perm])
    torch.testing.assert_close(permuted, memory[:, perm], atol=1e-5, rtol=1e-5)
    assert not torch.allclose(clean_permuted, clean[:, perm], atol=1e-3)  # with positions, order matters


def test_no_positions_zeroes_both_position_hooks(translator):
    model = translator.model
    src, _, tgt_in = source_and_target(translator)
    names = ["encoder.hook_pos", "decoder.hook_pos", "encoder.hook_input", "encoder.hook_embed"]
    _, traced = run(model, src, tgt_in, names, hooks(model, Intervention(no_positions=True)))
    assert torch.all(traced["encoder.hook_pos"] == 0) and torch.all(traced["decoder.hook_pos"] == 0)
    torch.testing.assert_close(traced["encoder.hook_input"], traced["encoder.hook_embed"])  # embeddings alone


# ---- masks ------------------------------------------------------------------------------------------------------


def above_diagonal(pattern: np.ndarray) -> np.ndarray:
    """Weights on later target positions: the strict upper triangle of (…, T, T)."""
    return pattern * np.triu(np.ones(pattern.shape[-2:]), k=1)


@pytest.mark.parametrize("intervention", [Intervention(no_causal_mask=True), Intervention(bug="mask_ignored")])
def test_lifting_the_causal_mask_shows_when_teacher_forced_but_not_in_cached_decoding(translator, intervention):
    clean = translator.trace(SENTENCE, max_new_tokens=6)
    forced = teacher_forced_trace(translator, SENTENCE, clean.target_ids, intervention)
    forced_clean = teacher_forced_trace(translator, SENTENCE, clean.target_ids)
    assert above_diagonal(forced.attention["decoder_self"]).sum(-1)[..., :-1].min() > 0  # every row but the last
    assert np.all(above_diagonal(forced_clean.attention["decoder_self"]) == 0)
    # Cached greedy decoding: the future does not exist yet, so the translation and its probabilities stay.
    changed = translator.trace(SENTENCE, max_new_tokens=6, intervention=intervention)
    assert changed.target_ids == clean.target_ids
    np.testing.assert_allclose([s["prob"] for s in changed.steps], [s["prob"] for s in clean.steps], atol=1e-6)
    # and its recorded maps show what each query saw when it was decoded: nothing later
    assert np.all(above_diagonal(changed.attention["decoder_self"]) == 0)
    np.testing.assert_allclose(changed.attention["decoder_self"], clean.attention["decoder_self"], atol=1e-6)


@pytest.mark.parametrize(
    "intervention", [None, Intervention(ablate=(("encoder_self", 0, 1),)), Intervention(no_positions=True)]
)
def test_teacher_forcing_the_models_own_translation_gives_its_trace(translator, intervention):
    """One teacher-forced pass makes the whole trace: the same maps, masks and probabilities as the free run's."""
    free = translator.trace(SENTENCE, max_new_tokens=6, intervention=intervention)
    forced = teacher_forced_trace(translator, SENTENCE, free.target_ids, intervention)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(forced.attention[kind], free.attention[kind], atol=1e-6, err_msg=kind)
    for kind in ("encoder", "decoder", "cross"):
        np.testing.assert_array_equal(forced.masks[kind], free.masks[kind])
    np.testing.assert_allclose(forced.positional_encoding, free.positional_encoding)
    np.testing.assert_allclose(forced.decoder_self_scores, free.decoder_self_scores, atol=1e-5)
    np.testing.assert_allclose([s["prob"] for s in forced.steps], [s["prob"] for s in free.steps], atol=1e-6)
    if intervention is not None:  # the encoder ran under the intervention
        clean = teacher_forced_trace(translator, SENTENCE, free.target_ids)
        assert not np.allclose(forced.attention["encoder_self"][1:], clean.attention["encoder_self"][1:], atol=1e-4)


def test_no_causal_mask_still_masks_target_padding(translator):
    ids = translator.trace(SENTENCE, max_new_tokens=6).target_ids
    _, padded = teacher_forced(translator, SENTENCE, ids, Intervention(no_causal_mask=True), left_pad=2)
    assert np.all(padded[..., :2] == 0)  # (L, H, T, 2 + T): the pads stay hidden
    assert above_diagonal(padded[..., 2:]).sum() > 0  # while later real tokens are visible


def test_recomputing_the_prefix_lets_a_lifted_mask_change_decoding(translator):
    """Without the cache, earlier positions are recomputed seeing later ones: the step probabilities move."""
    options = dict(max_new_tokens=6, use_cache=False)
    clean = translator.trace(SENTENCE, **options)
    changed = translator.trace(SENTENCE, intervention=Intervention(no_causal_mask=True), **options)
    n = min(len(clean.steps), len(changed.steps))
    assert not np.allclose([s["prob"] for s in clean.steps][1:n], [s["prob"] for s in changed.steps][1:n], atol=1e-6)


def test_mask_ignored_attends_to_source_padding(translator):
    model = translator.model
    src, _ = translator.encode_sources(["I see.", "my brother wants the garden and a cat."])  # row 0 is padded
    pad = (src[0] == translator.config.pad_id).numpy()
    assert pad.any()
    names = ["encoder.layers.0.self_attn.hook_pattern"]
    tgt_in = torch.full((2, 1), translator.config.bos_id)
    _, clean = run(model, src, tgt_in, names)
    _, buggy = run(model, src, tgt_in, names, hooks(model, Intervention(bug="mask_ignored")))
    assert torch.all(clean[names[0]][0][..., pad] == 0)
    assert torch.all(buggy[names[0]][0][..., pad] > 0)


@pytest.mark.parametrize(
    "bug, factor",
    [("scale_multiplied", lambda dh, d: math.sqrt(dh)), ("scale_d_model", lambda dh, d: 1 / math.sqrt(d))],
)
def test_scale_bugs_give_the_softmax_of_the_rescaled_scores(translator, bug, factor):
    """softmax(Q Kᵀ · √Dh) and softmax(Q Kᵀ / √D), computed here from hook_q and hook_k with the causal mask."""
    model, cfg = translator.model, translator.config
    src, _, tgt_in = source_and_target(translator)
    module = "decoder.layers.1.self_attn"
    names = [f"{module}.hook_q", f"{module}.hook_k", f"{module}.hook_pattern"]
    _, traced = run(model, src, tgt_in, names, hooks(model, Intervention(bug=bug)))
    q, k = traced[f"{module}.hook_q"], traced[f"{module}.hook_k"]  # (1, H, T, Dh)
    scores = q @ k.transpose(-2, -1) * factor(cfg.d_head, cfg.d_model)  # (1, H, T, T)
    T = scores.shape[-1]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    expected = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    torch.testing.assert_close(traced[f"{module}.hook_pattern"], expected, atol=1e-5, rtol=1e-4)
    _, clean = run(model, src, tgt_in, [f"{module}.hook_pattern"])
    assert not torch.allclose(clean[f"{module}.hook_pattern"], expected, atol=1e-3)


def test_scale_multiplied_sharpens_and_scale_d_model_flattens(translator):
    """× Dh makes the weights peakier (lower entropy); × 1/√H makes them flatter (higher entropy)."""
    src, ids, _ = source_and_target(translator)

    def entropy(intervention):
        trace = teacher_forced_trace(translator, SENTENCE, ids, intervention)
        w = trace.attention["encoder_self"]
        return float(-(w * np.log(np.clip(w, 1e-12, None))).sum(-1).mean())

    clean = entropy(None)
    assert entropy(Intervention(bug="scale_multiplied")) < clean < entropy(Intervention(bug="scale_d_model"))


@pytest.mark.parametrize("bug", ["scale_multiplied", "scale_d_model"])
def test_scale_bugs_keep_masked_entries_at_the_minimum_and_finite(translator, bug):
    model = translator.model
    src, _ = translator.encode_sources(["I see.", "my brother wants the garden and a cat."])
    pad = (src[0] == translator.config.pad_id).numpy()
    names = ["encoder.layers.0.self_attn.hook_scores", "encoder.layers.0.self_attn.hook_pattern"]
    _, traced = run(
        model, src, torch.full((2, 1), translator.config.bos_id), names, hooks(model, Intervention(bug=bug))
    )
    scores, pattern = traced[names[0]], traced[names[1]]
    assert torch.isfinite(scores).all() and torch.isfinite(pattern).all()
    assert torch.all(scores[0][..., pad] == torch.finfo(scores.dtype).min)
    assert torch.all(pattern[0][..., pad] == 0)


def test_target_padding_unmasked_shows_only_with_padding_in_front(translator):
    text, n_pad = SENTENCE, 3
    ids = translator.trace(text, max_new_tokens=6).target_ids
    bug = Intervention(bug="target_padding_unmasked")
    correct, padded_correct = teacher_forced(translator, text, ids, None, left_pad=n_pad)
    buggy, padded_buggy = teacher_forced(translator, text, ids, bug, left_pad=n_pad)
    T = len(ids)
    assert padded_correct.shape[-2:] == (T, n_pad + T)
    assert np.all(padded_correct[..., :n_pad] == 0)  # the correct mask: exactly no weight on pads
    assert np.all(padded_buggy[..., :n_pad].sum(-1) > 0)  # the bug: every real token attends to the pads
    # With the pads masked, left padding changes nothing: the real tokens keep their positions.
    unpadded = teacher_forced_trace(translator, text, ids)
    np.testing.assert_allclose([s["prob"] for s in correct.steps], [s["prob"] for s in unpadded.steps], atol=1e-5)
    np.testing.assert_allclose(correct.attention["decoder_self"], unpadded.attention["decoder_self"], atol=1e-5)
    assert not np.allclose([s["prob"] for s in buggy.steps], [s["prob"] for s in unpadded.steps], atol=1e-5)
    # Without padding in front (right padding or none) the causal mask already hides the pads: no difference.
    unpadded_buggy = teacher_forced_trace(translator, text, ids, bug)
    np.testing.assert_allclose([s["prob"] for s in unpadded_buggy.steps], [s["prob"] for s in unpadded.steps])


# ---- compare() -----------------------------------------------------------------------------------------------


def test_compare_holds_both_runs_and_the_probability_change(translator):
    intervention = Intervention(ablate=[("cross", 1, h) for h in range(4)])
    c = compare(translator, SENTENCE, intervention, DecodeOptions(max_new_tokens=6))
    ids = c.original.target_ids
    assert c.forced_original.target_ids == c.forced_changed.target_ids == ids
    expected = [b["prob"] - a["prob"] for a, b in zip(c.forced_original.steps, c.forced_changed.steps)]
    np.testing.assert_allclose(c.prob_change, expected)
    assert c.prob_change.shape == (len(ids),) and np.abs(c.prob_change).max() > 0
    # teacher-forcing the unmodified model over its own greedy output reproduces the greedy probabilities
    np.testing.assert_allclose(
        [s["prob"] for s in c.forced_original.steps], [s["prob"] for s in c.original.steps], atol=1e-5
    )
    assert c.left_pad == 0 and c.padded_original is None and c.pad_weight() is None
    assert set(c.explanations) == {"ablate_zero"}
    assert (c.first_difference is None) == (not c.translation_changed)


def test_compare_left_pads_for_the_padding_bug(translator):
    c = compare(translator, SENTENCE, Intervention(bug="target_padding_unmasked"), DecodeOptions(max_new_tokens=6))
    assert c.left_pad == 3 and c.padded_keys[:4] == ["<pad>"] * 3 + ["<s>"]
    assert len(c.padded_keys) == c.padded_changed.shape[-1] == 3 + len(c.original.target_ids)
    without, with_bug = c.pad_weight()
    assert np.all(without == 0) and np.all(with_bug > 0)
    assert not c.translation_changed  # one sentence decodes without padding: the bug cannot bite there


# ---- the Intervention value ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(ablate=[("decoder", 0, 0)]), "kind must be one of"),
        (dict(ablate=[("cross", 0)]), r"\(kind, layer, head\)"),
        (dict(ablate=[("cross", -1, 0)]), "non-negative integer"),
        (dict(ablate=[("cross", 0, 1.5)]), "non-negative integer"),
        (dict(ablation="half"), "ablation must be one of"),
        (dict(bug="softmax_twice"), "bug must be None or one of"),
        (dict(no_positions="yes"), "True or False"),
    ],
)
def test_invalid_interventions_are_refused_clearly(fields, message):
    with pytest.raises(ValueError, match=message):
        Intervention(**fields)


@pytest.mark.parametrize(
    "entry, message",
    [
        (("encoder_self", 2, 0), "layer 2 does not exist: the model has layers 0..1"),
        (("cross", 0, 4), "head 4 does not exist: the model has heads 0..3"),
    ],
)
def test_layers_and_heads_are_checked_against_the_model(translator, entry, message):
    intervention = Intervention(ablate=[entry])  # fine on its own: it does not know the model yet
    with pytest.raises(ValueError, match=message):
        intervention.validate(translator.config)
    with pytest.raises(ValueError, match=message):
        translator.trace(SENTENCE, max_new_tokens=3, intervention=intervention)


def test_identity_description_and_explanations():
    assert Intervention().is_identity and Intervention().describe() == "no intervention"
    lists = Intervention(ablate=[["cross", 1, 0]], no_positions=True)
    assert Intervention(ablate=[("cross", np.int64(1), np.int32(0))]).ablate == (("cross", 1, 0),)
    assert lists.ablate == (("cross", 1, 0),) and hash(lists) == hash(
        Intervention(ablate=[("cross", 1, 0)], no_positions=True)
    )
    assert not lists.is_identity
    assert lists.describe() == "zero heads cross L1 H0; no positional encodings"
    assert lists.to_dict()["ablate"] == [["cross", 1, 0]]
    assert "Target padding left unmasked" in Intervention(bug="target_padding_unmasked").describe()
    expected = {"ablate_zero", "ablate_mean", "no_positions", "no_causal_mask", *SEED_BUGS}
    assert set(EXPLANATIONS) == set(LABELS) == expected
    for intervention in EVERY_INTERVENTION:
        assert intervention.keys and set(intervention.keys) <= expected, intervention
    assert all(40 < len(text) < 600 for text in EXPLANATIONS.values())  # a few sentences, where the notes come from
