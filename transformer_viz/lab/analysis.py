"""Beyond attention maps: what each head does, where information flows, words instead of pieces, beam paths.

Pure numpy on a Trace or on its arrays; no torch, no model. Shape letters: L layers, H heads, Q queries,
K keys, S source length, T target length. Attention rows are queries and sum to 1 over the keys.

Head labels. A query points at a key when that key holds more than POINT_WEIGHT (half) of its attention.
Every detector scores a head by the share of its queries that point at the detector's key, over the queries
where that key exists, so a score lies in [0, 1] and a pure pattern scores 1:

    self      key q          the diagonal: the query's own token
    previous  key q - 1      the token before it
    next      key q + 1      the token after it (encoder self only: the causal mask forbids it in the decoder)
    sink      one key k* for every query, the one most queries point at: usually </s>, <s>, the first token
                             or the final "." — where heads park attention they have no use for (Clark et al. 2019)
    alignment key r(t)       cross-attention only: the argmax alignment (see argmax_alignment)

Counting queries, not averaging weights, keeps a head that does one thing on most queries and parks the
rest on <s> or </s> from scoring as if it were spread out: the shipped models' diagonal heads averaged
0.45 on their diagonal, below any threshold that also kept broad heads "mixed".

Decoder self-attention's keys are its inputs <s>, y1 … y(T-1) (trace.decoder_input_tokens): for query t,
the query that produced y(t+1), "self" is key t, the token it was just fed, and "previous" is key t − 1.
Its query 0 sees <s> alone: the causal mask, not the head, puts all of that row on key 0, so head_summary
leaves such rows out of every score, the confidence and the entropy (`rows`); with them, a head spread evenly
over the visible keys of a four-token translation scored 0.52 as "self".

A head takes the label of its best detector when at least DETECTOR_THRESHOLD (a third) of its queries
point there, and "mixed" otherwise; exact ties go to the detector listed first in DETECTORS[kind]. The two
numbers were tuned on heads of the shipped models labelled by eye (tests/test_head_labels.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trace import ATTENTION_KINDS, Trace

EOS, BOS = "</s>", "<s>"
WORD_START = "▁"  # SentencePiece marks a piece that begins a new word with U+2581
# Words of their own. Not <unk>: it stands for characters inside a word ("caf<unk>" for "café").
SPECIAL_TOKENS = ("<s>", "</s>", "<pad>")

# A query points at a key that holds more than this share of its attention: more than all other keys together.
POINT_WEIGHT = 0.5
# A head is labelled by a detector that at least this share of its queries point at.
DETECTOR_THRESHOLD = 1 / 3
# The detectors that make sense for each kind, in tie-break order.
DETECTORS = {
    "encoder_self": ("self", "previous", "next", "sink"),
    "decoder_self": ("self", "previous", "sink"),
    "cross": ("alignment", "sink"),
}
MIXED = "mixed"
LABEL_NAMES = {
    "self": "self (diagonal)",
    "previous": "previous token",
    "next": "next token",
    "sink": "sink (one key for all)",
    "alignment": "alignment",
    MIXED: "mixed",
}
ROLLOUT_RESIDUAL = 0.5  # Abnar & Zuidema (2020): Ã = ½ A + ½ I, the residual stream carries half of each token


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """H(a) = −Σ_k a_k ln a_k in nats for each row (…, Q, K) → (…, Q); 0 ln 0 = 0."""
    w = np.asarray(weights, dtype=np.float64)
    logs = np.log(np.where(w > 0, w, 1.0))
    return -(w * logs).sum(axis=-1)


def query_rows(weights: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """Only the query rows `rows` (indices) of (…, Q, K), or all of them."""
    w = np.asarray(weights, dtype=np.float64)
    return w if rows is None else w[..., np.asarray(rows, dtype=int), :]


def head_entropy(weights: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Mean row entropy in nats (…, Q, K) → (…), over the query rows `rows` (default all): 0 for a head that
    looks at one key from every query."""
    return row_entropy(query_rows(weights, rows)).mean(axis=-1)


def head_confidence(weights: np.ndarray, skip_last_key: bool = False, rows: np.ndarray | None = None) -> np.ndarray:
    """Mean over queries of the largest weight (…, Q, K) → (…), leaving out the last key when it is </s>.

    </s> is where heads park attention they have no use for (Clark et al. 2019): a head staring at it is
    idle, not confident, so with skip_last_key=True its maximum is taken over the other keys.
    """
    w = query_rows(weights, rows)
    if skip_last_key and w.shape[-1] > 1:
        w = w[..., :-1]
    return w.max(axis=-1).mean(axis=-1)


def points_at(weights: np.ndarray) -> np.ndarray:
    """Whether each query points at each key, weight > POINT_WEIGHT: (…, Q, K) → bool (…, Q, K)."""
    return np.asarray(weights, dtype=np.float64) > POINT_WEIGHT


def offset_score(weights: np.ndarray, offset: int, rows: np.ndarray | None = None) -> np.ndarray:
    """Share of the queries q that have a key q + offset (of `rows`, default all) that point at it: (…, Q, K) → (…)."""
    w = np.asarray(weights, dtype=np.float64)
    n_q, n_k = w.shape[-2:]
    queries = np.array([q for q in (range(n_q) if rows is None else rows) if 0 <= q + offset < n_k], dtype=int)
    if queries.size == 0:
        return np.zeros(w.shape[:-2])
    return points_at(w[..., queries, queries + offset]).mean(axis=-1)


def sink_key(weights: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """k* = the key most queries (`rows`, default all) point at, ties and heads without one going to the heaviest
    column: (…, Q, K) → (…)."""
    w = query_rows(weights, rows)
    # counts are whole numbers and a column's mean weight is below 1: the mean only breaks ties
    return (points_at(w).sum(axis=-2) + 0.5 * w.mean(axis=-2)).argmax(axis=-1)


def sink_score(weights: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Share of all queries (`rows`, default all) that point at the sink key k*: (…, Q, K) → (…).

    Every query counts, also those that cannot see k* (decoder self: query t sees keys 0..t), so only a
    key visible to all, <s>, can make a full decoder sink, never a late key seen by the last query alone.
    """
    w = query_rows(weights, rows)
    return points_at(w).mean(axis=-2).max(axis=-1)


def argmax_alignment(cross: np.ndarray, skip_last_key: bool = True) -> np.ndarray:
    """r(t) = argmax_s of cross-attention averaged over every layer and head: (L, H, T, S) → (T,) source indices.

    The final source </s> is left out (skip_last_key) so a shared sink does not pass for an alignment.
    """
    mean = np.asarray(cross, dtype=np.float64).mean(axis=(0, 1))  # (T, S)
    if skip_last_key and mean.shape[-1] > 1:
        mean = mean[:, :-1]
    return mean.argmax(axis=-1)


def alignment_score(weights: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Share of target queries t that point at the aligned source key r(t): (…, T, S) → (…)."""
    w = np.asarray(weights, dtype=np.float64)
    reference = np.asarray(reference, dtype=int)
    return points_at(w[..., np.arange(w.shape[-2]), reference]).mean(axis=-1)


def detector_scores(
    weights: np.ndarray, kind: str, reference: np.ndarray | None = None, rows: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every detector of DETECTORS[kind] on heads (…, Q, K): {name: scores (…)}; cross needs `reference` (T,).

    `rows`: the query rows that count (default all; see head_summary for decoder self-attention).
    """
    check_kind(kind)
    scores = {}
    for name in DETECTORS[kind]:
        if name == "self":
            scores[name] = offset_score(weights, 0, rows)
        elif name == "previous":
            scores[name] = offset_score(weights, -1, rows)
        elif name == "next":
            scores[name] = offset_score(weights, +1, rows)
        elif name == "sink":
            scores[name] = sink_score(weights, rows)
        else:
            if reference is None:
                raise ValueError("the alignment detector needs the reference alignment r(t), see argmax_alignment()")
            scores[name] = alignment_score(weights, reference)
    return scores


def label_from_scores(scores: dict[str, float], threshold: float = DETECTOR_THRESHOLD) -> str:
    """The best detector's name when it scores at least `threshold`, else "mixed"; ties go to the first listed."""
    best = max(scores, key=lambda name: float(scores[name]), default=None)  # max keeps the first of equals
    return best if best is not None and float(scores[best]) >= threshold else MIXED


@dataclass(frozen=True)
class HeadSummary:
    """What every head of one attention kind does, at a glance: arrays are (L, H), labels [L][H]."""

    kind: str
    entropy: np.ndarray  # (L, H) mean row entropy, nats
    confidence: np.ndarray  # (L, H) mean row maximum, </s> left out
    scores: dict[str, np.ndarray]  # detector name → (L, H) score in [0, 1]
    labels: list[list[str]]  # [L][H] a key of LABEL_NAMES
    sink_key: np.ndarray  # (L, H) the key index k* the sink detector looked at

    def head(self, layer: int, head: int) -> dict:
        """One head's numbers as plain Python: entropy, confidence, label, every detector's score, sink key."""
        return dict(
            layer=layer,
            head=head,
            entropy=float(self.entropy[layer, head]),
            confidence=float(self.confidence[layer, head]),
            label=self.labels[layer][head],
            scores={name: float(s[layer, head]) for name, s in self.scores.items()},
            sink_key=int(self.sink_key[layer, head]),
        )


def summarize_heads(
    weights: np.ndarray,
    kind: str,
    skip_last_key: bool = False,
    reference: np.ndarray | None = None,
    threshold: float = DETECTOR_THRESHOLD,
    rows: np.ndarray | None = None,
) -> HeadSummary:
    """Entropy, confidence, detector scores and one label for each head of `weights` (L, H, Q, K), over the
    query rows `rows` (default all)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 4:
        raise ValueError(f"weights must be (layers, heads, queries, keys), got shape {w.shape}")
    scores = detector_scores(w, kind, reference, rows)
    labels = [
        [label_from_scores({n: s[i, h] for n, s in scores.items()}, threshold) for h in range(w.shape[1])]
        for i in range(w.shape[0])
    ]
    return HeadSummary(
        kind, head_entropy(w, rows), head_confidence(w, skip_last_key, rows), scores, labels, sink_key(w, rows)
    )


def head_summary(trace: Trace, kind: str, threshold: float = DETECTOR_THRESHOLD) -> HeadSummary:
    """summarize_heads for one attention kind of a trace; keys that end with the source's </s> skip it."""
    check_kind(kind)
    ends_with_eos = bool(trace.source_tokens) and trace.source_tokens[-1] == EOS
    skip = ends_with_eos and kind in ("encoder_self", "cross")
    reference = argmax_alignment(trace.attention["cross"], ends_with_eos) if kind == "cross" else None
    rows = None
    if kind == "decoder_self":  # queries the mask lets see one key only (query 0: <s>) say nothing of the head
        rows = np.flatnonzero(np.asarray(trace.masks["decoder"]).sum(axis=-1) > 1)
        rows = rows if rows.size else None  # a one-token translation: nothing else to go on
    return summarize_heads(trace.attention[kind], kind, skip, reference, threshold, rows)


def attention_rollout(weights: np.ndarray, residual: float = ROLLOUT_RESIDUAL) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020): R_l = Ã_l … Ã_1 for every layer l, (L, H, S, S) → (L, S, S).

    Ã_l = (1 − residual) Ā_l + residual I, with Ā_l the mean of layer l's heads, rows renormalised to sum
    to 1; the identity stands for the residual connection that carries each token past the attention.
    Row i of R_l: how much of each input token reaches position i after layer l. Use it for encoder
    self-attention, whose queries and keys are the same tokens.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 4 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"rollout needs self-attention weights (layers, heads, S, S), got shape {w.shape}")
    if not 0.0 <= residual <= 1.0:
        raise ValueError(f"residual must be between 0 and 1, got {residual!r}")
    eye = np.eye(w.shape[-1])
    mixed = (1.0 - residual) * w.mean(axis=1) + residual * eye  # (L, S, S)
    sums = mixed.sum(axis=-1, keepdims=True)
    mixed = np.divide(mixed, sums, out=np.zeros_like(mixed), where=sums > 0)  # an all-zero row (residual 0) stays 0
    rollout, flows = eye, []
    for layer in mixed:
        rollout = layer @ rollout  # Ã_l (Ã_{l-1} … Ã_1)
        flows.append(rollout)
    return np.stack(flows)


def word_spans(tokens: list[str]) -> list[list[int]]:
    """Group SentencePiece pieces into words: a piece starting with "▁" starts a word, others continue it.

    Special tokens (<s>, </s>, <pad>) are words of their own; a first piece without "▁" starts one too. <unk>
    is an ordinary piece: "▁ca", "f", "<unk>" is one word.
    E.g. ["▁Haus", "tür", "▁zu", ".", "</s>"] → [[0, 1], [2, 3], [4]].
    """
    spans: list[list[int]] = []
    for i, piece in enumerate(tokens):
        special = piece in SPECIAL_TOKENS
        continues = spans and not special and not piece.startswith(WORD_START) and tokens[i - 1] not in SPECIAL_TOKENS
        if continues:
            spans[-1].append(i)
        else:
            spans.append([i])
    return spans


def word_labels(tokens: list[str], spans: list[list[int]]) -> list[str]:
    """Each word's text: its pieces joined, without the "▁" markers."""
    return ["".join(tokens[i] for i in span).replace(WORD_START, "") or WORD_START for span in spans]


def merge_words(weights: np.ndarray, query_spans: list[list[int]], key_spans: list[list[int]]) -> np.ndarray:
    """Word-level attention (…, Q, K) → (…, Qw, Kw): columns of a key word summed, rows of a query word averaged.

    Summing keys keeps the mass a query gives the whole word; averaging queries keeps each row a
    distribution, so word-level rows still sum to 1. A row of NaN (a query not produced yet, which a figure
    leaves as a gap) is left out of its word's mean; a word whose rows are all NaN is a NaN row itself.
    """
    w = np.asarray(weights, dtype=np.float64)
    keys = np.stack([w[..., span].sum(axis=-1) for span in key_spans], axis=-1)  # (…, Q, Kw); NaN rows stay NaN
    rows = []
    for span in query_spans:
        part = keys[..., span, :]  # (…, n, Kw): the word's pieces' rows
        seen = ~np.isnan(part)
        count = seen.sum(axis=-2)
        total = np.where(seen, part, 0.0).sum(axis=-2)
        rows.append(np.divide(total, count, out=np.full_like(total, np.nan), where=count > 0))
    return np.stack(rows, axis=-2)  # (…, Qw, Kw)


def word_level(
    weights: np.ndarray, query_tokens: list[str], key_tokens: list[str]
) -> tuple[np.ndarray, list[str], list[str]]:
    """(word-level weights (…, Qw, Kw), query words, key words) of piece-level weights (…, Q, K)."""
    q_spans, k_spans = word_spans(query_tokens), word_spans(key_tokens)
    return merge_words(weights, q_spans, k_spans), word_labels(query_tokens, q_spans), word_labels(key_tokens, k_spans)


def beam_node_prefix(beam_tree: list[dict], node: int) -> tuple[list[int], int]:
    """(target ids from the first step up to and including `node`'s token, node's step) of a beam_tree node.

    Node ids are indices into trace.beam_tree; each node names its parent (−1 for the first step).
    Forcing this prefix (translator.trace(…, forced_prefix=ids)) reproduces the node's hypothesis, and
    attention row `step` of that trace is the query that produced the node's token.
    """
    if not isinstance(node, (int, np.integer)) or not 0 <= node < len(beam_tree):
        raise ValueError(f"node must be a beam_tree index in 0..{len(beam_tree) - 1}, got {node!r}")
    ids, current, seen = [], int(node), set()
    while current != -1:
        if current in seen or not 0 <= current < len(beam_tree):
            raise ValueError(f"beam_tree is not a tree: node {node}'s ancestry breaks at {current}")
        seen.add(current)
        ids.append(int(beam_tree[current]["id"]))
        current = int(beam_tree[current]["parent"])
    ids.reverse()
    step = int(beam_tree[node]["step"])
    if step != len(ids) - 1:
        raise ValueError(f"node {node} is at step {step} but has {len(ids) - 1} ancestors")
    return ids, step


def check_kind(kind: str) -> None:
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"kind must be one of {ATTENTION_KINDS}, got {kind!r}")
