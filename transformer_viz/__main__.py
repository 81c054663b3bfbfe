"""Command line: python -m transformer_viz {translate, trace, lesson, score, train, evaluate, mixtures, retrain,
corpus, backtranslate, push, space, serve}."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from pathlib import Path

from . import __version__


def add_decoding_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help="checkpoint folder, bundled name (seed000, seed004) or Hub repo id")
    from .decoding import CHOSEN, STRATEGIES, DecodeOptions

    defaults = DecodeOptions()
    for option in CHOSEN:  # --strategy, --beam-size, …: each DecodeOptions field the page offers too
        flag = "--" + option.field.replace("_", "-")
        choices = dict(choices=STRATEGIES) if option.field == "strategy" else {}
        p.add_argument(flag, type=option.kind, default=getattr(defaults, option.field), **choices)
    p.add_argument("--device", default="auto")


def decode_overrides(args: argparse.Namespace) -> dict:
    """The decoding flags as DecodeOptions fields."""
    from .decoding import CHOSEN

    return {option.field: getattr(args, option.field) for option in CHOSEN}


def cmd_translate(args) -> int:
    from .translator import load_model

    tr = load_model(args.model, device=args.device)
    sentences = args.sentence or [line.rstrip("\n") for line in sys.stdin if line.strip()]
    for line in tr.translate(sentences, **decode_overrides(args)):
        print(line)
    return 0


def traced(args):
    """The trace of args.sentence by args.model, decoded with the command line's options."""
    from .translator import load_model

    tr = load_model(args.model, device=args.device)
    overrides = decode_overrides(args)
    return tr.trace(
        args.sentence, strategy=overrides.pop("strategy"), max_new_tokens=overrides.pop("max_new_tokens"), **overrides
    )


def cmd_trace(args) -> int:
    trace = traced(args)
    text = trace.to_json(indent=None if args.compact else 1)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"{trace.target_text}\n(trace written to {args.out})", file=sys.stderr)
    return 0


def cmd_score(args) -> int:
    from .score import table
    from .translator import load_model

    score = load_model(args.model, device=args.device).score(args.sentence, args.german)
    print(score.to_json(indent=1) if args.json else table(score))
    return 0


def train_options(args, **defaults):
    """TrainOptions from the train flags given on the command line, over `defaults` (else the dataclass's own)."""
    from .training.options import TrainOptions

    fields = {f.name for f in dataclasses.fields(TrainOptions)}
    given = {k: v for k, v in vars(args).items() if k in fields and v is not None}
    return TrainOptions(**{**defaults, **given})


def comma_list(text: str) -> tuple[str, ...]:
    """ "a, b,c" → ("a", "b", "c")."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def cmd_train(args) -> int:
    from .training.train import train

    out = train(train_options(args))
    print(f"checkpoint written to {out}")
    return 0


def cmd_mixtures(args) -> int:
    from .corpus.build import DEFAULT_OUT
    from .training import mixtures

    base = train_options(args)
    wanted = comma_list(args.recipes)
    recipes = [r for r in mixtures.RECIPES if not wanted or r.name in wanted]
    if wanted and len(recipes) < len(wanted):
        raise ValueError(f"recipes are {', '.join(r.name for r in mixtures.RECIPES)}; got {args.recipes!r}")
    if args.score_only:
        runs = {r.name: args.runs / r.name for r in recipes}
    else:
        corpus = Path(base.debian_corpus or DEFAULT_OUT)  # the built corpus the recipes draw on
        runs = mixtures.run_recipes(base, args.runs, corpus, recipes)
    result = mixtures.curves(runs, args.cache, args.limit)
    for metric in ("chrf", "bleu", "exact", "valid_loss"):
        on = "Ding's validation pairs" if metric == "valid_loss" else "the everyday test set"
        print(f"\n{metric} on {on}\n" + mixtures.curves_table(result, metric))
    return 0


def cmd_retrain(args) -> int:
    from .training import retrain

    opts = retrain.RetrainOptions(
        out=args.out,
        minutes=args.minutes,
        presets=comma_list(args.presets),
        recipes=comma_list(args.recipes),
        calibration=args.calibration,
        corpus=args.debian_corpus,
        cache=args.cache,
        own_test=args.own_test,
        card=not args.no_card,
        pack_mb=args.pack_mb,
        base=train_options(args, **retrain.SHIPPED),
    )
    summary = retrain.retrain(opts)
    print(retrain.summary_table(summary))
    for preset, folder in summary["ready"].items():
        print(f"{preset}: {folder} (copy it to checkpoints/{preset} to ship it)")
    return 0


def cmd_evaluate(args) -> int:
    from .training.evaluate import evaluate_checkpoint

    report = evaluate_checkpoint(
        args.model,
        limit=args.limit,
        beam_size=args.beam_size,
        write_card=not args.no_card,
        cache=args.cache,
        corpus_dir=args.corpus,
    )
    print(json.dumps(report, indent=2))
    return 0


def cmd_corpus_build(args) -> int:
    from .corpus.build import build_corpus

    command = f"python -m transformer_viz corpus build --out {args.out} --cache {args.cache}"
    if args.from_dir:
        command += f" --from-dir {args.from_dir}"
    if args.sources:
        command += f" --sources {args.sources}"
    try:
        manifest = build_corpus(args.out, args.cache, args.from_dir, args.sources, command=command)
    except ModuleNotFoundError as err:  # polib, lxml or translate-toolkit missing: the message names the fix
        print(f"error: {err}", file=sys.stderr)
        return 2
    for name, entry in manifest["sources"].items():
        german = entry.get("german", {}).get("sentences", 0)
        alone = f"  {german:>7,} German alone" if german else ""
        print(f"{name:22} {entry['pairs']:>8,} pairs  {entry['test_pairs']:>4} test{alone}  {entry['licence']}")
    for name, error in manifest["failed"].items():
        print(f"{name:22} FAILED: {error}", file=sys.stderr)
    print(f"{manifest['total_pairs']:,} pairs, {manifest['english_words']:,} English words in {args.out}")
    print(f"{manifest['german_sentences']:,} German sentences without English (<source>.de.txt), for backtranslate")
    return 1 if manifest["failed"] else 0


def cmd_backtranslate(args) -> int:
    from .decoding import DecodeOptions
    from .training.backtranslate import backtranslate

    counts = backtranslate(
        args.model, args.german, args.out, DecodeOptions(**decode_overrides(args)), args.device, args.limit
    )
    print(
        f"{counts['pairs']:,} synthetic pairs written to {args.out} ({counts['german']:,} German sentences, "
        f"{counts['too_long']:,} too long for the model, {counts['empty']:,} translated to nothing)"
    )
    return 0


def cmd_push(args) -> int:
    from .hub.hub import push_to_hub, resolve_checkpoint

    print(push_to_hub(resolve_checkpoint(args.model), args.repo, private=args.private))
    return 0


def cmd_space(args) -> int:
    from .hub.space import deploy_space

    print(deploy_space(args.repo, private=args.private, models=not args.no_models))
    return 0


def cmd_serve(args) -> int:
    """What app.py does, from the package itself (an installed copy has no app.py beside it)."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported, as in app.py
    from .app.page import launch

    launch()
    return 0


def cmd_lesson(args) -> int:
    from .figures.lesson import lesson

    trace = traced(args)
    stops = ()
    if args.tour:  # the tour's stops on this sentence
        from .app.tour import lesson_stops, read_tour

        stops = lesson_stops(read_tour(args.tour), trace, args.lang)
    page = lesson(trace, args.out, lang=args.lang, layer=args.layer, head=args.head, tour=stops)
    print(f"{trace.target_text}\n(lesson written to {args.out}: {len(page.encode()) / 1e6:.1f} MB)", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .corpus.build import DEFAULT_CACHE, DEFAULT_OUT
    from .training.train import TrainOptions

    parser = argparse.ArgumentParser(
        prog="python -m transformer_viz", description="Look inside a small EN→DE Transformer."
    )
    parser.add_argument("--version", action="version", version=f"transformer-viz {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (INFO)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("translate", help="translate sentences (arguments, or one per line on stdin)")
    p.add_argument("sentence", nargs="*")
    add_decoding_arguments(p)
    p.set_defaults(func=cmd_translate)

    p = sub.add_parser("trace", help="translate one sentence and write its trace JSON")
    p.add_argument("sentence")
    p.add_argument("--out", default="-", help="output file (default: stdout)")
    p.add_argument("--compact", action="store_true", help="one line of JSON")
    add_decoding_arguments(p)
    p.set_defaults(func=cmd_trace)

    add_lesson_parser(sub)
    add_score_parser(sub)

    p = sub.add_parser("train", help="train a tokenizer and a model into a checkpoint folder")
    add_train_options(p, TrainOptions)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("mixtures", help="train the data recipes at equal compute and score their learning curves")
    p.add_argument("--runs", type=Path, default=Path("runs/mixtures"), help="one run folder per recipe in here")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the corpus cache, holding the everyday set")
    p.add_argument("--recipes", default="", help="comma-separated recipe names (default: all)")
    p.add_argument("--score-only", action="store_true", help="score the runs' snapshots, train nothing")
    p.add_argument("--limit", type=int, default=0, help="score on the first N everyday pairs only (0 = all)")
    add_train_options(p, TrainOptions, skip=("out", "debian_sources", "kinds", "pause_at", "resume"))
    p.set_defaults(func=cmd_mixtures)

    p = sub.add_parser("retrain", help="train presets x recipes side by side within a time budget, score, pick")
    p.add_argument("--out", type=Path, default=Path("runs/retrain"), help="one folder per run, ready/, summary.json")
    p.add_argument("--minutes", type=float, required=True, help="the time budget each run plans its steps from")
    p.add_argument("--presets", default="seed000,seed004", help="comma-separated (default seed000,seed004)")
    p.add_argument("--recipes", default="ding+dialogue", help="comma-separated one-phase recipes of `mixtures`")
    p.add_argument("--calibration", type=int, default=200, help="steps that measure each run's speed first")
    p.add_argument("--debian-corpus", type=Path, default=DEFAULT_OUT, help="the built corpus the recipes draw on")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the corpus cache, holding the everyday set")
    p.add_argument("--own-test", type=Path, default=None, help="english<TAB>german lines scored beside the rest")
    p.add_argument("--no-card", action="store_true", help="do not evaluate the ready folders (no beam, no card)")
    p.add_argument("--pack-mb", type=float, default=0, help="also pack each ready folder in parts of N MB")
    skip = ("out", "preset", "debian_corpus", "debian_sources", "kinds", "pause_at", "resume", "max_steps")
    add_train_options(p, TrainOptions, skip=(*skip, "cooldown_steps", "max_minutes"))
    p.set_defaults(func=cmd_retrain)

    p = sub.add_parser("evaluate", help="BLEU and chrF on the held-out test sets; updates the model card")
    p.add_argument("--model", default=None)
    p.add_argument("--limit", type=int, default=0, help="only the first N test pairs (0 = all)")
    p.add_argument("--beam-size", type=int, default=4)
    p.add_argument("--no-card", action="store_true", help="do not write the scores into README.md")
    p.add_argument("--corpus", type=Path, default=DEFAULT_OUT, help="a built corpus: chrF per source")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the corpus cache, holding the everyday set")
    p.set_defaults(func=cmd_evaluate)

    add_corpus_parser(sub)
    add_backtranslate_parser(sub)

    p = sub.add_parser("push", help="upload a checkpoint folder to the Hugging Face Hub")
    p.add_argument("--model", required=True)
    p.add_argument("--repo", required=True, help="owner/name")
    p.add_argument("--private", action="store_true")
    p.set_defaults(func=cmd_push)

    p = sub.add_parser("space", help="create or update a Hugging Face Space with the app and the bundled checkpoints")
    p.add_argument("repo", help="the Space's id, owner/name")
    p.add_argument("--private", action="store_true")
    p.add_argument("--no-models", action="store_true", help="do not push the checkpoints as model repos too")
    p.set_defaults(func=cmd_space)

    sub.add_parser("serve", help="run the web app (same as python app.py)").set_defaults(func=cmd_serve)
    return parser


def add_train_options(p: argparse.ArgumentParser, options, skip: tuple[str, ...] = ()) -> None:
    """One flag per TrainOptions field (--max-steps …), defaulting to None so the dataclass's default holds."""
    for f in dataclasses.fields(options):
        if f.name in skip:
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            p.add_argument(flag, action="store_true", default=None, help=f"(default {f.default})")
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            p.add_argument(flag, type=kind, default=None, help=f"(default {f.default})")


def add_lesson_parser(sub) -> None:
    """`lesson SENTENCE --out lesson.html`: a translation as one HTML page that steps through it with no server."""
    p = sub.add_parser("lesson", help="translate one sentence into a lesson file: one HTML page that needs no server")
    p.add_argument("sentence")
    p.add_argument("--out", default="lesson.html", help="the HTML file to write (default: lesson.html)")
    p.add_argument("--lang", default="en", help="the lesson's language: en, de, ja, ko or zh (default: en)")
    p.add_argument("--layer", type=int, default=0, help="the layer it opens on (default: 0)")
    p.add_argument("--head", default="mean", help="the head it opens on: a number or mean (default: mean)")
    p.add_argument(
        "--tour", help="a tour (a packaged one's name, e.g. builtin, or a tour file): its stops on this sentence"
    )
    add_decoding_arguments(p)
    p.set_defaults(func=cmd_lesson)


def add_score_parser(sub) -> None:
    """`score ENGLISH GERMAN [--json]`: the German forced as the model's output, scored piece by piece."""
    p = sub.add_parser("score", help="score a German sentence as the translation of an English one, piece by piece")
    p.add_argument("sentence", help="the English sentence")
    p.add_argument("german", help="the German sentence to score (refused, not cut, beyond the model's max_len)")
    p.add_argument("--json", action="store_true", help="the score as JSON instead of a table")
    p.add_argument("--model", default=None, help="checkpoint folder, bundled name (seed000, seed004) or Hub repo id")
    p.add_argument("--device", default="auto")
    p.set_defaults(func=cmd_score)


def add_corpus_parser(sub) -> None:
    from .corpus.build import DEFAULT_CACHE, DEFAULT_OUT
    from .corpus.sources import SOURCES

    names = [source.name for source in SOURCES]
    optional = ", ".join(source.name for source in SOURCES if not source.default)

    corpus = sub.add_parser("corpus", help="build the EN-DE corpus from Debian's translation files")
    actions = corpus.add_subparsers(dest="action", required=True)
    p = actions.add_parser("build", help="fetch the packages with apt-get download and extract the pairs")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"downloads, reused (default {DEFAULT_CACHE})")
    p.add_argument("--from-dir", type=Path, default=None, help="a folder of .deb files fetched elsewhere")
    p.add_argument(
        "--sources", default=None, help=f"comma-separated, or all (default: all but {optional}) of: {', '.join(names)}"
    )
    p.set_defaults(func=cmd_corpus_build)


def add_backtranslate_parser(sub) -> None:
    p = sub.add_parser("backtranslate", help="translate German text into English with a de-en model: synthetic pairs")
    p.add_argument("--in", dest="german", type=Path, required=True, help="German sentences, one a line")
    p.add_argument("--out", type=Path, required=True, help="english<TAB>german<TAB>synthetic lines, for --extra-tsv")
    p.add_argument("--limit", type=int, default=0, help="only the first N sentences (0 = all)")
    add_decoding_arguments(p)
    p.set_defaults(func=cmd_backtranslate)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose or args.command in ("train", "corpus", "retrain") else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, FileExistsError) as err:  # CheckpointError is a ValueError
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
