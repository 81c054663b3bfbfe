"""From pairs to batches to the loss: the kinds mixed, pieces encoded, batches padded, label smoothing (sec. 5.4)."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from ..corpus.ding import KINDS, Pair
from ..corpus.pairs import SYNTHETIC
from ..model.transformer import Transformer
from ..tokenizer import Tokenizer

Example = tuple[list[int], list[int]]  # (source ids + </s>, target ids + </s>)


def token_batches(
    lengths: Sequence[tuple[int, int]],
    max_tokens: int,
    shuffle: bool,
    seed: int = 0,
    bucket_size: int = 8192,
) -> list[list[int]]:
    """Group example indices into batches with ``len(batch) * longest side <= max_tokens``.

    With ``shuffle`` the indices are shuffled, cut into buckets of ``bucket_size``, sorted by
    length inside each bucket (similar lengths → little padding, yet varied batches each
    epoch) and the batch order is shuffled; without it, everything is sorted by length.
    """
    cost = [max(src, tgt) for src, tgt in lengths]
    too_long = [i for i, c in enumerate(cost) if c > max_tokens]
    if too_long:
        raise ValueError(
            f"{len(too_long)} examples are longer than max_tokens={max_tokens} "
            f"(e.g. index {too_long[0]}: {cost[too_long[0]]} tokens); raise max_tokens or drop them"
        )
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    if shuffle:
        rng.shuffle(order)
        buckets = [order[i : i + bucket_size] for i in range(0, len(order), bucket_size)]
    else:
        buckets = [order]
    batches: list[list[int]] = []
    for bucket in buckets:
        batch: list[int] = []
        longest = 0
        for index in sorted(bucket, key=lambda i: (cost[i], i)):
            if batch and (len(batch) + 1) * max(longest, cost[index]) > max_tokens:
                batches.append(batch)
                batch, longest = [], 0
            batch.append(index)
            longest = max(longest, cost[index])
        if batch:
            batches.append(batch)
    if shuffle:
        rng.shuffle(batches)
    return batches


def mix_kinds(pairs: list[Pair], word_pairs: int, seed: int, kinds: str = "sentence,phrase,word") -> list[Pair]:
    """All sentences and phrases, plus a seeded sample of single-word pairs (they outnumber the rest 3:1).

    `kinds` ("sentence,phrase" …) keeps only those kinds of pair.
    """
    wanted = [k.strip() for k in kinds.split(",") if k.strip()]
    unknown = sorted(set(wanted) - set(KINDS))
    if unknown or not wanted:
        raise ValueError(f"kinds must name some of {', '.join(KINDS)} (comma-separated), got {kinds!r}")
    words = [p for p in pairs if p.kind == "word" and "word" in wanted]
    if 0 <= word_pairs < len(words):
        words = random.Random(seed).sample(words, word_pairs)
    mixed = [p for p in pairs if p.kind != "word" and p.kind in wanted] + words
    if not mixed:
        raise ValueError(f"the training split has no pairs of the kinds {kinds!r}")
    random.Random(seed).shuffle(mixed)
    return mixed


def limit_synthetic(pairs: list[Pair], synthetic_pairs: int, seed: int) -> list[Pair]:
    """Every real pair and a seeded sample of ``synthetic_pairs`` back-translated ones (-1: all of them)."""
    real = [p for p in pairs if p.source != SYNTHETIC]
    synthetic = [p for p in pairs if p.source == SYNTHETIC]
    if 0 <= synthetic_pairs < len(synthetic):
        synthetic = random.Random(seed).sample(synthetic, synthetic_pairs)
    return real + synthetic


def encode_pairs(pairs: list[Pair], tokenizer: Tokenizer, max_len: int) -> list[Example]:
    """(source ids + </s>, target ids + </s>), dropping pairs longer than the model can hold."""
    src = tokenizer.encode_batch([p.src for p in pairs])
    tgt = tokenizer.encode_batch([p.tgt for p in pairs])
    return [(s, t) for s, t in zip(src, tgt) if len(s) <= max_len and len(t) < max_len]


@dataclass(frozen=True)
class PackedExamples:
    """Examples laid end to end in two flat arrays, so that a batch is padded by indexing, not by a Python loop.

    Example i's source is src[src_start[i] : src_start[i] + src_len[i]], its target likewise. Batching then costs
    a few array operations whatever the batch size: collate's loop of one torch.tensor per example made about
    580,000 target tokens a second on one core, in series with a GPU's step (BENCHMARKS.md).
    """

    src: np.ndarray  # (all source tokens,) int64
    tgt: np.ndarray  # (all target tokens,) int64
    src_start: np.ndarray  # (N,)
    tgt_start: np.ndarray  # (N,)
    src_len: np.ndarray  # (N,)
    tgt_len: np.ndarray  # (N,)

    @classmethod
    def pack(cls, examples: list[Example]) -> PackedExamples:
        src_len = np.fromiter((len(s) for s, _ in examples), dtype=np.int64, count=len(examples))
        tgt_len = np.fromiter((len(t) for _, t in examples), dtype=np.int64, count=len(examples))
        src = np.fromiter((i for s, _ in examples for i in s), dtype=np.int64, count=int(src_len.sum()))
        tgt = np.fromiter((i for _, t in examples for i in t), dtype=np.int64, count=int(tgt_len.sum()))
        return cls(src, tgt, starts(src_len), starts(tgt_len), src_len, tgt_len)

    def batch(self, indices: list[int], pad: int, bos: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """What collate makes of these examples: source (B, S), decoder input <s> y1..yn (B, T), labels (B, T)."""
        rows = np.asarray(indices, dtype=np.int64)
        src, _ = padded(self.src, self.src_start[rows], self.src_len[rows], pad)
        labels, inside = padded(self.tgt, self.tgt_start[rows], self.tgt_len[rows], pad)
        shifted = np.concatenate([np.full((len(rows), 1), bos), labels[:, :-1]], axis=1)  # <s> y1 … y(n-1)
        tgt_in = np.where(inside, shifted, pad)
        return torch.from_numpy(src), torch.from_numpy(tgt_in), torch.from_numpy(labels)

    def target_tokens(self, indices: list[int]) -> int:
        """How many real (not padding) target tokens a batch holds: known on the host, no read from the device."""
        return int(self.tgt_len[np.asarray(indices, dtype=np.int64)].sum())


def starts(lengths: np.ndarray) -> np.ndarray:
    """Where each of a run of rows laid end to end begins: 0, l0, l0 + l1, …"""
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


def padded(flat: np.ndarray, start: np.ndarray, length: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows flat[start[b] : start[b] + length[b]], padded to the longest: (B, W) ids and (B, W) True inside."""
    columns = np.arange(int(length.max()))  # (W,)
    inside = columns < length[:, None]  # (B, W)
    ids = flat[np.where(inside, start[:, None] + columns, 0)]  # index 0 where padding: read, then replaced
    return np.where(inside, ids, pad), inside


@dataclass
class TrainingData:
    """A run's encoded pairs: the training examples with their lengths, the validation examples in batches."""

    train: list[Example]
    valid: list[Example]
    lengths: list[tuple[int, int]]  # (source, target) length of each training example, for token_batches
    valid_batches: list[list[int]]
    digest: str  # what a saved batch position refers to
    packed: PackedExamples = field(init=False)  # the training examples, ready to batch

    def __post_init__(self) -> None:
        self.packed = PackedExamples.pack(self.train)

    @classmethod
    def encode(
        cls, train: list[Pair], valid: list[Pair], tokenizer: Tokenizer, max_len: int, max_tokens: int
    ) -> TrainingData:
        """Encode both splits for a model of `max_len` positions, in batches of `max_tokens` tokens."""
        train_ex = encode_pairs(train, tokenizer, max_len)
        valid_ex = encode_pairs(valid, tokenizer, max_len)
        valid_batches = token_batches([(len(s), len(t)) for s, t in valid_ex], max_tokens, shuffle=False)
        lengths = [(len(s), len(t)) for s, t in train_ex]
        return cls(train_ex, valid_ex, lengths, valid_batches, data_digest(lengths, max_tokens))


def data_digest(lengths: list[tuple[int, int]], max_tokens: int) -> str:
    """What a resumed run's batch position refers to: the training pairs' lengths, in order, and the batch size."""
    return hashlib.sha256(json.dumps([max_tokens, lengths]).encode()).hexdigest()


def collate(examples: list[Example], pad: int, bos: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Pad a batch: source (B, S), decoder input <s> y1..yn (B, T), labels y1..yn </s> (B, T)."""
    S = max(len(s) for s, _ in examples)
    T = max(len(t) for _, t in examples)
    src = torch.full((len(examples), S), pad, dtype=torch.long)
    tgt_in = torch.full((len(examples), T), pad, dtype=torch.long)
    labels = torch.full((len(examples), T), pad, dtype=torch.long)
    for b, (s, t) in enumerate(examples):
        src[b, : len(s)] = torch.tensor(s)
        tgt_in[b, : len(t)] = torch.tensor([bos] + t[:-1])
        labels[b, : len(t)] = torch.tensor(t)
    return src, tgt_in, labels


def batch_loss(
    model, src, tgt_in, labels, pad: int, smoothing: float, count: bool = True
) -> tuple[torch.Tensor, int | None]:
    """Mean label-smoothed cross-entropy over real target tokens, and their count (None where count=False: counting
    on the device waits for it)."""
    logits = model(src, tgt_in)  # (B, T, V)
    loss = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1).float(), labels.flatten(), ignore_index=pad, label_smoothing=smoothing
    )
    return loss, int((labels != pad).sum()) if count else None


def source_word_dropout(src: torch.Tensor, p: float, unk: int, pad: int, generator=None) -> torch.Tensor:
    """Each real source piece becomes <unk> with probability p: the model must not lean on any single word."""
    if p <= 0:
        return src
    drop = (torch.rand(src.shape, generator=generator, device=src.device) < p) & (src != pad)  # (B, S)
    return src.masked_fill(drop, unk)


@torch.no_grad()
def validation_loss(model: Transformer, examples, batches, pad: int, bos: int, device) -> float:
    """Per-token negative log-likelihood (no smoothing) on the validation pairs."""
    model.eval()
    total, count = 0.0, 0
    for batch in batches:
        src, tgt_in, labels = (x.to(device) for x in collate([examples[i] for i in batch], pad, bos))
        loss, n = batch_loss(model, src, tgt_in, labels, pad, 0.0)
        total, count = total + float(loss) * n, count + n
    model.train()
    return total / max(count, 1)
