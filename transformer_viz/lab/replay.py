"""Training replay: one translation teacher-forced through every weight snapshot of its checkpoint's run.

The visitor's final translation y1 … yT is fed to each snapshot as in training (<s> y1 … y(T−1) in, row t
predicts y_t), so every snapshot answers for the same tokens and the axes of its maps stay fixed. Each
snapshot's weights go into a model of their own, built from the checkpoint's config (training.snapshots
.load_snapshot): the shared model that visitors translate with is only read, for its tokenizer and config.

Per snapshot n: p_n(y_t | y_<t, x) for every step t, the cross-attention patterns (L, H, T, S) and the heads'
labels (lab.analysis detectors, as head_summary labels a trace's cross-attention). Beside them, the run's
learning curve (metrics.jsonl). Shape letters: N snapshots, L layers, H heads, T target length, S source length.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from ..decoding import ban_never_generated
from ..hub.hub import CheckpointError
from ..model.hooks import Tracer
from ..trace import Trace
from ..training.records import METRICS_NAME
from ..training.snapshots import list_snapshots, load_snapshot
from ..translator import Translator, stack_patterns
from .analysis import EOS, argmax_alignment, summarize_heads

CROSS_HOOKS = ("decoder.layers.*.cross_attn.hook_pattern",)
CACHED_REPLAYS = 16  # sentences × models kept: each holds N × L × H × T × S weights (a few MB at most)


@dataclass(frozen=True)
class Replay:
    """One translation through every snapshot of its run, by training step."""

    steps: list[int]  # (N,) the training step of each snapshot
    valid_loss: list[float]  # (N,) each snapshot's validation loss
    probs: np.ndarray  # (N, T) p_n(y_t | y_<t, x): the probability snapshot n gives the final translation's token t
    cross: np.ndarray  # (N, L, H, T, S) cross-attention of snapshot n
    labels: list[list[list[str]]]  # [N][L][H] each cross-attention head's label (lab.analysis.LABEL_NAMES)
    curve: dict[str, list[float]]  # the run's learning curve: step, train_loss, valid_loss (empty lists: none)

    def __len__(self) -> int:
        return len(self.steps)

    def as_trace_field(self) -> dict[str, np.ndarray]:
        """Trace.replay: {"steps": (N,), "probs": (N, T)}."""
        return {"steps": np.asarray(self.steps, dtype=np.int64), "probs": self.probs.astype(np.float32)}


def has_snapshots(folder: str | Path | None) -> bool:
    """Whether a checkpoint folder holds training snapshots (a broken index counts as none)."""
    if folder is None:
        return False
    try:
        return bool(list_snapshots(folder))
    except CheckpointError:
        return False


def learning_curve(folder: str | Path) -> dict[str, list[float]]:
    """The run's metrics.jsonl as columns: step, train_loss, valid_loss (rows lacking one are left out)."""
    columns: dict[str, list[float]] = {"step": [], "train_loss": [], "valid_loss": []}
    path = Path(folder) / METRICS_NAME
    if not path.is_file():
        return columns
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            values = [float(row[name]) for name in columns]
        except (ValueError, KeyError, TypeError):
            continue
        if all(math.isfinite(v) for v in values):
            for name, value in zip(columns, values):
                columns[name].append(value)
    return columns


@torch.inference_mode()
def teacher_forced_pass(model, source_ids: list[int], target_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(p(y_t | y_<t, x) for t < T, cross-attention (L, H, T, S)) of one model on one sentence pair."""
    cfg = model.config
    device = model.device
    src = torch.tensor([source_ids], device=device)  # (1, S)
    tgt_in = torch.tensor([[cfg.bos_id] + list(target_ids[:-1])], device=device)  # (1, T)
    with Tracer(model, CROSS_HOOKS) as tracer:
        logits = model(src, tgt_in)[0].float()  # (T, V): row t predicts y_t
    log_probs = ban_never_generated(logits, cfg).log_softmax(-1)  # as decoding scores its choices
    chosen = log_probs.gather(-1, torch.tensor(target_ids, device=device)[:, None])[:, 0]  # (T,)
    return chosen.exp().cpu().numpy(), stack_patterns(tracer.cache, "decoder", "cross_attn", cfg.n_layers)


def cross_labels(cross: np.ndarray, ends_with_eos: bool) -> list[list[str]]:
    """Each head's label from cross-attention (L, H, T, S), as lab.analysis.head_summary labels a trace's."""
    reference = argmax_alignment(cross, ends_with_eos)
    return summarize_heads(cross, "cross", ends_with_eos, reference).labels


def check_ids(translator: Translator, source_ids, target_ids) -> tuple[list[int], list[int]]:
    cfg = translator.config
    src, tgt = [int(i) for i in source_ids], [int(i) for i in target_ids]
    if not src or not tgt:
        raise ValueError("a replay needs a source and a translation of at least one token each")
    if not all(0 <= i < cfg.src_vocab_size for i in src) or not all(0 <= i < cfg.tgt_vocab_size for i in tgt):
        raise ValueError("the source or translation has token ids outside the model's vocabulary")
    if len(src) > cfg.max_len or len(tgt) > cfg.max_len:
        raise ValueError(f"the model reads at most {cfg.max_len} tokens")
    return src, tgt


def replay(translator: Translator, folder: str | Path, source_ids, target_ids) -> Replay:
    """`target_ids` teacher-forced after `source_ids` through every snapshot in `folder` (translator's checkpoint).

    Raises CheckpointError when the folder has no snapshots or they were trained for another model.
    """
    src, tgt = check_ids(translator, source_ids, target_ids)
    snapshots = list_snapshots(folder)
    if not snapshots:
        raise CheckpointError(f"{folder} holds no training snapshots")
    ends_with_eos = translator.tokenizer.id_to_piece(src[-1]) == EOS
    probs, cross, labels = [], [], []
    for snapshot in snapshots:
        model = load_snapshot(folder, snapshot, device=translator.model.device)  # its own model, never the shared one
        if model.config.to_dict() != translator.config.to_dict():
            raise CheckpointError(f"{folder}'s snapshots are not of the model {translator.name}")
        p, attention = teacher_forced_pass(model, src, tgt)
        probs.append(p)
        cross.append(attention)
        labels.append(cross_labels(attention, ends_with_eos))
        del model
    return Replay(
        steps=[s.step for s in snapshots],
        valid_loss=[s.valid_loss for s in snapshots],
        probs=np.stack(probs),
        cross=np.stack(cross),
        labels=labels,
        curve=learning_curve(folder),
    )


@functools.lru_cache(maxsize=CACHED_REPLAYS)
def cached_replay(translator: Translator, folder: str, source_ids: tuple[int, ...], target_ids: tuple[int, ...]):
    """replay(), computed once per model (its Translator), checkpoint folder, source and translation."""
    return replay(translator, folder, source_ids, target_ids)


def replay_of_trace(translator: Translator, folder: str | Path, trace: Trace) -> tuple[Replay, Trace]:
    """The replay of a trace's own translation (cached), and a copy of the trace with its `replay` field: the trace
    itself is left as it is (the app shares one between visitors)."""
    result = cached_replay(translator, str(folder), tuple(trace.source_ids), tuple(trace.target_ids))
    return result, replace(trace, replay=result.as_trace_field())
