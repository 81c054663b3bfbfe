"""One attention query's numbers, picked out of a Trace: x_t → q, the keys, the scores, the weights, z, W_O, the add.

Pure numpy. Everything comes from what the trace recorded (its hooks): q, k, v, z from trace.vectors, the
weights from trace.attention (hook_pattern), the mask from trace.masks, the sublayer's input and output from
trace.sublayers and the residual stream before and after it from trace.residual / trace.encoder_residual. Only
the scores q·k_j and their scaling are worked out here, from the recorded q and k, as the model does it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trace import ATTENTION_KINDS, Trace

MASK_NAMES = {"encoder_self": "encoder", "decoder_self": "decoder", "cross": "cross"}


@dataclass(frozen=True)
class QueryNumbers:
    """The arithmetic of one query of one head. D-vectors are (D,), Dh-vectors (Dh,), one row per key (Tk, …)."""

    kind: str
    layer: int
    head: int
    query: int  # the query's row: the step for the decoder's kinds, a source position for the encoder's
    query_token: str
    key_tokens: list[str]
    pre_ln: bool  # the preset normalises the sublayer's input (pre-LN); post-LN normalises after the add
    x: np.ndarray  # (D,) what W_Q reads: LayerNorm(x_t) in pre-LN, x_t itself in post-LN
    q: np.ndarray  # (Dh,) this head's query
    k: np.ndarray  # (Tk, Dh) the keys
    dots: np.ndarray  # (Tk,) q·k_j
    scaled: np.ndarray  # (Tk,) q·k_j / √Dh
    mask: np.ndarray  # (Tk,) bool, True = may attend
    weights: np.ndarray  # (Tk,) α_j, the softmax of the kept scores (hook_pattern)
    v: np.ndarray  # (Tk, Dh) the values
    z: np.ndarray  # (Dh,) Σ_j α_j v_j (hook_z)
    heads: np.ndarray  # (H, Dh) every head's z at this query: their concatenation is heads.reshape(-1)
    out: np.ndarray  # (D,) Concat(head_1..head_H) W_O: the sublayer's output, before the add
    before: np.ndarray  # (D,) the residual stream before the sublayer
    after: np.ndarray  # (D,) after it: before + out (pre-LN) or LayerNorm(before + out) (post-LN)

    @property
    def d_head(self) -> int:
        return self.q.shape[0]

    @property
    def total(self) -> np.ndarray:
        """(D,) before + out: the residual add (post-LN then normalises it)."""
        return self.before + self.out


def residual_around(trace: Trace, kind: str, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The residual stream before and after `kind`'s sublayer of `layer`, two (queries, D)."""
    if kind == "encoder_self":
        stream, first = trace.encoder_residual, 2 * layer  # embed, L0.self, L0.ffn, …
    else:
        stream, first = trace.residual, 3 * layer + (kind == "cross")  # embed, L0.self, L0.cross, L0.ffn, …
    return stream[first], stream[first + 1]


def key_tokens(trace: Trace, kind: str) -> list[str]:
    """The keys' tokens: the source for cross and encoder self-attention, the decoder's input for its own."""
    return trace.decoder_input_tokens if kind == "decoder_self" else trace.source_tokens


def query_tokens(trace: Trace, kind: str) -> list[str]:
    """The queries' tokens: the source's for the encoder, else what each step produced (row t made y_t)."""
    return trace.source_tokens if kind == "encoder_self" else trace.target_tokens


def strongest_source(trace: Trace, layer: int, head: int, step: int) -> int:
    """The source position this head's cross-attention weighs most at `step`: the encoder query a step points at."""
    return int(np.argmax(trace.attention["cross"][layer, head, step]))


def check_query(trace: Trace, kind: str, layer: int, head: int, query: int) -> None:
    """ValueError unless the trace recorded the numbers and has this kind, layer, head and query row."""
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"kind must be one of {ATTENTION_KINDS}, got {kind!r}")
    if trace.vectors is None or trace.sublayers is None or trace.encoder_residual is None or trace.residual is None:
        raise ValueError("this trace has no q, k, v, z or sublayer inputs; record it again with the current version")
    n_queries = len(query_tokens(trace, kind))
    for name, value, limit in (
        ("layer", layer, trace.n_layers),
        ("head", head, trace.n_heads),
        ("query", query, n_queries),
    ):
        if not isinstance(value, (int, np.integer)) or not 0 <= value < limit:
            raise ValueError(f"{name} must be in 0..{limit - 1}, got {value!r}")


def query_numbers(trace: Trace, kind: str, layer: int, head: int, query: int) -> QueryNumbers:
    """Every number of one query's attention, from the trace (raises ValueError for a missing or bad choice)."""
    check_query(trace, kind, layer, head, query)
    vectors = trace.vectors[kind]
    q = vectors["q"][layer, head, query].astype(np.float64)
    k = vectors["k"][layer, head].astype(np.float64)
    dots = k @ q
    before, after = residual_around(trace, kind, layer)
    return QueryNumbers(
        kind=kind,
        layer=int(layer),
        head=int(head),
        query=int(query),
        query_token=query_tokens(trace, kind)[query],
        key_tokens=list(key_tokens(trace, kind)),
        pre_ln=bool(trace.model.get("config", {}).get("norm_first", True)),
        x=trace.sublayers[kind]["input"][layer, query],
        q=q,
        k=k,
        dots=dots,
        scaled=dots / np.sqrt(q.shape[0]),
        mask=np.asarray(trace.masks[MASK_NAMES[kind]][query], dtype=bool),
        weights=trace.attention[kind][layer, head, query],
        v=vectors["v"][layer, head],
        z=vectors["z"][layer, head, query],
        heads=vectors["z"][layer, :, query],
        out=trace.sublayers[kind]["output"][layer, query],
        before=before[query],
        after=after[query],
    )
