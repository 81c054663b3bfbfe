"""The run folder, written at every validation: the best weights, train_state.pt, the learning curve, training.json
(and, with --snapshots, the weights at the scheduled steps in snapshots/).

Only rank 0 writes. Each file is replaced in one step, so a run killed at any moment leaves a folder
that loads and resumes; the learning curve may then hold rows past the saved state, which the resumed
run drops before it repeats those steps.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import platform
import sys
import time
from pathlib import Path

import torch

from ..hub.files import replace_file
from ..hub.hub import WEIGHTS_NAME, save_checkpoint
from ..model.transformer import Transformer
from .options import TrainOptions, learning_rate
from .records import METRICS_NAME, STATE_NAME, TRAINING_NAME
from .snapshots import save_snapshot, thin_snapshots
from .state import TrainState

log = logging.getLogger(__package__ + ".train")  # every training module logs as the loop does


class Checkpointer:
    """Rank 0's writer of the run folder `out`, called at every validation of the run that started at `started`."""

    def __init__(self, out: Path, opts: TrainOptions, d_model: int, world: int, device: torch.device, started: float):
        self.out, self.opts, self.d_model = out, opts, d_model
        self.world, self.device, self.started = world, device, started

    def elapsed(self, state: TrainState) -> float:
        """Seconds of training in all: the earlier runs' and this one's so far."""
        return state.seconds + time.time() - self.started

    def row(self, state: TrainState, valid_loss: float, averaged: tuple[Transformer, float] | None, elapsed: float):
        """The learning curve's row for this validation (the mean of the last weights' score, when taken)."""
        row = dict(
            step=state.step,
            epoch=state.epoch,
            train_loss=round(state.running, 4),
            valid_loss=round(valid_loss, 4),
            valid_ppl=round(math.exp(min(valid_loss, 50)), 2),
            lr=learning_rate(state.step, self.opts, self.d_model),
            tokens=state.tokens * self.world,
            minutes=round(elapsed / 60, 2),
            seconds=round(elapsed, 2),  # the same, precise enough to time a few steps (retrain's calibration)
        )
        if averaged is not None:
            row.update(averaged=len(state.averaging), averaged_valid_loss=round(averaged[1], 4))
        return row

    def validated(
        self,
        state: TrainState,
        model: Transformer,
        optimizer: torch.optim.Optimizer,
        valid_loss: float,
        rng: dict,
        averaged: tuple[Transformer, float] | None = None,
    ) -> None:
        """Log the row, keep the weights if they (or their average) validate best, save the state to resume from."""
        elapsed = self.elapsed(state)
        row = self.row(state, valid_loss, averaged, elapsed)
        with open(self.out / METRICS_NAME, "a") as f:
            f.write(json.dumps(row) + "\n")
        if valid_loss < state.best:
            state.best = valid_loss
            save_checkpoint(self.out, model)
        if averaged is not None and averaged[1] < state.best:
            state.best = averaged[1]
            save_checkpoint(self.out, averaged[0])
            log.info(
                "step %d: the mean of the last %d validations' weights is kept (valid loss %.3f)",
                state.step,
                len(state.averaging),
                state.best,
            )
        saved = state.saved(model, optimizer, rng, seconds=elapsed)
        replace_file(self.out / STATE_NAME, lambda tmp: torch.save(saved, tmp))  # a kill mid-write keeps the last
        write_training_record(self.out, self.opts, row, self.world, self.device, run_started=self.started)
        log.info("step %d: valid loss %.3f (best %.3f)", state.step, valid_loss, state.best)

    def snapshot(self, state: TrainState, model: Transformer, valid_loss: float) -> None:
        """Keep the weights at this step of the --snapshots schedule in snapshots/ (before the state of the step is
        saved: a run resumed from that state does not take them again); a longer continued run keeps N in all."""
        save_snapshot(self.out, model, state.step, valid_loss)
        thin_snapshots(self.out, self.opts.snapshots)

    def finish(self, model: Transformer) -> None:
        """A run that never validated still leaves a checkpoint: its last weights."""
        if not (self.out / WEIGHTS_NAME).is_file():
            save_checkpoint(self.out, model)


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
