"""The pairs a model trains on: the Ding pairs (ding.py) or your own TSV, and a leak-free split.

``split_pairs(seed=0)`` holds out 1,000 test and 500 valid sentences of the Ding dictionary and
leaves 364,368 training pairs (18,217 sentences). Words are 78 % of the pairs, so the training
loop should weight kinds rather than sample uniformly.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .ding import APOSTROPHES, DING_ENV, DING_PATH, KINDS, Pair, kind_of, load_ding

logger = logging.getLogger(__name__)
SYNTHETIC = "synthetic"  # a TSV's third column: the pair is back-translated (its English made by a model)
DIRECTIONS = ("en-de", "de-en")  # what a model learns to translate: English → German, or back

__all__ = [
    "DING_ENV",
    "DING_PATH",
    "KINDS",
    "Pair",
    "DIRECTIONS",
    "SYNTHETIC",
    "Splits",
    "load_corpus",
    "load_ding",
    "oriented",
    "read_tsv",
    "split_pairs",
]


@dataclass
class Splits:
    """Train / validation / test pairs; valid and test hold only unseen sentences."""

    train: list[Pair] = field(default_factory=list)
    valid: list[Pair] = field(default_factory=list)
    test: list[Pair] = field(default_factory=list)


def read_tsv(path: str | Path) -> list[Pair]:
    """Read user pairs from an ``english<TAB>german`` file (blank lines and # comments skipped).

    A third column ``synthetic`` marks a back-translated pair (``backtranslate`` writes it): its source is
    SYNTHETIC, so that training can weigh such pairs (``TrainOptions.synthetic_pairs``).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"pair file not found: {path} (expected english<TAB>german lines)")
    pairs = []
    with path.open(encoding="utf-8-sig") as lines:  # -sig: a byte-order mark (some editors write one) is not text
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            tag = fields.pop() if len(fields) == 3 and fields[2].strip() == SYNTHETIC else ""
            src, tgt = (" ".join(f.split()) for f in fields) if len(fields) == 2 else ("", "")
            if not src or not tgt:
                raise ValueError(
                    f"{path}:{number}: expected 'english<TAB>german' (one tab, both sides non-empty; a third column "
                    f"may say {SYNTHETIC}), got {line[:80]!r}"
                )
            src, tgt = src.translate(APOSTROPHES), tgt.translate(APOSTROPHES)
            pairs.append(Pair(src, tgt, kind_of(src, tgt), source=tag))
    logger.info("%s: %s pairs", path, len(pairs))
    return pairs


# ---------------------------------------------------------------------------- splitting
def _source_key(text: str) -> str:
    """What makes two texts 'the same sentence': case, spacing and punctuation ignored."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _rank(key: str, seed: int) -> str:
    """A seeded pseudo-random rank that, unlike hash(), is the same in every Python process."""
    return hashlib.sha256(f"{seed}\0{key}".encode()).hexdigest()


def split_pairs(pairs: Sequence[Pair], seed: int = 0, n_valid: int = 500, n_test: int = 1000) -> Splits:
    """Hold out ``n_test`` + ``n_valid`` unseen sentences; everything else (leak-filtered) trains.

    Held-out sentences are chosen by a seeded SHA-256 rank of their normalised English source,
    one pair per source. Train then loses every pair (of any kind) whose normalised source or
    German target equals a held-out one, because Ding repeats example sentences under many
    headwords. The test set of a seed does not depend on the order of ``pairs``.
    """
    by_source: dict[str, list[Pair]] = {}
    for pair in pairs:
        if pair.kind == "sentence" and not pair.edited:
            by_source.setdefault(_source_key(pair.src), []).append(pair)
    if len(by_source) < n_valid + n_test:
        raise ValueError(
            f"only {len(by_source)} distinct sentences but n_valid + n_test = "
            f"{n_valid + n_test}; lower n_valid/n_test or load more sentence pairs"
        )
    ranked = sorted(by_source, key=lambda key: _rank(key, seed))
    held_out = [min(by_source[k], key=lambda p: (p.tgt, p.src)) for k in ranked[: n_test + n_valid]]
    splits = Splits(test=held_out[:n_test], valid=held_out[n_test:])
    splits.train = _without_leaks(pairs, held_out)
    logger.info("split seed %s: train %s, valid %s, test %s", seed, len(splits.train), n_valid, n_test)
    return splits


def _without_leaks(pairs: Iterable[Pair], held_out: Sequence[Pair]) -> list[Pair]:
    """Pairs whose normalised source and target both differ from every held-out pair."""
    sources = {_source_key(p.src) for p in held_out}
    targets = {_source_key(p.tgt) for p in held_out}
    return [p for p in pairs if _source_key(p.src) not in sources and _source_key(p.tgt) not in targets]


def load_corpus(path: str | Path | None = None, seed: int = 0, extra_tsv: str | Path | None = None) -> Splits:
    """Ding pairs split by ``split_pairs``; pairs from ``extra_tsv`` only ever join train."""
    splits = split_pairs(load_ding(path), seed=seed)
    if extra_tsv is not None:
        extra = _without_leaks(read_tsv(extra_tsv), splits.valid + splits.test)
        seen = {(p.src, p.tgt) for p in splits.train}
        splits.train += [p for p in extra if (p.src, p.tgt) not in seen]
    return splits


def oriented(pairs: Iterable[Pair], direction: str) -> list[Pair]:
    """The pairs as a model of ``direction`` reads them: as they are for en-de, German → English for de-en."""
    check_direction(direction)
    if direction == "en-de":
        return list(pairs)
    return [dataclasses.replace(pair, src=pair.tgt, tgt=pair.src) for pair in pairs]  # its kind is the pair's


def check_direction(direction: str) -> None:
    """Refuse a direction no model is trained in."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
