"""Query–key geometry of one head, and a source piece's nearest pieces in the shared embedding.

The plane: a head's decoder queries q_t and encoder keys k_s (cross-attention; or either self-attention) are
vectors of one space, R^Dh, where the score is q·k/√Dh. Stacked and centred on their joint mean m, X − m =
U Σ Vᵀ (numpy's SVD); the first two right singular vectors v1, v2 span the plane that keeps the most of their
spread, and each vector x lands at ((x − m)·v1, (x − m)·v2). A singular vector's sign is arbitrary: each is
turned so that its largest loading is positive, so the same trace always gives the same picture.

Neighbours: both presets share one embedding matrix E (V, D) between the encoder, the decoder and the output
projection, so an English piece and a German one sit in the same space. cos(e_i, e_j) = e_i·e_j / (|e_i||e_j|);
a source piece's neighbours are the pieces of highest cosine, itself and the special pieces left out.
Pure numpy on a Trace and the model's weights read as arrays; the normalised matrix is kept per model.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..trace import ATTENTION_KINDS, Trace

if TYPE_CHECKING:
    from ..translator import Translator

N_NEIGHBOURS = 5
SPECIAL = ("<pad>", "<s>", "</s>", "<unk>")  # never a neighbour, and no row of their own


@dataclass(frozen=True)
class QueryKeyPlane:
    """One head's queries and keys projected on their first two principal components."""

    kind: str
    layer: int
    head: int
    queries: np.ndarray  # (Q, 2) each query's coordinates in the plane
    keys: np.ndarray  # (K, 2) each key's
    components: np.ndarray  # (2, Dh) v1, v2: the plane's axes, unit vectors
    mean: np.ndarray  # (Dh,) the joint mean m of the queries and keys
    explained: np.ndarray  # (2,) the share of the spread (variance) each axis keeps
    strongest: np.ndarray  # (Q,) for each query, the key it gives the most weight (argmax of the pattern)
    query_tokens: list[str]
    key_tokens: list[str]


def axes_tokens(trace: Trace, kind: str) -> tuple[list[str], list[str]]:
    """(query tokens, key tokens) of one attention kind, as its pattern's rows and columns."""
    if kind == "encoder_self":
        return trace.source_tokens, trace.source_tokens
    if kind == "cross":
        return trace.target_tokens, trace.source_tokens
    return trace.target_tokens, trace.decoder_input_tokens


def principal_plane(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean (D,), components (2, D), explained (2,)) of points (N, D); missing components are zero."""
    x = np.asarray(points, dtype=np.float64)
    mean = x.mean(axis=0)
    _, singular, vt = np.linalg.svd(x - mean, full_matrices=False)
    components = np.zeros((2, x.shape[1]))
    n = min(2, vt.shape[0])
    components[:n] = vt[:n]
    for row in components:  # the sign of a singular vector is arbitrary: its largest loading positive
        if row[np.abs(row).argmax()] < 0:
            row *= -1
    total = float((singular**2).sum())
    explained = np.zeros(2)
    if total > 0:
        explained[:n] = singular[:n] ** 2 / total
    return mean, components, explained


def query_key_plane(trace: Trace, kind: str, layer: int, head: int) -> QueryKeyPlane:
    """The PCA plane of head `head` of layer `layer`: its queries and keys (trace.vectors[kind]) projected."""
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"kind must be one of {ATTENTION_KINDS}, got {kind!r}")
    if trace.vectors is None:
        raise ValueError("this trace has no query and key vectors (a schema-1 trace): translate again")
    q_all, k_all = trace.vectors[kind]["q"], trace.vectors[kind]["k"]  # (L, H, Q, Dh), (L, H, K, Dh)
    if not 0 <= layer < q_all.shape[0] or not 0 <= head < q_all.shape[1]:
        raise ValueError(f"layer must be in 0..{q_all.shape[0] - 1} and head in 0..{q_all.shape[1] - 1}")
    q, k = q_all[layer, head].astype(np.float64), k_all[layer, head].astype(np.float64)
    mean, components, explained = principal_plane(np.concatenate([q, k]))
    queries, keys = axes_tokens(trace, kind)
    return QueryKeyPlane(
        kind=kind,
        layer=int(layer),
        head=int(head),
        queries=(q - mean) @ components.T,
        keys=(k - mean) @ components.T,
        components=components,
        mean=mean,
        explained=explained,
        strongest=np.asarray(trace.attention[kind][layer, head]).argmax(axis=-1),
        query_tokens=list(queries),
        key_tokens=list(keys),
    )


@dataclass(frozen=True)
class Neighbours:
    """Each source piece's nearest pieces in the shared embedding: rows are the sentence's pieces."""

    tokens: list[str]  # (R,) the source pieces that have a row (special pieces left out)
    positions: list[int]  # (R,) each row's position in the source
    ids: np.ndarray  # (R, k) the neighbours' piece ids, nearest first
    pieces: list[list[str]]  # [R][k] their pieces
    cosines: np.ndarray  # (R, k) cos(e_source, e_neighbour)


@functools.lru_cache(maxsize=8)
def unit_embeddings(translator: Translator) -> tuple[np.ndarray, np.ndarray]:
    """(source, target) embedding matrices (V, D) with unit rows, read once per model (the same when shared)."""
    model = translator.model

    def unit(embedding) -> np.ndarray:
        e = embedding.lookup.weight.detach().float().cpu().numpy().astype(np.float64)
        norms = np.linalg.norm(e, axis=1, keepdims=True)
        return np.divide(e, norms, out=np.zeros_like(e), where=norms > 0)  # <pad>'s zero row stays zero

    source = unit(model.encoder.embed)
    return source, source if model.decoder.embed is model.encoder.embed else unit(model.decoder.embed)


def nearest(translator: Translator, source_ids: list[int], k: int = N_NEIGHBOURS) -> Neighbours:
    """The k target pieces of highest cosine to each non-special source piece, itself and special pieces left out."""
    source, target = unit_embeddings(translator)
    tok = translator.tokenizer
    special = [i for i in range(target.shape[0]) if tok.id_to_piece(i) in SPECIAL]
    rows = [(p, int(i)) for p, i in enumerate(source_ids) if tok.id_to_piece(int(i)) not in SPECIAL]
    ids, cosines = np.zeros((len(rows), k), dtype=np.int64), np.zeros((len(rows), k))
    for r, (_, i) in enumerate(rows):
        cos = target @ source[i]  # (V,)
        cos[special] = -np.inf
        cos[i] = -np.inf  # the piece itself (cosine 1 in a shared matrix)
        best = np.argsort(-cos, kind="stable")[:k]
        ids[r], cosines[r] = best, cos[best]
    return Neighbours(
        tokens=[tok.id_to_piece(i) for _, i in rows],
        positions=[p for p, _ in rows],
        ids=ids,
        pieces=[[tok.id_to_piece(int(j)) for j in row] for row in ids],
        cosines=cosines,
    )
