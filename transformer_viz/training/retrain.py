"""A few minutes of a device turned into checkpoints: presets × recipes trained side by side within a budget.

    python -m transformer_viz retrain --minutes 12 --out runs/retrain [train options]

Each run (one preset on one data recipe) is a `train` of its own, in its own process, all started together (one
GPU each where there are several). A run first trains `calibration` steps to measure its own speed, then plans as
many steps as the budget has room for at that speed (less a second process's start and the margin), the last
`cooldown` share of them cooling the rate down, so that the cool-down ends inside the budget; and trains to the
planned step whatever the speed then: on a machine slower or busier than its calibration saw, the run ends late
by as much, instead of stopping before its cool-down is done. Every run is then scored greedily on the everyday
set, the Ding test split and the sentences of `own_test` if given; summary.json holds the table, and the best run of
each preset is copied into ready/<preset> with its snapshots and card, ready to become checkpoints/<preset>. Run it
again with the same out to go on where it stopped: a run keeps the plan it made, and `train --resume` goes on from
its saved state.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..corpus.build import DEFAULT_CACHE, DEFAULT_OUT
from ..corpus.ding import Pair
from ..hub.card import ATTRIBUTION_NAME
from ..hub.hub import CARD_NAME, CHECKPOINT_FILES, CHECKPOINTS_DIR, RECORD_FILES, SNAPSHOTS_DIR, TOKENIZER_NAME
from .mixtures import EVERYTHING, RECIPES, Recipe, reached
from .options import TrainOptions
from .records import METRICS_NAME, TRAINING_NAME

log = logging.getLogger(__name__)
SUMMARY_NAME, PLAN_NAME, LOG_NAME = "summary.json", "plan.json", "train.log"
READY_DIR, PACK_DIR = "ready", "pack"
# The shipped d256 models' recipe (docs/training.md, "The shipped models"); a flag given to retrain overrides each.
SHIPPED = dict(
    d_model=256,
    n_heads=4,
    n_layers=3,
    d_ff=1024,
    vocab_size=8000,
    max_tokens=12_000,
    warmup=1500,
    valid_every=500,
    snapshots=5,
    average=5,
    precision="auto",
)
REFERENCE_TOKENS = 12_000  # the batch size the shipped warm-up and rate were chosen for
clock = time.monotonic  # what the budget's seconds are read from (a test stops it: the plan then sees no time pass)


@dataclass
class RetrainOptions:
    """What `retrain` spends and on what; `base` holds the train options every run shares."""

    out: Path = Path("runs/retrain")
    minutes: float = 12.0  # the training's time budget, from the start: calibration, then each run's planned steps
    presets: tuple[str, ...] = ("seed000", "seed004")
    recipes: tuple[str, ...] = ("ding+dialogue",)
    calibration: int = 200  # steps each run trains first to measure its speed
    cooldown: float = 0.3  # the share of each run's steps that cools the rate down to zero
    margin: float = 0.1  # the share of the time left (after the second leg's start) kept back for a slower patch
    corpus: Path = DEFAULT_OUT  # the built Debian corpus the recipes draw on
    cache: Path = DEFAULT_CACHE  # holds the everyday set's wheel
    own_test: Path | None = None  # english<TAB>german lines of one's own, scored beside the everyday set
    card: bool = True  # evaluate the ready folders (greedy and beam 4 on the Ding test, the card, the curve)
    pack_mb: float = 0.0  # also pack each ready folder into parts of at most this many MB (0 = no)
    base: TrainOptions = field(default_factory=TrainOptions)


def single_phase(name: str) -> Recipe:
    """The recipe called `name`; only recipes of one phase (one data mixture all along) can be retrained."""
    recipe = next((r for r in RECIPES if r.name == name), None)
    if recipe is None or len(recipe.phases) != 1:
        choices = ", ".join(r.name for r in RECIPES if len(r.phases) == 1)
        raise ValueError(f"retrain trains one-phase recipes ({choices}); got {name!r}")
    return recipe


def scaled_schedule(base: TrainOptions) -> TrainOptions:
    """A larger batch takes a larger step: Adam's rate × √(batch / REFERENCE_TOKENS), and the warm-up over the
    same number of tokens (fewer steps); the reference batch keeps the options as they are."""
    ratio = base.max_tokens / REFERENCE_TOKENS
    if ratio == 1:
        return base
    return dataclasses.replace(
        base, lr_factor=base.lr_factor * math.sqrt(ratio), warmup=max(1, round(base.warmup / ratio))
    )


def run_options(opts: RetrainOptions, preset: str, recipe: Recipe, device: str, threads: int) -> TrainOptions:
    """The train options of one run: the shared base, the preset, the recipe's data, its own folder and device."""
    phase = recipe.phases[0]
    sources = "" if phase.sources == EVERYTHING else ",".join(phase.sources)
    return dataclasses.replace(
        scaled_schedule(opts.base),
        out=str(opts.out / preset / recipe.name),
        preset=preset,
        debian_corpus=str(opts.corpus) if phase.sources else "",
        debian_sources=sources,
        kinds=phase.kinds,
        device=device,
        threads=opts.base.threads or threads,
        resume=True,
    )


def train_command(options: TrainOptions) -> list[str]:
    """`python -m transformer_viz -v train --out … --preset …` and every other option that differs from its
    TrainOptions default."""
    defaults = TrainOptions()
    command = [sys.executable, "-m", "transformer_viz", "-v", "train", "--out", options.out, "--preset", options.preset]
    for f in dataclasses.fields(TrainOptions):
        value = getattr(options, f.name)
        if f.name in ("out", "preset") or value == getattr(defaults, f.name):
            continue
        flag = "--" + f.name.replace("_", "-")
        command += [flag] if isinstance(value, bool) else [flag, str(value)]
    return command


def run_train(options: TrainOptions, log_file: Path) -> None:
    """One leg of a run, in a process of its own (its command is what training.json records)."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # a checkout's package is importable in the child too
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    with open(log_file, "a", encoding="utf-8") as output:
        done = subprocess.run(train_command(options), stdout=output, stderr=subprocess.STDOUT, env=env, check=False)
    if done.returncode:
        raise RuntimeError(f"train into {options.out} failed (exit {done.returncode}); see {log_file}")


def steps_per_second(out: Path) -> float:
    """The run's speed from its calibration's metrics: steps between its two validations over their seconds."""
    rows = [json.loads(line) for line in (out / METRICS_NAME).read_text().splitlines()]
    a, b = rows[-2], rows[-1]
    return (b["step"] - a["step"]) / max(b["seconds"] - a["seconds"], 1e-3)


def plan(opts: RetrainOptions, out: Path, seconds_left: float, calibration_seconds: float) -> dict:
    """The run's schedule, made once after its calibration and kept in plan.json: as many steps as the time left has
    room for at the measured speed, less one process's start (the calibration leg's seconds beyond its steps) and less
    the margin, the last `cooldown` share of them cooling down. At the calibrated speed it ends inside the budget;
    the steps are the plan, whatever the speed turns out to be (no clock stops them)."""
    if (out / PLAN_NAME).is_file():
        return json.loads((out / PLAN_NAME).read_text())
    speed, done = steps_per_second(out), reached(out)
    startup = max(calibration_seconds - done / speed, 0.0)
    steps = done + max(int((seconds_left - startup) * (1 - opts.margin) * speed), 1)
    chosen = dict(
        steps_per_second=round(speed, 3),
        max_steps=steps,
        cooldown_steps=max(round(opts.cooldown * steps), 1),
        minutes_left=round(seconds_left / 60, 2),
        startup_seconds=round(startup, 1),
        planned_minutes=round((startup + (steps - done) / speed) / 60, 2),  # at the calibrated speed
    )
    (out / PLAN_NAME).write_text(json.dumps(chosen, indent=1) + "\n")
    return chosen


def train_run(opts: RetrainOptions, options: TrainOptions, started: float) -> None:
    """Calibrate (unless planned already), plan, and train the run to its planned step."""
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    shipped = CHECKPOINTS_DIR / options.preset / TOKENIZER_NAME
    if shipped.is_file() and not (out / TOKENIZER_NAME).is_file() and options.vocab_size == SHIPPED["vocab_size"]:
        shutil.copyfile(shipped, out / TOKENIZER_NAME)  # the shipped vocabulary: models stay comparable
    calibration_seconds = 0.0
    if not (out / PLAN_NAME).is_file():
        calibrate, begun = max(opts.calibration, 2), clock()
        run_train(
            dataclasses.replace(
                options, max_steps=10**7, pause_at=calibrate, valid_every=calibrate // 2, snapshots=0, average=0
            ),
            out / LOG_NAME,
        )
        calibration_seconds = clock() - begun
    chosen = plan(opts, out, opts.minutes * 60 - (clock() - started), calibration_seconds)
    if reached(out) < chosen["max_steps"]:
        run_train(planned_leg(options, chosen), out / LOG_NAME)


def planned_leg(options: TrainOptions, chosen: dict) -> TrainOptions:
    """The run's second leg: on to the plan's step, cooling down over its last steps, validated four times."""
    steps = chosen["max_steps"]
    valid_every = max(1, min(options.valid_every, steps // 4))
    return dataclasses.replace(
        options, max_steps=steps, cooldown_steps=chosen["cooldown_steps"], valid_every=valid_every
    )


def devices(base: str, n_runs: int) -> list[str]:
    """Where each run trains: one GPU each, round robin, where there are several; else the base device for all."""
    import torch

    if base in ("auto", "cuda") and torch.cuda.device_count() > 1:
        return [f"cuda:{i % torch.cuda.device_count()}" for i in range(n_runs)]
    return [base] * n_runs


def train_all(opts: RetrainOptions) -> list[TrainOptions]:
    """Every preset × recipe, side by side, each in a thread that drives its run's processes."""
    runs = [(p, single_phase(r)) for p in opts.presets for r in opts.recipes]
    threads = max(1, (os.cpu_count() or 1) // len(runs))  # on a CPU, its cores shared out
    where = devices(opts.base.device, len(runs))
    options = [run_options(opts, p, r, d, threads) for (p, r), d in zip(runs, where)]
    started, failures = clock(), []

    def go(run: TrainOptions) -> None:
        try:
            train_run(opts, run, started)
        except Exception as err:  # noqa: BLE001  (reported below; the other runs go on)
            failures.append(f"{run.out}: {err}")

    workers = [threading.Thread(target=go, args=(run,)) for run in options]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if failures:
        raise RuntimeError("; ".join(failures))
    return options


def own_pairs(path: Path | None) -> list[Pair]:
    """english<TAB>german lines of one's own (blank lines and # comments skipped); none without a file."""
    if path is None:
        return []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
    bad = [row for row in rows if len(row) != 2]
    if bad:
        raise ValueError(f"{path}: every line must be english<TAB>german, not {bad[0]!r}")
    return [Pair(src.strip(), tgt.strip(), "sentence") for src, tgt in rows]


def score_run(out: Path, opts: RetrainOptions, everyday: list[Pair], own: list[Pair]) -> dict:
    """A run's record and its greedy scores: the everyday set, the Ding test split, one's own sentences."""
    from ..translator import load_model
    from .evaluate import score_pairs, test_split

    record = json.loads((out / TRAINING_NAME).read_text())
    translator = load_model(out, device=opts.base.device)
    sets = {"everyday": everyday, "ding_test": test_split(out), "own": own}
    scores = {name: score_pairs(translator, pairs) for name, pairs in sets.items() if pairs}
    last = record["last"]
    return dict(
        folder=str(out),
        steps=last["step"],
        minutes=last["minutes"],
        tokens=last["tokens"],
        valid_loss=last["valid_loss"],
        plan=json.loads((out / PLAN_NAME).read_text()),
        scores=scores,
    )


def ranking(row: dict) -> tuple[float, float]:
    """How runs of one preset compare: everyday chrF, else the Ding test's; then the validation loss."""
    chrf = next((row["scores"][s]["chrf"] for s in ("everyday", "ding_test") if s in row["scores"]), 0.0)
    return chrf, -row["valid_loss"]


def make_ready(run: Path, into: Path) -> Path:
    """A run folder's shipped files (weights, config, tokenizer, records, card, credits, snapshots) in `into`."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    for name in (*CHECKPOINT_FILES, *RECORD_FILES, CARD_NAME, ATTRIBUTION_NAME):
        if (run / name).is_file():
            shutil.copyfile(run / name, into / name)
    if (run / SNAPSHOTS_DIR).is_dir():
        shutil.copytree(run / SNAPSHOTS_DIR, into / SNAPSHOTS_DIR)
    return into


def pack(folder: Path, into: Path, part_mb: float) -> list[Path]:
    """`folder` as one tar cut into parts of at most `part_mb` MB each (NAME.tar.000, .001, …), to carry over a
    channel that limits a file's size; `cat NAME.tar.* | tar x` puts it together again."""
    import tarfile

    into.mkdir(parents=True, exist_ok=True)
    whole = into / f"{folder.name}.tar"
    with tarfile.open(whole, "w") as tar:
        tar.add(folder, arcname=folder.name)
    size, parts = int(part_mb * 10**6), []
    with open(whole, "rb") as source:
        while chunk := source.read(size):
            parts.append(into / f"{whole.name}.{len(parts):03d}")
            parts[-1].write_bytes(chunk)
    whole.unlink()
    return parts


def summary_table(summary: dict) -> str:
    """The runs as a Markdown table, the best of each preset in bold."""
    sets = [s for s in ("everyday", "ding_test", "own") if any(s in row["scores"] for row in summary["runs"].values())]
    head = "| run | steps | minutes | valid loss | " + " | ".join(f"{s} chrF / BLEU" for s in sets) + " |"
    lines = [head, "|---|---:|---:|---:|" + "---|" * len(sets)]
    for name, row in summary["runs"].items():
        cells = [
            f"{row['scores'][s]['chrf']:.1f} / {row['scores'][s]['bleu']:.1f}" if s in row["scores"] else ""
            for s in sets
        ]
        shown = f"**{name}**" if name in summary["best"].values() else name
        lines.append(
            f"| {shown} | {row['steps']:,} | {row['minutes']:.1f} | {row['valid_loss']:.3f} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


def retrain(opts: RetrainOptions) -> dict:
    """Train, score, choose and make ready; returns (and writes to summary.json) what happened."""
    from .evaluate import evaluate_checkpoint, everyday_test

    opts.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    runs = train_all(opts)
    trained_seconds = round(time.time() - started, 1)
    everyday, own = everyday_test(opts.cache), own_pairs(opts.own_test)
    rows = {f"{r.preset}/{Path(r.out).name}": score_run(Path(r.out), opts, everyday, own) for r in runs}
    best = {p: max((n for n in rows if n.startswith(p + "/")), key=lambda n: ranking(rows[n])) for p in opts.presets}
    summary = dict(minutes=opts.minutes, trained_seconds=trained_seconds, device=opts.base.device, runs=rows, best=best)
    summary.update(ready={}, packed={})
    for preset, name in best.items():
        ready = make_ready(Path(rows[name]["folder"]), opts.out / READY_DIR / preset)
        if opts.card:
            evaluate_checkpoint(str(ready), cache=opts.cache, corpus_dir=opts.corpus)
        summary["ready"][preset] = str(ready)
        if opts.pack_mb:
            summary["packed"][preset] = [str(p) for p in pack(ready, opts.out / PACK_DIR, opts.pack_mb)]
    text = json.dumps(summary, indent=1, ensure_ascii=False) + "\n"
    (opts.out / SUMMARY_NAME).write_text(text, encoding="utf-8")
    return summary
