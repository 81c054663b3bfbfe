"""A translation beside the same translation under an intervention: free-running and teacher-forced.

Two views are needed. Free-running decoding (the translation a user gets) shows what the model would say.
But it decodes with the key/value cache, one position at a time, so the future does not exist yet: lifting
the causal mask changes nothing there. A teacher-forced pass feeds the whole original translation at once,
as in training; there every mask intervention shows, the maps are full (T × T), and each step's probability
of the original token can be compared before and after.

Target padding is only visible with padding in *front* of real tokens (with padding at the end, the causal
mask already hides it). To show seed 004's bug honestly, the teacher-forced passes can be left-padded with
k <pad> tokens, as in batched generation; the real tokens keep their positions 0..T-1 (the pads get 0..k-1),
so the correct, padding-masked pass gives exactly the numbers of the unpadded one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..decoding import DecodeOptions, Hypothesis, ban_never_generated, describe, read_steps
from ..errors import Notice
from ..model.hooks import HookPoint, Tracer, intervene
from ..probes.interventions import EXPLANATIONS, Intervention, input_hooks
from ..trace import Trace
from ..translator import SOURCE_HOOKS, TARGET_HOOKS, Translator, raw_scores, stack_patterns

DEFAULT_LEFT_PAD = 3  # pad tokens placed before <s> in the target-padding lab


@dataclass
class Comparison:
    """One sentence with and without an intervention. T = length of the original translation."""

    intervention: Intervention
    original: Trace  # free-running, unmodified
    changed: Trace  # free-running under the intervention (its translation may differ)
    forced_original: Trace  # teacher-forced over original.target_ids, unmodified
    forced_changed: Trace  # teacher-forced over original.target_ids, under the intervention
    prob_change: np.ndarray  # (T,) p_changed − p_original of each original token, teacher-forced
    left_pad: int = 0  # <pad> tokens before <s> in both teacher-forced passes
    padded_keys: list[str] = field(default_factory=list)  # with left_pad: k × <pad>, <s>, y1 … y(T−1)
    padded_original: np.ndarray | None = None  # (L, H, T, k + T) decoder self-attention, pad keys included
    padded_changed: np.ndarray | None = None  # the same under the intervention

    @property
    def translation_changed(self) -> bool:
        return self.changed.target_ids != self.original.target_ids

    @property
    def first_difference(self) -> int | None:
        """The first step at which the free-running translations differ (None when they are equal)."""
        a, b = self.original.target_ids, self.changed.target_ids
        for t, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return t
        return None if len(a) == len(b) else min(len(a), len(b))

    @property
    def pads_missing(self) -> bool:
        """The target-padding bug ran on a translation too long for pads in front within max_len: no pads show."""
        return self.intervention.bug == "target_padding_unmasked" and not self.left_pad

    @property
    def explanations(self) -> dict[str, str]:
        """The teaching text for each part of the intervention (interventions.EXPLANATIONS)."""
        return {key: EXPLANATIONS[key] for key in self.intervention.keys}

    def pad_weight(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Attention mass the real target tokens put on the pad keys, (L, H, T) without and with; None unpadded."""
        if self.padded_original is None:
            return None
        k = self.left_pad
        return self.padded_original[..., :k].sum(-1), self.padded_changed[..., :k].sum(-1)


def check_target(target_ids: list[int], config) -> list[int]:
    """Target ids to force: non-empty, in the vocabulary, never <pad> or <s>."""
    ids = [int(i) for i in target_ids]
    if not ids:
        raise ValueError("the target to force is empty: give at least one token id")
    bad = [i for i in ids if not 0 <= i < config.tgt_vocab_size or i in (config.pad_id, config.bos_id)]
    if bad:
        raise ValueError(f"target ids {bad} cannot be forced: outside the vocabulary, <pad> or <s>")
    return ids


def keep_positions(left_pad: int):
    """decoder.hook_pos (1, k + T, D) → pads at positions 0..k-1, real tokens at 0..T-1 as without padding."""

    def hook(pos: torch.Tensor, _: HookPoint) -> torch.Tensor:
        T = pos.shape[1] - left_pad
        return torch.cat([pos[:, :left_pad], pos[:, :T]], dim=1)

    return hook


@torch.no_grad()
def teacher_forced(
    translator: Translator,
    text: str,
    target_ids: list[int],
    intervention: Intervention | None = None,
    left_pad: int = 0,
    n_alternatives: int = 5,
) -> tuple[Trace, np.ndarray | None]:
    """The teacher-forced Trace, and with left_pad > 0 the decoder self-attention with pad keys (L, H, T, k + T)."""
    model, cfg = translator.model, translator.config
    ids = check_target(target_ids, cfg)
    T, k = len(ids), int(left_pad)
    if k < 0 or k + T > cfg.max_len:
        raise ValueError(f"left_pad must be in 0..{cfg.max_len - T} for a {T}-token target, got {left_pad!r}")
    src, notices = translator.encode_sources([text])
    extra = [] if intervention is None else input_hooks(model, src, intervention, target_ids=ids)
    padding = [("decoder.hook_pos", keep_positions(k))] if k else []
    tgt_in = torch.tensor([[cfg.pad_id] * k + [cfg.bos_id] + ids[:-1]], device=src.device)  # (1, k + T)
    with intervene(model, padding + extra):  # the padding hook moves the decoder's positions only
        with Tracer(model, SOURCE_HOOKS) as source:
            memory = model.encode(src)  # (1, S, D)
        with Tracer(model, TARGET_HOOKS) as target:
            logits = model.decode(tgt_in, memory, src)[0, k:].float()  # (T, V): row t predicts y_t
    log_probs = ban_never_generated(logits, cfg).log_softmax(-1)  # as in decoding
    entropy, top_probs, top_ids = describe(log_probs, n_alternatives)
    steps, step_log_probs = read_steps(
        torch.tensor(ids, device=log_probs.device), log_probs, entropy, top_probs, top_ids
    )
    hyp = Hypothesis(ids, steps, sum(step_log_probs), ids[-1] == cfg.eos_id)
    notes = notices[0] + ["teacher-forced: each step's probability is that of the given token"]
    if intervention is not None and not intervention.is_identity:
        notes.append(f"intervention: {intervention.describe()}")
    if k:
        notes.append(f"decoder input left-padded with {k} <pad> tokens; real tokens keep positions 0..{T - 1}")
    opts = DecodeOptions(max_new_tokens=T, n_alternatives=n_alternatives)
    if not k:  # that pass was the trace's own pass: nothing runs again
        return translator.assemble(text, src, hyp, opts, T, notes, {**source.cache, **target.cache}), None
    with intervene(model, extra):  # the unpadded decoder pass, for everything but the maps with pad keys
        trace = translator.record(text, src, hyp, opts, T, notes, encoded=(memory, source))
    return crop_padding(trace, target, k, cfg.n_layers)


def crop_padding(trace: Trace, tracer: Tracer, k: int, n_layers: int) -> tuple[Trace, np.ndarray]:
    """Replace the trace's decoder maps by the left-padded pass's, without the pad rows and columns."""
    self_attn = stack_patterns(tracer.cache, "decoder", "self_attn", n_layers)  # (L, H, k + T, k + T)
    cross = stack_patterns(tracer.cache, "decoder", "cross_attn", n_layers)  # (L, H, k + T, S)
    trace.attention = {**trace.attention, "decoder_self": self_attn[:, :, k:, k:], "cross": cross[:, :, k:]}
    trace.masks = {
        **trace.masks,
        "decoder": tracer["decoder.layers.0.self_attn.hook_mask"][0, 0, k:, k:].numpy(),
        "cross": tracer["decoder.layers.0.cross_attn.hook_mask"][0, 0, k:].numpy(),
    }
    trace.decoder_self_scores = raw_scores(tracer.cache, n_layers)[:, :, k:, k:]  # (L, H, T, T)
    return trace, self_attn[:, :, k:]  # real query rows, every key


def teacher_forced_trace(
    translator: Translator,
    text: str,
    target_ids: list[int],
    intervention: Intervention | None = None,
    left_pad: int = 0,
) -> Trace:
    """One teacher-forced pass over <s> y1 … y(T−1) (the Trace schema; steps' prob = p(given token | prefix)).

    With left_pad = k the decoder input starts with k <pad> tokens (see the module docstring); the Trace shows
    the real rows and columns, and `teacher_forced` also returns the map with the pad keys.
    """
    return teacher_forced(translator, text, target_ids, intervention, left_pad)[0]


def compare(
    translator: Translator,
    text: str,
    intervention: Intervention,
    options: DecodeOptions | None = None,
    left_pad: int | None = None,
    forced_prefix: list[int] | None = None,
) -> Comparison:
    """Free-running and teacher-forced runs of `text`, without and with `intervention`.

    left_pad defaults to DEFAULT_LEFT_PAD for the target-padding bug (the only one it reveals) and 0 otherwise.
    A `forced_prefix` (a learner's branch) starts both free-running translations with the same tokens.
    With sampling, give `options` a seed: without one the two free-running translations draw independent
    randomness, and a difference between them says nothing about the intervention.
    """
    intervention.validate(translator.config)
    opts = translator.options(options)
    original = translator.trace(text, options=opts, forced_prefix=forced_prefix)
    changed = translator.trace(text, options=opts, intervention=intervention, forced_prefix=forced_prefix)
    ids = original.target_ids
    if left_pad is None:
        left_pad = DEFAULT_LEFT_PAD if intervention.bug == "target_padding_unmasked" else 0
        left_pad = max(0, min(left_pad, translator.config.max_len - len(ids)))
    forced_original, padded_original = teacher_forced(translator, text, ids, None, left_pad, opts.n_alternatives)
    forced_changed, padded_changed = teacher_forced(translator, text, ids, intervention, left_pad, opts.n_alternatives)
    prob_change = np.array([c["prob"] - o["prob"] for o, c in zip(forced_original.steps, forced_changed.steps)])
    pad_piece = translator.tokenizer.id_to_piece(translator.config.pad_id)
    padded_keys = [pad_piece] * left_pad + original.decoder_input_tokens if left_pad else []
    comparison = Comparison(
        intervention,
        original,
        changed,
        forced_original,
        forced_changed,
        prob_change,
        left_pad,
        padded_keys,
        padded_original,
        padded_changed,
    )
    if comparison.pads_missing:
        forced_changed.notices.append(Notice("notice-no-pad-room"))
    return comparison
