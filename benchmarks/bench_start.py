"""The first translation after a start, with and without the warm-up, and where a start's time goes.

    python benchmarks/bench_start.py [--model seed000] [--starts 3] [--later 5] [--threads 1]

Each start is a fresh Python process (this script with --child), as a server's is: it imports the app (torch,
gradio, plotly, the package: each timed), builds the page (build_demo), warms the server's paths (app/warm.py's
warm_up, its parts timed) or not, and then answers new sentences with the handlers a translation on the page runs
(server time, no browser): the translation, its model card and token table, the lesson's frame (what the page
paints first: "lesson"), then every step's frames, the trace file, every other plot and the variants ("all"). Each
sentence is one not asked before in that process, so that no trace comes from the cache. Reported per start: the
first sentence's times beside the median of the `later` ones after it, and their ratio; then the medians over the
starts of each kind, which run in turns (cold, warm, cold, warm, …), and the first translation's time with the
warm-up against without. Without the warm-up the models load on the first translation, as they did before it.
Prints JSON; BENCHMARKS.md keeps the numbers.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time

from common import ROOT, parser

# New sentences of five to seven words (none is warm.WARM_SENTENCE): the first after a start, then the later ones.
SENTENCES = [
    "The children are playing in the garden.",
    "My father has bought a new car.",
    "The weather is nice today.",
    "I know that she is tired.",
    "Where is the station, please?",
    "The kitchen table is very old.",
    "We drink coffee every morning.",
    "The dog sleeps on the sofa.",
    "She reads a book in the evening.",
]


def child(model: str, warm: bool, later: int, threads: int) -> dict:
    """One start: imports, page build, the warm-up or not, then the first and `later` new sentences."""
    clock, start = time.perf_counter, {}

    def timed(name: str, work):
        began = clock()
        result = work()
        start[name] = round(clock() - began, 3)
        return result

    torch = timed("import_torch", lambda: __import__("torch"))
    torch.set_num_threads(threads)
    timed("import_gradio", lambda: __import__("gradio"))
    timed("import_plotly", lambda: __import__("plotly.graph_objects"))
    timed("import_app", lambda: __import__("transformer_viz.app.page"))
    from transformer_viz.app import page
    from transformer_viz.app import warm as warming

    timed("page_build", page.build_demo)
    if warm:
        start["warming"] = timed("warm_up", warming.warm_up)
    answers = [answer(sentence, model) for sentence in SENTENCES[: 1 + later]]
    return dict(start=start, first=answers[0], later=answers[1:])


def answer(sentence: str, model: str) -> dict[str, float]:
    """Seconds the handlers of a translation on the page take for `sentence`: to the lesson's frame ("lesson", what
    the page paints first) and to the last of what it sends ("all")."""
    from transformer_viz.app import frames, handlers, session
    from transformer_viz.app.common import LOOKS, plot
    from transformer_viz.app.downloads import trace_file
    from transformer_viz.app.model_card import model_card
    from transformer_viz.app.models import get_translator
    from transformer_viz.app.registry import OTHER_PLOTS
    from transformer_viz.decoding import DecodeOptions

    began = time.perf_counter()
    sess = session.translate(sentence, model, DecodeOptions())
    model_card(get_translator(model))  # what a new session shows beside its plots (shown.session_outputs)
    handlers.tokens_table(sess.trace)
    handlers.notices_info(sess.trace)
    frames.lesson_frame(sess, 0, 0, "mean", LOOKS[0], "en")
    lesson = time.perf_counter() - began
    frames.step_frames(sess, 0, 0, "mean", LOOKS[0], "en")
    trace_file(sess.trace)
    others = handlers.view_figures(OTHER_PLOTS, sess.trace, 0, 0, "mean", "cross", False)
    for fig in others.values():
        plot(fig)
    frames.variants(sess, 0, 0, "mean", LOOKS[0], "en")
    return dict(lesson=round(lesson, 3), all=round(time.perf_counter() - began, 3))


def start(kind: str, args) -> dict:
    """A fresh process's report (child), with the first answer's ratios to the median of the later ones."""
    command = [sys.executable, __file__, "--child", kind, "--model", args.model, "--later", str(args.later)]
    env = {
        **os.environ,
        "OMP_NUM_THREADS": str(args.threads),
        "HF_HUB_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    out = subprocess.run(command + ["--threads", str(args.threads)], cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    run = json.loads(out.stdout.strip().splitlines()[-1])
    for part in ("lesson", "all"):
        median = statistics.median(a[part] for a in run["later"])
        run[f"{part}_median_later"] = round(median, 3)
        run[f"{part}_first_vs_median"] = round(run["first"][part] / median, 2)
    return run


def report(runs: dict[str, list[dict]], args) -> dict:
    """Each start, and the medians over the starts of each kind."""
    summary = {}
    for kind, starts in runs.items():
        summary[kind] = {
            key: round(statistics.median(run[key] for run in starts), 3)
            for key in ("lesson_first_vs_median", "all_first_vs_median", "lesson_median_later", "all_median_later")
        }
        for part in ("lesson", "all"):
            summary[kind][f"{part}_first"] = round(statistics.median(run["first"][part] for run in starts), 3)
        summary[kind]["start"] = {
            name: round(statistics.median(run["start"][name] for run in starts), 3)
            for name in starts[0]["start"]
            if name != "warming"
        }
    warm_parts = [run["start"]["warming"] for run in runs["warm"]]
    summary["warm"]["warming"] = {k: round(statistics.median(p[k] for p in warm_parts), 3) for k in warm_parts[0]}
    for part in ("lesson", "all"):
        summary[f"{part}_first_warm_vs_cold"] = round(
            summary["warm"][f"{part}_first"] / summary["cold"][f"{part}_first"], 2
        )
    return dict(
        model=args.model,
        threads=args.threads,
        cpu=platform.processor() or platform.machine(),
        cores=os.cpu_count(),
        sentences=SENTENCES[: 1 + args.later],
        summary=summary,
        starts=runs,
    )


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--model", default="seed000")
    p.add_argument("--starts", type=int, default=3, help="fresh processes of each kind (cold, warm), in turns")
    p.add_argument("--later", type=int, default=5, help="new sentences timed after the first, for the median")
    p.add_argument("--child", choices=["cold", "warm"], help="(internal) be one start of this kind")
    args = p.parse_args()
    if args.later + 1 > len(SENTENCES):
        p.error(f"at most {len(SENTENCES) - 1} later sentences")
    if args.child:
        print(json.dumps(child(args.model, args.child == "warm", args.later, args.threads)))
        return
    runs: dict[str, list[dict]] = {"cold": [], "warm": []}
    for _ in range(args.starts):
        for kind in runs:
            runs[kind].append(start(kind, args))
    print(json.dumps(report(runs, args), indent=1))


if __name__ == "__main__":
    main()
