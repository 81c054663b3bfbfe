"""Choosing the training mixture by measurement: recipes trained at equal compute, scored along the way.

Every recipe trains the same model for the same number of steps of the same batch size (equal
compute), with weight snapshots at the same log-spaced steps; each snapshot is then scored on the
everyday test set (never trained on). A recipe is phases: the data of each, up to a share of the
steps. A recipe that starts as another does (everything, then Ding's sentences and the dialogue)
branches from a copy of that run at the step its own data change, instead of training it twice.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from ..corpus.build import DEFAULT_CACHE, DEFAULT_OUT
from ..hub.hub import TOKENIZER_NAME
from ..tokenizer import Tokenizer
from ..translator import Translator
from .evaluate import everyday_test, score
from .options import TrainOptions
from .snapshots import list_snapshots, load_snapshot
from .train import train

log = logging.getLogger(__name__)
CURVES_NAME = "curves.json"
# The game and children's sources: dialogue, quests and instructions, the register nearest everyday speech.
DIALOGUE = ("wesnoth", "cataclysm", "freedroidrpg", "freeciv", "naev", "widelands", "tuxpaint")
# More of that register: dialogue, children's software, riddles, word lists (openclonk and tuxpaint-stamps are
# built by `corpus build --sources all`).
EVERYDAY = ("freedink", "gcompris", "gcompris-words", "openclonk", "drascula", "tuxpaint-stamps", "gbrainy")
EVERYDAY += ("pysiogame", "flare", "supertux")
EVERYTHING = "*"  # every source of the built corpus


@dataclass(frozen=True)
class Phase:
    """Train on Ding's pairs (of `kinds`) plus these corpus sources up to `until` × the run's steps."""

    until: float
    sources: tuple[str, ...] | str = ()  # corpus sources, or EVERYTHING; () = Ding alone
    kinds: str = "sentence,phrase,word"
    synthetic_pairs: int | None = None  # back-translated pairs of the run's --extra-tsv kept (None: the run's own)


@dataclass(frozen=True)
class Recipe:
    name: str
    phases: tuple[Phase, ...]
    branch_of: str = ""  # a recipe whose run this one copies where their phases part


RECIPES = (
    Recipe("ding", (Phase(1.0),)),
    Recipe("ding+dialogue", (Phase(1.0, DIALOGUE),)),
    Recipe("ding+everything", (Phase(1.0, EVERYTHING),)),
    Recipe(
        "everything→sentences+dialogue",
        (Phase(0.8, EVERYTHING), Phase(1.0, DIALOGUE, kinds="sentence")),
        branch_of="ding+everything",
    ),
    Recipe("ding+dialogue+everyday", (Phase(1.0, DIALOGUE + EVERYDAY),)),  # against ding+dialogue, at equal compute
)


def phase_options(base: TrainOptions, out: Path, phase: Phase, corpus: Path) -> TrainOptions:
    """The training options of one phase: `base` with its data, stopping at its share of the steps."""
    sources = "" if phase.sources == EVERYTHING else ",".join(phase.sources)
    return dataclasses.replace(
        base,
        out=str(out),
        debian_corpus=str(corpus) if phase.sources else "",
        debian_sources=sources,
        kinds=phase.kinds,
        synthetic_pairs=base.synthetic_pairs if phase.synthetic_pairs is None else phase.synthetic_pairs,
        pause_at=round(phase.until * base.max_steps),
        resume=True,
    )


def reached(out: Path) -> int:
    """The step a run folder's saved state has reached (0 for none)."""
    training = out / "training.json"
    return json.loads(training.read_text())["last"]["step"] if training.is_file() else 0


def run_recipes(base: TrainOptions, folder: Path, corpus: Path = DEFAULT_OUT, recipes=RECIPES) -> dict[str, Path]:
    """Train every recipe into folder/<name>, resuming what is there; returns the run folders."""
    runs = {r.name: folder / r.name for r in recipes}
    for recipe in recipes:
        out = runs[recipe.name]
        for child in (r for r in recipes if r.branch_of == recipe.name and reached(runs[r.name]) == 0):
            branch(base, out, runs[child.name], recipe, child, corpus)
        for phase in recipe.phases:
            options = phase_options(base, out, phase, corpus)
            if reached(out) < options.end_step:
                train(options)
    return runs


def branch(base: TrainOptions, out: Path, into: Path, parent: Recipe, child: Recipe, corpus: Path) -> None:
    """Train `parent`'s run up to where `child`'s first phase ends, and copy it to be `child`'s run."""
    shared = child.phases[0]
    first = parent.phases[0]
    if (first.sources, first.kinds, first.synthetic_pairs) != (shared.sources, shared.kinds, shared.synthetic_pairs):
        raise ValueError(f"{child.name} does not start as {parent.name} does")
    split = phase_options(base, out, shared, corpus)
    if reached(out) > split.end_step:
        raise ValueError(f"{out} is past step {split.end_step}, where {child.name} branches off; train it again")
    if reached(out) < split.end_step:
        train(split)
    shutil.copytree(out, into)


def score_snapshots(run: Path, pairs, limit: int = 0) -> list[dict]:
    """Greedy BLEU, chrF and exact matches of each snapshot of a run on `pairs`."""
    tokenizer = Tokenizer.load(run / TOKENIZER_NAME)
    pairs = pairs[:limit] if limit else pairs
    rows = []
    for snapshot in tqdm(list_snapshots(run), desc=f"score {run.name}", unit="snapshot"):
        translator = Translator(load_snapshot(run, snapshot), tokenizer, name=run.name)
        result = score(translator, [p.src for p in pairs], [p.tgt for p in pairs], greedy(translator))
        rows.append(dict(step=snapshot.step, valid_loss=snapshot.valid_loss, **without_hypotheses(result)))
    return rows


def greedy(translator: Translator):
    from ..decoding import DecodeOptions

    return DecodeOptions(strategy="greedy", max_new_tokens=translator.config.max_len)


def without_hypotheses(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in ("hypotheses", "seconds")}


def curves(runs: dict[str, Path], cache: Path = DEFAULT_CACHE, limit: int = 0) -> dict:
    """Every run's learning curve on the everyday test set, written to curves.json beside the runs."""
    pairs = everyday_test(cache)
    if not pairs:
        raise FileNotFoundError(f"no everyday test set in {cache}: run `corpus build` first")
    result = {name: score_snapshots(run, pairs, limit) for name, run in runs.items()}
    folder = next(iter(runs.values())).parent
    (folder / CURVES_NAME).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


def curves_table(result: dict, metric: str = "chrf") -> str:
    """A Markdown table: one row per recipe, one column per snapshot step, `metric` in the cells."""
    steps = sorted({row["step"] for rows in result.values() for row in rows})
    lines = [
        "| recipe | " + " | ".join(f"step {s:,}" for s in steps) + " |",
        "|---|" + "---:|" * len(steps),
    ]
    for name, rows in result.items():
        by_step = {row["step"]: row[metric] for row in rows}
        lines.append(f"| {name} | " + " | ".join(f"{by_step[s]:.1f}" if s in by_step else "" for s in steps) + " |")
    return "\n".join(lines)
