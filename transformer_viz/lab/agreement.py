"""Attention against attribution, in numbers: does the attention a step pays say which source words it used?

Pure numpy on a Trace that carries `attribution` (lab.attribution.attribute); no torch, no model. For each step t
(the query that produced y_t) every method gives one weight per source word — pieces grouped into words as
lab.analysis.word_spans groups them, a word's value the sum of its pieces':

    integrated gradients   |IG_t|, the reference: how much each word moves log p(y_t), either way
    gradient × input       |G_t|
    attention              cross-attention of one layer, mean over its heads
    best head              the cross-attention head with the best alignment score (lab.analysis.head_summary)
    rollout                that layer's head mean traced back through the encoder: Ā_cross[t] · R_enc, with R_enc
                           the encoder's attention rollout after its last layer (Abnar & Zuidema 2020)

and the agreement of each method with the reference, per step: Spearman's ρ (the Pearson correlation of the
ranks, ties sharing their mean rank; NaN when either side is constant) and top-1 agreement (the same word ranks
first). Per sentence: the mean ρ over the steps and the share of steps whose top word agrees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trace import Trace
from .analysis import attention_rollout, head_summary, word_labels, word_spans

REFERENCE = "integrated_gradients"
METHODS = ("gradient_x_input", "attention", "best_head", "rollout")  # compared with the reference, in this order


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 0..n-1 of a vector (n,), ties sharing the mean of their ranks."""
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(v, kind="stable")
    r = np.empty(len(v))
    r[order] = np.arange(len(v), dtype=np.float64)
    for value in np.unique(v):
        tied = v == value
        if tied.sum() > 1:
            r[tied] = r[tied].mean()
    return r


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation of two vectors (n,): Pearson's r of their ranks; NaN when one is constant."""
    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    norm = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / norm) if norm > 0 else float("nan")


def word_sums(values: np.ndarray, spans: list[list[int]]) -> np.ndarray:
    """(…, S) piece values → (…, W) word values: the sum over each word's pieces."""
    v = np.asarray(values, dtype=np.float64)
    return np.stack([v[..., span].sum(axis=-1) for span in spans], axis=-1)


def best_alignment_head(trace: Trace) -> tuple[int, int]:
    """(layer, head) of the cross-attention head with the highest alignment score; the first of equals."""
    scores = head_summary(trace, "cross").scores["alignment"]  # (L, H)
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(layer), int(head)


def cross_rollout(trace: Trace, layer: int) -> np.ndarray:
    """Ā_cross(layer) · R_enc: (T, S) cross-attention of `layer`, heads averaged, traced back to the input tokens."""
    encoder = attention_rollout(trace.attention["encoder_self"])[-1]  # (S, S) memory position ← input token
    return trace.attention["cross"][layer].mean(axis=0).astype(np.float64) @ encoder  # rows still sum to 1


@dataclass(frozen=True)
class Agreement:
    """Every method's weights per step and source word, and how well each agrees with integrated gradients."""

    layer: int  # the cross-attention layer of "attention" and "rollout"
    best_head: tuple[int, int]  # (layer, head) of "best_head"
    words: list[str]  # the source words, the columns
    signed: dict[str, np.ndarray]  # "integrated_gradients", "gradient_x_input" → (T, W), with their signs
    weights: dict[str, np.ndarray]  # REFERENCE and METHODS → (T, W): |attribution| or attention
    rho: dict[str, np.ndarray]  # METHODS → (T,) Spearman ρ with the reference per step
    top1: dict[str, np.ndarray]  # METHODS → (T,) bool: the same top word as the reference
    completeness: np.ndarray  # (T,) Σ_i IG_i − (f(x) − f(x')): what the finite path leaves over

    def mean_rho(self, method: str) -> float:
        """The sentence's mean ρ over the steps where it is defined (NaN if none)."""
        rho = self.rho[method][np.isfinite(self.rho[method])]
        return float(rho.mean()) if rho.size else float("nan")

    def top1_share(self, method: str) -> float:
        return float(self.top1[method].mean()) if self.top1[method].size else float("nan")


def attention_words(trace: Trace, layer: int | None = None) -> tuple[int, tuple[int, int], list[str], dict]:
    """(layer, best head, source words, {"attention", "best_head", "rollout": (T, W)}): the attention side alone."""
    layer = trace.n_layers - 1 if layer is None else layer
    if not isinstance(layer, (int, np.integer)) or not 0 <= layer < trace.n_layers:
        raise ValueError(f"layer must be in 0..{trace.n_layers - 1}, got {layer!r}")
    spans = word_spans(trace.source_tokens)
    best = best_alignment_head(trace)
    weights = {
        "attention": word_sums(trace.attention["cross"][layer].mean(axis=0), spans),
        "best_head": word_sums(trace.attention["cross"][best], spans),
        "rollout": word_sums(cross_rollout(trace, layer), spans),
    }
    return int(layer), best, word_labels(trace.source_tokens, spans), weights


def agreement(trace: Trace, layer: int | None = None) -> Agreement:
    """The Agreement of a trace that carries `attribution`, for cross-attention `layer` (default the last)."""
    if trace.attribution is None:
        raise ValueError("the trace has no attribution yet: compute it with lab.attribution.attribute")
    layer, best, words, weights = attention_words(trace, layer)
    spans = word_spans(trace.source_tokens)
    signed = {name: word_sums(trace.attribution[name], spans) for name in (REFERENCE, "gradient_x_input")}
    weights = {**weights, **{name: np.abs(value) for name, value in signed.items()}}
    reference = weights[REFERENCE]
    rho = {m: np.array([spearman(row, ref) for row, ref in zip(weights[m], reference)]) for m in METHODS}
    top1 = {m: weights[m].argmax(axis=-1) == reference.argmax(axis=-1) for m in METHODS}
    change = np.asarray(trace.attribution["log_probs"]) - np.asarray(trace.attribution["baseline_log_probs"])
    completeness = np.asarray(trace.attribution[REFERENCE], dtype=np.float64).sum(axis=-1) - change
    return Agreement(layer, best, words, signed, weights, rho, top1, completeness)
