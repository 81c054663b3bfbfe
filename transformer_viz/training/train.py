"""Training loop: label smoothing, the Noam schedule, gradient clipping, token batches (sec. 5).

Runs on one process, or unchanged under ``torchrun --nproc_per_node=N`` with
DistributedDataParallel (gloo on CPU, nccl on CUDA): every rank builds the same
model from the same seed and takes every N-th batch; DDP averages the gradients.
Rank 0 trains the tokenizer, validates and writes the checkpoint.
"""

from __future__ import annotations

import copy
import logging
import math
import random
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from tqdm.auto import tqdm

from ..corpus.build import load_corpus_pairs
from ..corpus.pairs import Pair, Splits, load_corpus, oriented
from ..hub.hub import TOKENIZER_NAME, load_config
from ..model.config import TransformerConfig
from ..model.transformer import Transformer, resolve_device
from ..tokenizer import Tokenizer
from .batches import (
    TrainingData,
    batch_loss,
    collate,
    data_digest,
    encode_pairs,
    limit_synthetic,
    mix_kinds,
    source_word_dropout,
    token_batches,
    validation_loss,
)
from .checkpointer import Checkpointer
from .distributed import all_ranks_agree, barrier, rng_states, setup_distributed
from .options import TrainOptions, adam, learning_rate, native_bf16, noam_lr, uses_bf16
from .records import METRICS_NAME, STATE_NAME, TRAINING_NAME
from .snapshots import snapshot_steps
from .state import TrainState, average_weights, can_resume, refuse_used_folder, resume, weights_digest
from .throughput import mfu, peak_flops, train_flops_per_target_token

log = logging.getLogger(__name__)
__all__ = [  # the training API, wherever each piece lives
    "METRICS_NAME",
    "STATE_NAME",
    "TRAINING_NAME",
    "TrainOptions",
    "TrainState",
    "adam",
    "average_weights",
    "collate",
    "data_digest",
    "encode_pairs",
    "learning_rate",
    "mix_kinds",
    "noam_lr",
    "source_word_dropout",
    "train",
    "validation_loss",
    "weights_digest",
]


def train(opts: TrainOptions) -> Path:
    """Train a model per `opts` and write the checkpoint folder `opts.out`; returns it."""
    opts.check()
    started, out = time.time(), Path(opts.out)
    refuse_used_folder(opts, out)
    joined = not dist.is_initialized()  # a process group this run opens, it also closes
    rank, world, device = setup_distributed(resolve_device(opts.device))
    if opts.threads:
        torch.set_num_threads(opts.threads)
    random.seed(opts.seed)
    torch.manual_seed(opts.seed)

    splits = load_corpus(opts.corpus or None, seed=opts.seed, extra_tsv=opts.extra_tsv or None)
    ding = limit_synthetic(splits.train, opts.synthetic_pairs, opts.seed)
    pairs = mix_kinds(ding + debian_pairs(opts, splits), opts.word_pairs, opts.seed, opts.kinds)
    pairs = oriented(pairs[: opts.max_pairs or None], opts.direction)  # de-en: German sources, English targets
    valid = oriented(splits.valid, opts.direction)
    tokenizer = prepare_tokenizer(opts, out, pairs, rank)
    if rank == 0 and opts.debian_corpus:
        copy_attribution(Path(opts.debian_corpus), out)
    # A continued checkpoint keeps the architecture it was trained with, whatever the options say now.
    config = load_config(out) if can_resume(opts, out) else opts.model_config(tokenizer.vocab_size)
    data = TrainingData.encode(pairs, valid, tokenizer, config.max_len, opts.max_tokens)
    model, optimizer, state = resume(opts, out, config, data.digest, rank, device, world)
    checkpointer = Checkpointer(out, opts, config.d_model, world, device, started)
    run = Run(opts, config, data, model, optimizer, rank, world, device, checkpointer)
    run.announce()

    progress = Progress(run, state.step)
    deadline = started + opts.max_minutes * 60 if opts.max_minutes else math.inf
    while state.step < opts.end_step and not train_epoch(run, state, progress, deadline):
        state.epoch, state.position = state.epoch + 1, 0
    progress.close()
    if rank == 0:
        run.checkpointer.finish(model)
    log.info("rank %d of %d: final weights sha256 %s", rank, world, weights_digest(model.state_dict()))
    if joined and dist.is_initialized():
        dist.destroy_process_group()
    return out


@dataclass
class Run:
    """What stays fixed while a run trains: its options, data and model, and where it writes."""

    opts: TrainOptions
    config: TransformerConfig
    data: TrainingData
    model: Transformer
    optimizer: torch.optim.Optimizer
    rank: int
    world: int
    device: torch.device
    checkpointer: Checkpointer
    net: torch.nn.Module = field(init=False)  # the model, or its DDP wrapper that averages the gradients
    snapshot_steps: set[int] = field(init=False)
    bf16: bool = field(init=False)  # the products in bfloat16 under autocast (the precision option, resolved)

    def __post_init__(self) -> None:
        self.net = DistributedDataParallel(self.model) if self.world > 1 else self.model
        self.model.train()
        self.snapshot_steps = set(snapshot_steps(self.opts.snapshots, self.opts.valid_every, self.opts.max_steps))
        self.bf16 = uses_bf16(self.opts.precision, self.device)

    def announce(self) -> None:
        if self.rank == 0:
            log.info(
                "%s: %s parameters, %d training pairs, %d validation pairs, %d processes on %s",
                self.opts.preset,
                f"{self.model.num_parameters():,}",
                len(self.data.train),
                len(self.data.valid),
                self.world,
                self.device,
            )
            if self.bf16 and not native_bf16(self.device):
                log.warning(
                    "--precision bf16 on %s, which has no bfloat16 arithmetic: each product is emulated, "
                    "several times slower than fp32 (--precision auto picks fp32 here)",
                    self.device,
                )
            log.info("matrix products in %s", "bfloat16 (autocast)" if self.bf16 else "fp32")

    def validation_loss(self, model: Transformer) -> float:
        """Per-token NLL of `model` on the validation pairs."""
        pad, bos = self.config.pad_id, self.config.bos_id
        return validation_loss(model, self.data.valid, self.data.valid_batches, pad, bos, self.device)


def debian_pairs(opts: TrainOptions, splits: Splits) -> list[Pair]:
    """The training pairs of the built Debian corpus that the options name; Ding's valid and test texts held out."""
    if not opts.debian_corpus:
        return []
    sources = [name.strip() for name in opts.debian_sources.split(",") if name.strip()] or None
    return load_corpus_pairs(opts.debian_corpus, sources, held_out=splits.valid + splits.test)


def train_epoch(run: Run, state: TrainState, progress: Progress, deadline: float) -> bool:
    """This rank's share of epoch `state.epoch`'s shuffled batches, from `state.position` on; True if the run ends."""
    opts, world = run.opts, run.world
    batches = token_batches(run.data.lengths, opts.max_tokens, shuffle=True, seed=opts.seed + state.epoch)
    batches = batches[: len(batches) - len(batches) % world][run.rank :: world]  # an equal share per rank
    if not batches:
        raise ValueError(
            f"{len(run.data.train)} training pairs make fewer batches than the {world} processes; use more data"
        )
    for batch in batches[state.position :]:
        progress.update(state, train_step(run, state, batch))
        last = all_ranks_agree(state.step >= opts.end_step or time.time() >= deadline, run.device)
        after_step(run, state, last)
        if last:
            return True
    return False


def train_step(run: Run, state: TrainState, batch: list[int]) -> int:
    """One update on a batch: eq. (3)'s rate, label-smoothed loss, clipped gradients, Adam; returns its tokens.

    Nothing here waits for the device: the batch is made on the host (PackedExamples) and copied without blocking,
    its token count is the host's, and the loss stays on the device until it is read (TrainState.read_losses), so
    a GPU runs this step while the host makes the next batch.
    """
    opts, config = run.opts, run.config
    pad = config.pad_id
    src, tgt_in, labels = (to_device(x, run.device) for x in run.data.packed.batch(batch, pad, config.bos_id))
    src = source_word_dropout(src, opts.word_dropout, config.unk_id, pad)
    state.step += 1
    state.position += 1
    for group in run.optimizer.param_groups:
        group["lr"] = learning_rate(state.step, opts, config.d_model)
    with torch.autocast(run.device.type, dtype=torch.bfloat16, enabled=run.bf16):
        loss, _ = batch_loss(run.net, src, tgt_in, labels, pad, opts.label_smoothing, count=False)
    run.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(run.model.parameters(), opts.clip)
    run.optimizer.step()
    n_tokens = run.data.packed.target_tokens(batch)
    state.tokens += n_tokens
    state.pending.append(loss.detach())
    return n_tokens


def to_device(batch: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A host tensor on `device`; to a GPU from pinned memory without waiting (nanoGPT's get_batch)."""
    if device.type == "cuda":
        return batch.pin_memory().to(device, non_blocking=True)
    return batch.to(device)


def after_step(run: Run, state: TrainState, last: bool) -> None:
    """Every `valid_every` steps and at the end, validate and checkpoint; at a snapshot step, keep the weights."""
    validating = state.step % run.opts.valid_every == 0 or last
    snapshot = state.step in run.snapshot_steps
    if not (validating or snapshot):
        return
    rng = rng_states(run.rank, run.world, run.device) if validating else {}  # every rank's, before validation
    state.read_losses()  # the checkpoint records the smoothed training loss
    if run.rank == 0:
        valid_loss = run.validation_loss(run.model)
        if snapshot:
            run.checkpointer.snapshot(state, run.model, valid_loss)
        if validating:
            averaged = averaged_model(run, state, final=last) if run.opts.average > 1 else None
            run.checkpointer.validated(state, run.model, run.optimizer, valid_loss, rng, averaged)
    barrier()


def averaged_model(run: Run, state: TrainState, final: bool) -> tuple[Transformer, float] | None:
    """Keep this validation's weights; at the run's end, their mean over the last `average` and its loss."""
    state.averaging.append({k: v.detach().to("cpu", copy=True) for k, v in run.model.state_dict().items()})
    if not final or len(state.averaging) < 2:
        return None
    mean = copy.deepcopy(run.model)
    mean.load_state_dict(average_weights(list(state.averaging)))
    return mean, run.validation_loss(mean)


class Progress:
    """The tqdm bar of rank 0: steps, the smoothed loss, target tokens per second over the last LOG_EVERY steps,
    the model FLOPs utilization where the device's peak is known (throughput.py), the epoch."""

    LOG_EVERY = 10  # steps between readings of the loss (each waits for the device) and of the rate

    def __init__(self, run: Run, step: int):
        opts = run.opts
        self.bar = tqdm(
            total=opts.max_steps, initial=step, disable=run.rank != 0, desc=f"train {opts.preset}", unit="step"
        )
        self.world, self.tokens, self.since = run.world, 0, time.time()
        packed = run.data.packed
        ratio = float(packed.src_len.sum()) / max(float(packed.tgt_len.sum()), 1.0)  # source tokens per target
        self.flops_per_token = train_flops_per_target_token(run.config, ratio)
        self.peak = peak_flops(run.device, run.bf16)

    def update(self, state: TrainState, n_tokens: int) -> None:
        self.tokens += n_tokens
        self.bar.update(1)
        if state.step % self.LOG_EVERY == 0:
            rate = self.tokens * self.world / max(time.time() - self.since, 1e-9)
            shown = dict(loss=f"{state.read_losses():.3f}", tok_s=f"{rate:,.0f}", epoch=state.epoch)
            utilization = mfu(rate, self.flops_per_token, self.peak)
            if utilization is not None:
                shown["mfu"] = f"{100 * utilization:.1f}%"
            self.bar.set_postfix(**shown)
            self.tokens, self.since = 0, time.time()

    def close(self) -> None:
        self.bar.close()


def copy_attribution(corpus: Path, out: Path) -> None:
    """The corpus's credits travel with the weights trained on it (the model card shows them)."""
    from ..corpus.build import ATTRIBUTION
    from ..hub.card import ATTRIBUTION_NAME

    if (corpus / ATTRIBUTION).is_file():
        shutil.copyfile(corpus / ATTRIBUTION, out / ATTRIBUTION_NAME)


def prepare_tokenizer(opts: TrainOptions, out: Path, train: list[Pair], rank: int) -> Tokenizer:
    """Train a joint SentencePiece model on the training pairs (rank 0), or reuse the saved one."""
    path = out / TOKENIZER_NAME
    if rank == 0 and not (opts.resume and path.is_file()):
        out.mkdir(parents=True, exist_ok=True)
        texts = [p.src for p in train] + [p.tgt for p in train]
        Tokenizer.train(texts, path, vocab_size=opts.vocab_size)
    barrier()
    return Tokenizer.load(path)
