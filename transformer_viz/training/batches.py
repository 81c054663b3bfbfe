"""From pairs to batches to the loss: the kinds mixed, pieces encoded, batches padded, label smoothing (sec. 5.4)."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass

import torch

from ..model.transformer import Transformer
from ..tokenizer import Tokenizer
from .data import KINDS, Pair, token_batches

Example = tuple[list[int], list[int]]  # (source ids + </s>, target ids + </s>)


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


def encode_pairs(pairs: list[Pair], tokenizer: Tokenizer, max_len: int) -> list[Example]:
    """(source ids + </s>, target ids + </s>), dropping pairs longer than the model can hold."""
    src = tokenizer.encode_batch([p.src for p in pairs])
    tgt = tokenizer.encode_batch([p.tgt for p in pairs])
    return [(s, t) for s, t in zip(src, tgt) if len(s) <= max_len and len(t) < max_len]


@dataclass
class TrainingData:
    """A run's encoded pairs: the training examples with their lengths, the validation examples in batches."""

    train: list[Example]
    valid: list[Example]
    lengths: list[tuple[int, int]]  # (source, target) length of each training example, for token_batches
    valid_batches: list[list[int]]
    digest: str  # what a saved batch position refers to

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


def batch_loss(model, src, tgt_in, labels, pad: int, smoothing: float) -> tuple[torch.Tensor, int]:
    """Mean label-smoothed cross-entropy over real target tokens, and their count."""
    logits = model(src, tgt_in)  # (B, T, V)
    loss = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1).float(), labels.flatten(), ignore_index=pad, label_smoothing=smoothing
    )
    return loss, int((labels != pad).sum())


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
