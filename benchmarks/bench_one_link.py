"""A class on one link, at the handler level: many visitors ask at once for the same translation and its lesson.

    python benchmarks/bench_one_link.py [--visitors 30] [--model seed000] [--repeat 3] [--threads 1]

Each visitor is a thread doing what the server does for a visitor who opens the teacher's link: session.translate
(the trace, computed once for everyone through the server's cache, app/traces.py) and the lesson's frame in the
visitor's own look and language (frames.lesson_frame; the visitors take the screen's and a slide's look and
English, Japanese and Korean in turn). Timed, in turns, on one sentence with the cache emptied before each: one
visitor alone (the baseline); `visitors` threads released at once, the time until the last of them has its lesson
and its ratio to one visitor's; and the same crowd with every visitor computing a trace of its own (the cache's
sharing off: as the server did before it). Errors are counted (any exception in a visitor). The lesson's events skip
Gradio's queue, so its threads run them side by side as here. The process is warmed first (app/warm.py). Prints
JSON; BENCHMARKS.md keeps the numbers.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import threading
import time

from common import parser, set_threads

from transformer_viz.app import frames, traces
from transformer_viz.app import session as sessions
from transformer_viz.app.common import LOOKS
from transformer_viz.app.warm import warm_up
from transformer_viz.decoding import DecodeOptions

SENTENCE = "The children are playing in the garden behind the old house."
LANGUAGES = ("en", "ja", "ko")


def visit(i: int, model: str) -> None:
    """What the server does for visitor i who opens the link: the translation, then the lesson in their look."""
    sess = sessions.translate(SENTENCE, model, DecodeOptions())
    frames.lesson_frame(sess, 0, 0, "mean", LOOKS[i % 2], LANGUAGES[i % len(LANGUAGES)])


def crowd(n: int, model: str) -> dict:
    """`n` visitors released at once: seconds until the last has its lesson, the median visitor's, the errors."""
    traces.TRACES.clear()
    release, ends, errors = threading.Barrier(n + 1), [0.0] * n, []

    def one(i: int) -> None:
        release.wait()
        try:
            visit(i, model)
        except Exception as err:  # noqa: BLE001  (counted and reported)
            errors.append(repr(err))
        ends[i] = time.perf_counter()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    release.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    took = [end - began for end in ends]
    return dict(last=round(max(took), 3), median=round(statistics.median(took), 3), errors=errors)


def unshared(n: int, model: str) -> dict:
    """crowd() with every visitor computing its own trace: no key is shared."""
    shared = traces.trace_key
    traces.trace_key = lambda *args, **kwargs: None
    try:
        return crowd(n, model)
    finally:
        traces.trace_key = shared


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--model", default="seed000")
    p.add_argument("--visitors", type=int, default=30)
    p.set_defaults(repeat=3)
    args = p.parse_args()
    threads = set_threads(args.threads)
    warm_up()
    runs: dict[str, list[dict]] = {"one": [], "shared": [], "unshared": []}
    for _ in range(args.repeat):
        runs["one"].append(crowd(1, args.model))
        runs["shared"].append(crowd(args.visitors, args.model))
        runs["unshared"].append(unshared(args.visitors, args.model))

    def median(kind: str, key: str) -> float:
        return round(statistics.median(run[key] for run in runs[kind]), 3)

    one = median("one", "last")
    report = dict(
        model=args.model,
        sentence=SENTENCE,
        visitors=args.visitors,
        torch_threads=threads,
        cpu=platform.processor() or platform.machine(),
        cores=os.cpu_count(),
        one_visitor_s=one,
        shared_last_s=median("shared", "last"),
        shared_median_visitor_s=median("shared", "median"),
        shared_last_vs_one=round(median("shared", "last") / one, 1),
        unshared_last_s=median("unshared", "last"),
        unshared_last_vs_one=round(median("unshared", "last") / one, 1),
        errors={kind: sum(len(run["errors"]) for run in kind_runs) for kind, kind_runs in runs.items()},
        runs=runs,
    )
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
