"""Build the EN–DE corpus from the German translations Debian ships with its programs.

``build_corpus`` fetches each source's packages (debs.py), extracts the declared members,
reads them (extract.py), cleans the units (clean.py) and removes every pair that shares a
normalised English or German text with a held-out set: Ding's validation and test sentences
(``split_pairs`` seed 0) and the everyday test set (everyday.py). A few hundred sentences of
each source are held out as that source's own test slice (``<source>.test.tsv``), so that
``evaluate`` can report chrF per source. German text that has no English side (a source of it, such
as fortune cookies, or a catalogue's German strings whose English is missing or unusable) is cleaned
and held out alike, for back-translation. Output, in ``out``: ``<source>.tsv`` (``en<TAB>de``),
``<source>.test.tsv``, ``<source>.de.txt`` (German sentences without English, one a line, where a source
has any), ``corpus.json`` (counts, licences, package versions, the command) and ``ATTRIBUTION.md``.
The corpus is built on the user's machine and never committed.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tqdm.auto import tqdm

from . import debs
from .clean import clean_german, clean_units
from .ding import Pair, kind_of
from .extract import EXTRACTORS
from .pairs import _rank, _source_key, read_tsv
from .sources import Source, select_sources

logger = logging.getLogger(__name__)
DEFAULT_OUT = Path("data/corpus")
DEFAULT_CACHE = Path("data/debs")
MANIFEST = "corpus.json"
APT_LISTS = "apt Translation-en/-de"  # what the package-description source fetches instead of packages
GERMAN_SUFFIX = ".de.txt"  # <source>.de.txt: the source's German sentences that have no English
ATTRIBUTION = "ATTRIBUTION.md"
SOURCE_TEST = 200  # sentences held out per source for its own chrF
SPLIT_SEED = 0


# ---------------------------------------------------------------------------- held-out texts
class HeldOut:
    """Normalised texts that must never reach training, as a source or as a target."""

    def __init__(self, pairs: Iterable[Pair] = ()):
        self.keys: set[str] = set()
        self.add(pairs)

    def add(self, pairs: Iterable[Pair]) -> None:
        """Hold out both sides of these pairs."""
        for pair in pairs:
            self.keys.update((_source_key(pair.src), _source_key(pair.tgt)))

    def leaks(self, en: str, de: str) -> bool:
        """Whether either side of a pair equals a held-out text (case, spacing, punctuation ignored)."""
        return self.holds(en) or self.holds(de)

    def holds(self, text: str) -> bool:
        """Whether a text equals a held-out one (case, spacing, punctuation ignored)."""
        return _source_key(text) in self.keys


def held_out_sets(cache: Path, ding: str | Path | None = None) -> tuple[HeldOut, dict[str, int]]:
    """Ding's valid + test sentences (seed 0) and the everyday test set; counts of what was held out."""
    from .ding import load_ding
    from .everyday import SOURCE_NAME, load_everyday

    held, counts = HeldOut(), {}
    loaders = {"ding valid+test": lambda: _ding_held_out(load_ding(ding)), SOURCE_NAME: lambda: load_everyday(cache)}
    for name, load in loaders.items():
        try:
            pairs = load()
        except FileNotFoundError as err:  # not installed, or offline: said loudly, recorded in corpus.json
            logger.warning("held-out set %s unavailable (%s): its sentences are not filtered out", name, err)
            continue
        held.add(pairs)
        counts[name] = len(pairs)
    return held, counts


def _ding_held_out(pairs: list[Pair]) -> list[Pair]:
    """The validation and test pairs of Ding's default split."""
    from .pairs import split_pairs

    splits = split_pairs(pairs, seed=SPLIT_SEED)
    return splits.valid + splits.test


def hold_out_test(pairs: Sequence[Pair], n: int = SOURCE_TEST, seed: int = SPLIT_SEED) -> tuple[list[Pair], list[Pair]]:
    """(train, test): ``n`` sentences by seeded rank (at most a tenth), train without their texts."""
    sentences = {_source_key(p.src): p for p in pairs if p.kind == "sentence"}
    n = min(n, len(sentences) // 10)
    test = [sentences[k] for k in sorted(sentences, key=lambda k: _rank(k, seed))[:n]]
    held = HeldOut(test)
    return [p for p in pairs if not held.leaks(p.src, p.tgt)], test


# ---------------------------------------------------------------------------- one source
def gather_files(source: Source, cache: Path, from_dir: Path | None, work: Path) -> dict:
    """Fetch a source's packages and extract its members into ``work``; versions and bytes fetched."""
    if not source.packages:  # apt's description lists
        lists = debs.fetch_apt_translations(cache)
        files = debs.copy_matching(lists, source.members, work)
        size = _size(files)
        return dict(packages={APT_LISTS: f"{len(files)} lists"}, bytes=size, package_bytes={APT_LISTS: size})
    found = debs.fetch_debs(list(source.packages), cache, from_dir)
    versions = {}
    for package, deb in tqdm(found.items(), desc=f"{source.name}: extract", unit="deb", leave=False):
        debs.extract_members(deb, source.members, work)
        versions[package] = debs.deb_version(deb)
    sizes = {package: _size([deb]) for package, deb in found.items()}
    return dict(packages=versions, bytes=sum(sizes.values()), package_bytes=sizes)


def _size(paths: Iterable[Path]) -> int:
    """Total size of files in bytes."""
    return sum(Path(p).stat().st_size for p in paths)


@dataclass
class Built:
    """What one source gave: training pairs, its held-out test pairs, German sentences without English, its entry."""

    train: list[Pair]
    test: list[Pair]
    german: list[str]
    entry: dict


def build_source(source: Source, held: HeldOut, cache: Path, from_dir: Path | None) -> Built:
    """A source's pairs (train and test) and German sentences, cleaned and held out, with its manifest entry."""
    with tempfile.TemporaryDirectory(prefix=f"corpus-{source.name}-") as tmp:
        work = Path(tmp)
        entry = gather_files(source, cache, from_dir, work)
        stats: Counter = Counter()
        german_stats: Counter = Counter()
        units = tqdm(EXTRACTORS[source.extractor](work, source), desc=source.name, unit=" units", leave=False)
        parallel, german_only = [], []
        for en, de in units:
            if en:
                parallel.append((en, de))
            else:
                german_only.append(de)
        clean = clean_units(parallel, stats)
        german = clean_german(german_only, german_stats)
    kept = [Pair(en, de, kind_of(en, de), source=source.name) for en, de in clean if not held.leaks(en, de)]
    stats["held_out_leak"] = len(clean) - len(kept)
    german_kept = [de for de in german if not held.holds(de)]
    german_stats["held_out_leak"] = len(german) - len(german_kept)
    train, test = hold_out_test(kept)
    entry.update(
        licence=source.licence,
        attribution=source.attribution,
        units=stats.pop("units", 0),
        test_pairs=len(test),
        dropped=without_counts(stats),
        german=dict(units=german_stats.pop("units", 0), dropped=without_counts(german_stats)),
    )
    return Built(train, test, german_kept, entry)


def without_counts(stats: Counter) -> dict[str, int]:
    """The reasons a cleaning dropped units for, with their counts, sorted (what it kept left out)."""
    return dict(sorted((k, v) for k, v in stats.items() if k != "kept"))


def pair_counts(train: Sequence[Pair]) -> dict:
    """The manifest's counts of a source's training pairs."""
    counts = Counter(p.kind for p in train)
    return dict(
        pairs=len(train),
        kinds={kind: counts[kind] for kind in ("sentence", "phrase", "word")},
        english_words=sum(len(p.src.split()) for p in train),
    )


# ---------------------------------------------------------------------------- the build
def build_corpus(
    out: Path = DEFAULT_OUT,
    cache: Path = DEFAULT_CACHE,
    from_dir: Path | None = None,
    sources: str | None = None,
    command: str = "",
    ding: str | Path | None = None,
    held: HeldOut | None = None,
) -> dict:
    """Build every selected source into ``out``; a source that fails is reported and skipped.

    ``held`` replaces the held-out texts (Ding's valid/test and the everyday set) when given.
    """
    started = time.time()
    selected = select_sources(sources)
    out, cache = Path(out), Path(cache)
    out.mkdir(parents=True, exist_ok=True)
    held, held_counts = (held, {"given": len(held.keys)}) if held is not None else held_out_sets(cache, ding)
    manifest = _read_manifest(out)
    failed, built = {}, {}
    for source in tqdm(selected, desc="corpus", unit="source"):
        try:
            built[source.name] = build_source(source, held, cache, from_dir)
        except debs.FetchError as err:
            logger.error("source %s skipped: %s", source.name, err)
            failed[source.name] = str(err)
    # A source's test slice must not train through another source either.
    slices = HeldOut(p for source in built.values() for p in source.test)
    for name in set(manifest["sources"]) - set(built):  # sources of an earlier build, kept as they are
        if (out / f"{name}.test.tsv").is_file():
            slices.add(read_tsv(out / f"{name}.test.tsv"))
    for name, source in built.items():
        write_source(out, name, source, slices, manifest)
    entries = manifest["sources"].values()
    manifest.update(
        command=command,
        built=datetime.now(UTC).isoformat(timespec="seconds"),
        seconds=round(time.time() - started, 1),
        held_out=held_counts,
        failed=failed,
        total_pairs=sum(e["pairs"] for e in entries),
        english_words=sum(e["english_words"] for e in entries),
        download_bytes=download_bytes(manifest["sources"]),
        german_sentences=sum(e.get("german", {}).get("sentences", 0) for e in entries),
    )
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / ATTRIBUTION).write_text(attribution_markdown(manifest), encoding="utf-8")
    return manifest


def download_bytes(sources: dict[str, dict]) -> int:
    """The bytes fetched for a corpus, a package that several sources read (gcompris-qt-data) counted once."""
    sizes: dict[str, int] = {}
    for name, entry in sources.items():
        sizes.update(entry.get("package_bytes") or {name: entry["bytes"]})  # an older build's entry: its own total
    return sum(sizes.values())


def write_source(out: Path, name: str, source: Built, slices: HeldOut, manifest: dict) -> None:
    """Write a source's files, without what another source's test slice holds, and its manifest entry."""
    kept = [p for p in source.train if not slices.leaks(p.src, p.tgt)]
    german = [de for de in source.german if not slices.holds(de)]
    entry = source.entry
    entry["dropped"]["other_source_test"] = len(source.train) - len(kept)
    entry["german"]["dropped"]["other_source_test"] = len(source.german) - len(german)
    entry["german"]["sentences"] = len(german)
    manifest["sources"][name] = {**entry, **pair_counts(kept)}
    write_tsv(out / f"{name}.tsv", kept)
    write_tsv(out / f"{name}.test.tsv", source.test)
    german_file = out / f"{name}{GERMAN_SUFFIX}"
    if german:
        german_file.write_text("".join(f"{de}\n" for de in german), encoding="utf-8")
    else:
        german_file.unlink(missing_ok=True)  # an earlier build's, now stale
    logger.info(
        "%s: %s pairs (%s test), %s German sentences without English", name, len(kept), len(source.test), len(german)
    )


def _read_manifest(out: Path) -> dict:
    """The manifest of an earlier build in ``out`` (its sources are kept unless rebuilt), or a new one."""
    path = out / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    manifest.setdefault("sources", {})
    return manifest


def write_tsv(path: Path, pairs: Iterable[Pair]) -> None:
    """One ``english<TAB>german`` line per pair."""
    with path.open("w", encoding="utf-8") as tsv:
        tsv.writelines(f"{p.src}\t{p.tgt}\n" for p in pairs)


def attribution_markdown(manifest: dict) -> str:
    """The attribution section for the README and model cards, generated from a manifest."""
    lines = [
        "## Corpus attribution",
        "",
        "Besides the Ding dictionary, the models are trained on German translations that Debian ships",
        "with these programs (built by `python -m transformer_viz corpus build`):",
        "",
        "| source | pairs | licence | Debian packages |",
        "|---|---:|---|---|",
    ]
    for name, entry in sorted(manifest["sources"].items()):
        packages = package_list(entry["packages"])
        german = entry.get("german", {}).get("sentences", 0)
        given = f"{entry['pairs']:,}" + (f" + {german:,} German sentences alone" if german else "")
        lines.append(f"| {name} | {given} | {entry['licence']} | {packages} |")
    lines += ["", "Authors and translators:", ""]
    lines += [f"- {name}: {entry['attribution']}" for name, entry in sorted(manifest["sources"].items())]
    return "\n".join(lines) + "\n"


def package_list(versions: dict[str, str]) -> str:
    """Packages grouped by version: "wesnoth-1.16-data, wesnoth-1.16-httt 1:1.16.9-1"."""
    by_version: dict[str, list[str]] = {}
    for package, version in versions.items():
        by_version.setdefault(version, []).append(package)
    return "; ".join(f"{', '.join(packages)} {version}" for version, packages in by_version.items())


# ---------------------------------------------------------------------------- reading it back
def corpus_sources(corpus_dir: str | Path) -> list[str]:
    """The names of the sources a built corpus holds."""
    path = Path(corpus_dir) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(
            f"no corpus at {corpus_dir} ({MANIFEST} missing); build it with `python -m transformer_viz corpus build`"
        )
    return sorted(json.loads(path.read_text(encoding="utf-8"))["sources"])


def load_corpus_pairs(
    corpus_dir: str | Path,
    sources: Iterable[str] | None = None,
    test: bool = False,
    held_out: Iterable[Pair] = (),
) -> list[Pair]:
    """The training pairs (or with ``test`` the held-out slices) of a built corpus, each with its source.

    The build removed Ding's seed-0 valid/test sentences; a trainer on another split passes its
    own ``held_out`` pairs (valid + test), whose texts are then removed too.
    """
    held = HeldOut(held_out)
    available = corpus_sources(corpus_dir)
    wanted = list(sources) if sources is not None else available
    unknown = sorted(set(wanted) - set(available))
    if unknown:
        raise ValueError(f"corpus {corpus_dir} has no sources {unknown}; it has {', '.join(available)}")
    pairs, seen = [], set()
    for name in wanted:
        for pair in read_tsv(Path(corpus_dir) / f"{name}{'.test' if test else ''}.tsv"):
            if (pair.src, pair.tgt) not in seen and not held.leaks(pair.src, pair.tgt):
                seen.add((pair.src, pair.tgt))
                pairs.append(Pair(pair.src, pair.tgt, pair.kind, source=name))
    return pairs
