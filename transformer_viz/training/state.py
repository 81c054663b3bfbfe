"""Where a run stands (TrainState), and the one way to go on from a run folder: `resume`.

A folder goes on from its train_state.pt (weights, Adam moments, batch position, random states: bit
for bit the run that was never stopped), or, when only the shipped files are there, from its weights
and training.json with fresh Adam moments at the start of a new epoch.
"""

from __future__ import annotations

import collections
import hashlib
import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..hub.hub import CONFIG_NAME, WEIGHTS_NAME
from ..hub.model import load_transformer
from ..model.config import TransformerConfig
from ..model.transformer import Transformer
from .distributed import restore_rng
from .options import TrainOptions, adam
from .records import METRICS_NAME, STATE_NAME, TRAINING_NAME, forget_metrics_after
from .snapshots import forget_snapshots_after

log = logging.getLogger(__package__ + ".train")


@dataclass
class TrainState:
    """Everything a run changes as it trains, besides the weights and the optimizer: what --resume restores."""

    step: int = 0
    epoch: int = 0
    position: int = 0  # batches of this epoch this rank has trained on
    best: float = math.inf  # the lowest validation loss, whose weights model.safetensors holds
    tokens: int = 0  # target tokens this rank has trained on
    seconds: float = 0.0  # training time before this run
    running: float = math.nan  # the training loss, smoothed over ~50 steps
    averaging: collections.deque = field(default_factory=collections.deque)  # last validations' weights, on the CPU
    data: str = ""  # digest of the training data that `position` counts batches of
    pending: list = field(default_factory=list)  # losses of the steps since `running` was last read, on the device

    def read_losses(self) -> float:
        """`running`, with the pending losses folded in: one read from the device for them all, not one a step
        (each read waits for the device to finish, and a GPU then idles while the next batch is made)."""
        if self.pending:
            for value in torch.stack(self.pending).tolist():
                self.running = value if math.isnan(self.running) else 0.98 * self.running + 0.02 * value
            self.pending.clear()
        return self.running

    def saved(self, model: Transformer, optimizer: torch.optim.Optimizer, rng: dict, seconds: float) -> dict:
        """The contents of train_state.pt: tensors and numbers only, so that it loads with weights_only=True."""
        return dict(
            model=model.state_dict(),
            optimizer=optimizer.state_dict(),
            step=self.step,
            epoch=self.epoch,
            position=self.position,
            best=self.best,
            tokens=self.tokens,
            seconds=seconds,
            snapshots=list(self.averaging),
            data=self.data,
            running=self.running,
            **rng,
        )

    def restore(self, saved: dict) -> None:
        """Go on from a train_state.pt; a saved position over other data (--kinds, corpus, batch size) is void."""
        self.step, self.epoch, self.position, self.best = (
            saved["step"],
            saved["epoch"],
            saved["position"],
            saved["best"],
        )
        if saved.get("data") != self.data:
            self.epoch, self.position = self.epoch + 1, 0  # the saved position counts batches of other data
            log.info("the training data differ from the interrupted run's: a new epoch starts")
        self.tokens, self.seconds = saved["tokens"], saved["seconds"]
        self.averaging.extend(saved.get("snapshots", []))
        self.running = saved.get("running", math.nan)

    def restore_from_record(self, out: Path, world: int) -> None:
        """Go on from shipped weights: training.json says where they stopped, metrics.jsonl what they must beat."""
        history = (
            [json.loads(line) for line in (out / METRICS_NAME).read_text().splitlines()]
            if (out / METRICS_NAME).is_file()
            else []
        )
        last = json.loads((out / TRAINING_NAME).read_text())["last"]
        # the saved weights are the best validated ones (or their average): a later validation must beat those
        self.best = min(
            [last["valid_loss"]] + [r[k] for r in history for k in ("valid_loss", "averaged_valid_loss") if k in r]
        )
        self.step, self.epoch = last["step"], last["epoch"] + 1
        self.tokens, self.seconds = last["tokens"] // world, last["minutes"] * 60  # `tokens` counts every rank's


def can_resume(opts: TrainOptions, out: Path) -> bool:
    """--resume, and `out` holds a config with a saved state, or with shipped weights and their training.json."""
    shipped = (out / WEIGHTS_NAME).is_file() and (out / TRAINING_NAME).is_file()
    return opts.resume and (out / CONFIG_NAME).is_file() and ((out / STATE_NAME).is_file() or shipped)


def refuse_used_folder(opts: TrainOptions, out: Path) -> None:
    """A new run must not overwrite another's checkpoint or interleave its learning curve with it."""
    if not opts.resume and any((out / name).exists() for name in (METRICS_NAME, STATE_NAME, WEIGHTS_NAME)):
        raise FileExistsError(
            f"{out} already holds a training run; pass --resume to continue it, or choose another --out"
        )


def resume(
    opts: TrainOptions, out: Path, config: TransformerConfig, data: str, rank: int, device: torch.device, world: int
) -> tuple[Transformer, torch.optim.Adam, TrainState]:
    """The model, its optimizer and the state to start from: a new run's, the folder's saved state, or its weights.

    Every rank builds the same initial weights from the run's seed, then seeds its own dropout masks.
    """
    state = TrainState(averaging=collections.deque(maxlen=max(opts.average, 1)), data=data)
    resumable, saved_file = can_resume(opts, out), out / STATE_NAME
    if resumable and not saved_file.is_file():
        # No optimizer state (it is not shipped): continue from the shipped weights with fresh Adam moments.
        model = load_transformer(out, device).train()
        state.restore_from_record(out, world)
        log.info("continuing %s from its weights at step %d (optimizer state restarts)", out, state.step)
    else:
        model = Transformer(config).to(device)
    torch.manual_seed(opts.seed + rank)  # same initial weights on every rank, but each rank its own dropout masks
    optimizer = adam(model)
    if resumable and saved_file.is_file():
        saved = torch.load(saved_file, map_location=device, weights_only=True)  # tensors and numbers only
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state.restore(saved)
        restore_rng(saved, rank, device)
        if rank == 0:
            forget_metrics_after(out / METRICS_NAME, state.step)
        log.info("resumed %s at step %d (epoch %d)", out, state.step, state.epoch)
    if rank == 0:
        forget_snapshots_after(out, state.step)  # a new run keeps none; a resumed one those it will not repeat
    return model, optimizer, state


@torch.no_grad()
def average_weights(snapshots: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The element-wise mean of state dicts: checkpoint averaging (sec. 6.1 averages the last 5 or 20)."""
    return {
        name: torch.stack([s[name].float() for s in snapshots]).mean(0).to(snapshots[-1][name].dtype)
        for name in snapshots[-1]
    }


def weights_digest(state: dict[str, torch.Tensor]) -> str:
    """SHA-256 of a state dict's names, shapes and bytes: equal digests mean bit-identical weights."""
    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().to("cpu").contiguous()
        digest.update(f"{name} {tuple(tensor.shape)} {tensor.dtype}".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()
