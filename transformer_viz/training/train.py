"""Training loop: label smoothing, the Noam schedule, gradient clipping, token batches (sec. 5).

Runs on one process, or unchanged under ``torchrun --nproc_per_node=N`` with
DistributedDataParallel (gloo on CPU, nccl on CUDA): every rank builds the same
model from the same seed and takes every N-th batch; DDP averages the gradients.
Rank 0 trains the tokenizer, validates and writes the checkpoint.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import hashlib
import json
import logging
import math
import os
import platform
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from tqdm.auto import tqdm

from ..hub.files import replace_file
from ..hub.hub import CONFIG_NAME, TOKENIZER_NAME, WEIGHTS_NAME, load_config, load_transformer, save_checkpoint
from ..model.config import TransformerConfig
from ..model.transformer import Transformer, resolve_device
from ..tokenizer import Tokenizer
from .data import KINDS, Pair, load_corpus, token_batches

log = logging.getLogger(__name__)
STATE_NAME = "train_state.pt"  # optimizer + progress, for --resume (not shipped)
METRICS_NAME = "metrics.jsonl"  # one line per validation: the learning curve
TRAINING_NAME = "training.json"  # how the checkpoint was made


@dataclass
class TrainOptions:
    """Everything a training run depends on; saved in training.json beside the checkpoint."""

    out: str = "checkpoints/seed000"
    preset: str = "seed000"
    vocab_size: int = 8000  # joint English+German SentencePiece vocabulary
    d_model: int = 256
    n_heads: int = 4
    n_layers: int = 3
    d_ff: int = 1024
    dropout: float = 0.1
    max_len: int = 128
    max_tokens: int = 4096  # source or target tokens per batch (per process)
    max_steps: int = 100_000
    max_minutes: float = 0.0  # stop after this wall time (0 = no limit)
    lr_factor: float = 1.0  # lrate = factor · D^-0.5 · min(step^-0.5, step · warmup^-1.5), eq. (3)
    warmup: int = 1000
    cooldown_steps: int = 0  # scale the rate linearly down to 0 over the last N of max_steps (0 = pure Noam)
    label_smoothing: float = 0.1  # ε_ls, sec. 5.4
    word_dropout: float = 0.0  # replace each source piece by <unk> with this probability while training
    average: int = 0  # keep the mean of the last N validations' weights if it validates better (sec. 6.1)
    clip: float = 1.0  # max gradient norm
    seed: int = 0
    valid_every: int = 250  # steps between validations / checkpoint writes
    device: str = "auto"
    threads: int = 0  # torch CPU threads (0 = torch's default)
    extra_tsv: str = ""  # more training pairs, english<TAB>german
    max_pairs: int = 0  # use only this many training pairs (0 = all); for quick runs
    word_pairs: int = 40_000  # single-word dictionary pairs kept (seeded sample; -1 = all of ~280k)
    kinds: str = "sentence,phrase,word"  # pair kinds trained on; "sentence" fine-tunes on sentences alone
    corpus: str = ""  # the Ding file (default: the Debian package's)
    resume: bool = False


def adam(model: torch.nn.Module) -> torch.optim.Adam:
    """Adam with β1 0.9, β2 0.98, ε 1e-9 (sec. 5.3); the rate is set at every step by eq. (3)."""
    return torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)


def noam_lr(step: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """lrate = factor · d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5), eq. (3)."""
    step = max(step, 1)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def learning_rate(step: int, opts: TrainOptions, d_model: int) -> float:
    """Eq. (3), times a linear cool-down (max_steps - step + 1) / cooldown_steps over the run's last steps."""
    rate = noam_lr(step, d_model, opts.warmup, opts.lr_factor)
    if opts.cooldown_steps and step > opts.max_steps - opts.cooldown_steps:
        rate *= max(opts.max_steps - step + 1, 0) / opts.cooldown_steps
    return rate


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


def encode_pairs(pairs: list[Pair], tokenizer: Tokenizer, max_len: int) -> list[tuple[list[int], list[int]]]:
    """(source ids + </s>, target ids + </s>), dropping pairs longer than the model can hold."""
    src = tokenizer.encode_batch([p.src for p in pairs])
    tgt = tokenizer.encode_batch([p.tgt for p in pairs])
    return [(s, t) for s, t in zip(src, tgt) if len(s) <= max_len and len(t) < max_len]


def collate(
    examples: list[tuple[list[int], list[int]]], pad: int, bos: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
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
def average_weights(snapshots: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The element-wise mean of state dicts: checkpoint averaging (sec. 6.1 averages the last 5 or 20)."""
    return {
        name: torch.stack([s[name].float() for s in snapshots]).mean(0).to(snapshots[-1][name].dtype)
        for name in snapshots[-1]
    }


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


def setup_distributed(device: torch.device) -> tuple[int, int, torch.device]:
    """(rank, world size, device); joins the process group when started by torchrun, each rank on its own GPU."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and device.type == "cuda" and device.index is None:
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return (dist.get_rank(), world, device) if world > 1 else (0, 1, device)


def prepare_tokenizer(opts: TrainOptions, out: Path, train: list[Pair], rank: int) -> Tokenizer:
    """Train a joint SentencePiece model on the training pairs (rank 0), or reuse the saved one."""
    path = out / TOKENIZER_NAME
    if rank == 0 and not (opts.resume and path.is_file()):
        out.mkdir(parents=True, exist_ok=True)
        texts = [p.src for p in train] + [p.tgt for p in train]
        Tokenizer.train(texts, path, vocab_size=opts.vocab_size)
    if dist.is_initialized():
        dist.barrier()
    return Tokenizer.load(path)


def train(opts: TrainOptions) -> Path:
    """Train a model per `opts` and write the checkpoint folder `opts.out`; returns it."""
    if not 0.0 <= opts.word_dropout < 1.0:
        raise ValueError(f"word_dropout must be a probability in [0, 1), got {opts.word_dropout}")
    if opts.average < 0:
        raise ValueError(f"average must be a number of validations (0 = off), got {opts.average}")
    for name in ("valid_every", "warmup", "max_tokens"):
        if getattr(opts, name) < 1:
            raise ValueError(f"{name} must be at least 1, got {getattr(opts, name)}")
    started = time.time()
    out = Path(opts.out)
    state_file = out / STATE_NAME
    resumable = (
        opts.resume
        and (out / CONFIG_NAME).is_file()
        and (state_file.is_file() or ((out / WEIGHTS_NAME).is_file() and (out / TRAINING_NAME).is_file()))
    )
    if not opts.resume and any((out / name).exists() for name in (METRICS_NAME, STATE_NAME, WEIGHTS_NAME)):
        raise FileExistsError(
            f"{out} already holds a training run; pass --resume to continue it, or choose another --out"
        )
    device = resolve_device(opts.device)
    joined = not dist.is_initialized()  # a process group this run opens, it also closes
    rank, world, device = setup_distributed(device)
    if opts.threads:
        torch.set_num_threads(opts.threads)
    random.seed(opts.seed)
    torch.manual_seed(opts.seed)

    splits = load_corpus(opts.corpus or None, seed=opts.seed, extra_tsv=opts.extra_tsv or None)
    train_pairs = mix_kinds(splits.train, opts.word_pairs, opts.seed, opts.kinds)
    train_pairs = train_pairs[: opts.max_pairs] if opts.max_pairs else train_pairs
    tokenizer = prepare_tokenizer(opts, out, train_pairs, rank)
    # A continued checkpoint keeps the architecture it was trained with, whatever the options say now.
    config = (
        load_config(out)
        if resumable
        else TransformerConfig.preset(
            opts.preset,
            src_vocab_size=tokenizer.vocab_size,
            tgt_vocab_size=tokenizer.vocab_size,
            d_model=opts.d_model,
            n_heads=opts.n_heads,
            n_layers=opts.n_layers,
            d_ff=opts.d_ff,
            dropout=opts.dropout,
            max_len=opts.max_len,
            share_embeddings=True,
            tie_embeddings=True,
        )
    )
    train_ex = encode_pairs(train_pairs, tokenizer, config.max_len)
    valid_ex = encode_pairs(splits.valid, tokenizer, config.max_len)
    valid_batches = token_batches([(len(s), len(t)) for s, t in valid_ex], opts.max_tokens, shuffle=False)
    lengths = [(len(s), len(t)) for s, t in train_ex]
    data = data_digest(lengths, opts.max_tokens)  # what a saved batch position refers to

    # the last validations' weights (--average > 1), on the CPU
    snapshots: collections.deque = collections.deque(maxlen=max(opts.average, 1))
    step, epoch, position, best, tokens_seen, trained_seconds = 0, 0, 0, math.inf, 0, 0.0
    running = math.nan  # the training loss, smoothed over ~50 steps
    if resumable and not state_file.is_file():
        # No optimizer state (it is not shipped): continue from the shipped weights with fresh Adam moments.
        model = load_transformer(out, device).train()
        history = (
            [json.loads(line) for line in (out / METRICS_NAME).read_text().splitlines()]
            if (out / METRICS_NAME).is_file()
            else []
        )
        last = json.loads((out / TRAINING_NAME).read_text())["last"]
        # the saved weights are the best validated ones (or their average): a later validation must beat those
        best = min(
            [last["valid_loss"]] + [r[k] for r in history for k in ("valid_loss", "averaged_valid_loss") if k in r]
        )
        step, epoch = last["step"], last["epoch"] + 1
        tokens_seen, trained_seconds = last["tokens"] // world, last["minutes"] * 60  # `tokens` counts every rank's
        log.info("continuing %s from its weights at step %d (optimizer state restarts)", out, step)
    else:
        model = Transformer(config).to(device)
    torch.manual_seed(opts.seed + rank)  # same initial weights on every rank, but each rank its own dropout masks
    optimizer = adam(model)
    if resumable and state_file.is_file():
        state = torch.load(state_file, map_location=device, weights_only=True)  # tensors and numbers only
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step, epoch, position, best = state["step"], state["epoch"], state["position"], state["best"]
        if state.get("data") != data:  # other --kinds, corpus or batch size
            epoch, position = epoch + 1, 0  # the saved position counts batches of other data: a new epoch
            log.info("the training data differ from the interrupted run's: a new epoch starts")
        tokens_seen, trained_seconds = state["tokens"], state["seconds"]
        restore_rng(state, rank, device)
        snapshots.extend(state.get("snapshots", []))
        if rank == 0:
            forget_metrics_after(out / METRICS_NAME, step)
        running = state.get("running", math.nan)
        log.info("resumed %s at step %d (epoch %d)", out, step, epoch)
    net = DistributedDataParallel(model) if world > 1 else model
    model.train()
    pad, bos = config.pad_id, config.bos_id
    if rank == 0:
        log.info(
            "%s: %s parameters, %d training pairs, %d validation pairs, %d processes on %s",
            opts.preset,
            f"{model.num_parameters():,}",
            len(train_ex),
            len(valid_ex),
            world,
            device,
        )

    def averaged_model(final: bool) -> tuple[Transformer, float] | None:
        """Keep this validation's weights; at the run's end, their mean over the last `average` and its loss."""
        snapshots.append({k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()})
        if not final or len(snapshots) < 2:
            return None
        mean = copy.deepcopy(model)
        mean.load_state_dict(average_weights(list(snapshots)))
        return mean, validation_loss(mean, valid_ex, valid_batches, pad, bos, device)

    def checkpoint(valid_loss: float, rng: dict, averaged: tuple[Transformer, float] | None = None) -> None:
        nonlocal best
        elapsed = trained_seconds + time.time() - started
        record = dict(
            step=step,
            epoch=epoch,
            train_loss=round(running, 4),
            valid_loss=round(valid_loss, 4),
            valid_ppl=round(math.exp(min(valid_loss, 50)), 2),
            lr=learning_rate(step, opts, config.d_model),
            tokens=tokens_seen * world,
            minutes=round(elapsed / 60, 2),
        )
        if averaged is not None:
            record.update(averaged=len(snapshots), averaged_valid_loss=round(averaged[1], 4))
        with open(out / METRICS_NAME, "a") as f:
            f.write(json.dumps(record) + "\n")
        if valid_loss < best:
            best = valid_loss
            save_checkpoint(out, model)
        if averaged is not None and averaged[1] < best:
            best = averaged[1]
            save_checkpoint(out, averaged[0])
            log.info(
                "step %d: the mean of the last %d validations' weights is kept (valid loss %.3f)",
                step,
                len(snapshots),
                best,
            )
        state = dict(
            model=model.state_dict(),
            optimizer=optimizer.state_dict(),
            step=step,
            epoch=epoch,
            position=position,
            best=best,
            tokens=tokens_seen,
            seconds=elapsed,
            snapshots=list(snapshots),
            data=data,
            running=running,
            **rng,
        )
        replace_file(state_file, lambda tmp: torch.save(state, tmp))  # a kill mid-write keeps the last state
        write_training_record(out, opts, record, world, device, run_started=started)
        log.info("step %d: valid loss %.3f (best %.3f)", step, valid_loss, best)

    deadline = started + opts.max_minutes * 60 if opts.max_minutes else math.inf
    bar = tqdm(total=opts.max_steps, initial=step, disable=rank != 0, desc=f"train {opts.preset}", unit="step")
    window_tokens, window_start = 0, time.time()
    stopped = False
    while step < opts.max_steps and not stopped:
        batches = token_batches(lengths, opts.max_tokens, shuffle=True, seed=opts.seed + epoch)
        batches = batches[: len(batches) - len(batches) % world][rank::world]  # an equal share per rank
        if not batches:
            raise ValueError(
                f"{len(train_ex)} training pairs make fewer batches than the {world} processes; use more data"
            )
        for batch in batches[position:]:
            src, tgt_in, labels = (x.to(device) for x in collate([train_ex[i] for i in batch], pad, bos))
            src = source_word_dropout(src, opts.word_dropout, config.unk_id, pad)
            step += 1
            position += 1
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, opts, config.d_model)
            loss, n_tokens = batch_loss(net, src, tgt_in, labels, pad, opts.label_smoothing)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), opts.clip)
            optimizer.step()
            tokens_seen += n_tokens
            window_tokens += n_tokens
            value = float(loss.detach())
            running = value if math.isnan(running) else 0.98 * running + 0.02 * value
            bar.update(1)
            if step % 10 == 0:
                rate = window_tokens * world / max(time.time() - window_start, 1e-9)
                bar.set_postfix(loss=f"{running:.3f}", tok_s=f"{rate:,.0f}", epoch=epoch)
                window_tokens, window_start = 0, time.time()
            last = all_ranks_agree(step >= opts.max_steps or time.time() >= deadline, device)
            if step % opts.valid_every == 0 or last:
                rng = rng_states(rank, world, device)  # every rank's, before validation draws anything
                if rank == 0:
                    valid_loss = validation_loss(model, valid_ex, valid_batches, pad, bos, device)
                    checkpoint(valid_loss, rng, averaged_model(last) if opts.average > 1 else None)
                if dist.is_initialized():
                    dist.barrier()
            if last:
                stopped = True
                break
        else:
            epoch, position = epoch + 1, 0
    bar.close()
    if rank == 0 and not (out / WEIGHTS_NAME).is_file():
        save_checkpoint(out, model)
    log.info("rank %d of %d: final weights sha256 %s", rank, world, weights_digest(model.state_dict()))
    if joined and dist.is_initialized():
        dist.destroy_process_group()
    return out


def rng_states(rank: int, world: int, device: torch.device) -> dict:
    """Every rank's random state (rank 0 receives them all), so that --resume draws the dropout masks an
    uninterrupted run would have drawn: {"rng": [per rank], "cuda_rng": [per rank] on CUDA}."""
    mine = {"rng": torch.get_rng_state()}
    if device.type == "cuda":
        mine["cuda_rng"] = torch.cuda.get_rng_state(device)
    every = [mine]
    if dist.is_initialized():
        every = [None] * world if rank == 0 else None
        dist.gather_object(mine, every, dst=0)
    return {} if rank else {key: [state[key] for state in every] for key in mine}


def restore_rng(state: dict, rank: int, device: torch.device) -> None:
    """Set this rank's random state from a train_state (a list per rank; older states hold rank 0's alone)."""
    for key, setter in (
        ("rng", torch.set_rng_state),
        ("cuda_rng", lambda s: torch.cuda.set_rng_state(s, device) if device.type == "cuda" else None),
    ):
        saved = state.get(key)
        if isinstance(saved, torch.Tensor):
            saved = [saved]
        if saved and rank < len(saved):
            setter(saved[rank].cpu())


def forget_metrics_after(path: Path, step: int) -> None:
    """Drop the learning-curve rows after `step`: a run killed between writing its row and its state repeats
    those steps when resumed, and would log them twice."""
    if not path.is_file():
        return
    lines = path.read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["step"] <= step]
    if len(kept) < len(lines):
        replace_file(path, lambda tmp: tmp.write_text("".join(line + "\n" for line in kept)))
        log.info("dropped %d learning-curve rows after step %d, which this run repeats", len(lines) - len(kept), step)


def data_digest(lengths: list[tuple[int, int]], max_tokens: int) -> str:
    """What a resumed run's batch position refers to: the training pairs' lengths, in order, and the batch size."""
    return hashlib.sha256(json.dumps([max_tokens, lengths]).encode()).hexdigest()


def all_ranks_agree(flag: bool, device: torch.device) -> bool:
    """True on every rank if it is True on any: ranks that stop at different steps would wait forever in DDP."""
    if not dist.is_initialized():
        return flag
    flags = torch.tensor([float(flag)], device=device)
    dist.all_reduce(flags, op=dist.ReduceOp.MAX)
    return bool(flags.item())


def weights_digest(state: dict[str, torch.Tensor]) -> str:
    """SHA-256 of a state dict's names, shapes and bytes: equal digests mean bit-identical weights."""
    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().to("cpu").contiguous()
        digest.update(f"{name} {tuple(tensor.shape)} {tensor.dtype}".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def write_training_record(
    out: Path, opts: TrainOptions, last: dict, world: int, device: torch.device, run_started: float | None = None
) -> None:
    """training.json: the options, the command, the hardware, where training stopped, and every run so far.

    `runs` lists each command that trained these weights (the first, then each --resume) with the step
    and cumulative minutes it stopped at, so the card can say exactly how to reproduce the checkpoint.
    """
    command = " ".join(["python -m transformer_viz"] + sys.argv[1:])
    path = out / TRAINING_NAME
    previous = json.loads(path.read_text()) if opts.resume and path.is_file() else {}
    runs = previous.get("runs")
    if runs is None and previous.get("command"):  # a record written before runs were kept: its last run
        runs = [dict(command=previous["command"], step=previous["last"]["step"], minutes=previous["last"]["minutes"])]
    runs = [r for r in runs or [] if run_started is None or r.get("started") != run_started]  # this run: replace
    runs.append(
        dict(
            command=command,
            step=last["step"],
            minutes=last["minutes"],
            started=run_started,
            device=str(device),
            processes=world,
        )
    )
    record = dict(
        options=dataclasses.asdict(opts),
        command=command,
        processes=world,
        device=str(device),
        cpu=platform.processor() or platform.machine(),
        cpu_count=os.cpu_count(),
        torch=torch.__version__,
        threads=torch.get_num_threads(),
        last=last,
        runs=runs,
    )
    replace_file(path, lambda tmp: tmp.write_text(json.dumps(record, indent=2) + "\n"))
