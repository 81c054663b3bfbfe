"""App server time: a step change and a fresh translation, against the bare model forward pass.

    python benchmarks/bench_app.py [--model seed000] [--sentence "..."] [--repeat 20] [--threads 1]

Server time is what a handler spends between receiving the values and handing
Gradio the serialised figures (figure building + JSON), measured in-process with
the same functions the app's page wires. The baseline is one teacher-forced forward pass
of the same model on the same sentence and translation, measured in the same run.
Cold start is the time from starting `python app.py` (a fresh process: imports, model
loading, building the page) until its first page answers 200 on 127.0.0.1. Sizes: the step change's and
every view's figures as JSON, and the trace download's JSON (trace_json_bytes).
Prints a JSON report; BENCHMARKS.md keeps the latest numbers.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import timed  # noqa: E402  (benchmarks/common.py, beside this script)

from transformer_viz import figures
from transformer_viz.app import handlers  # noqa: E402
from transformer_viz.app import session as sessions  # noqa: E402
from transformer_viz.app.models import get_translator  # noqa: E402
from transformer_viz.decoding import DecodeOptions  # noqa: E402


def cold_start(threads: int) -> float:
    """Seconds from launching app.py to its first page (HTTP 200), in a fresh process."""
    import tempfile

    from bench_load import free_port, start_app, wait_for_page

    port = free_port()
    start = time.monotonic()
    proc = start_app(None, port, Path(tempfile.gettempdir()) / f"bench_app_{port}.log", threads)
    try:
        wait_for_page(f"http://127.0.0.1:{port}/", proc)
        return time.monotonic() - start
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="seed000")
    parser.add_argument("--sentence", default="I get up early every morning and drink a cup of coffee.")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0 = default)")
    parser.add_argument("--cold-starts", type=int, default=2, help="fresh app.py processes to time (0 = skip)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    translator = get_translator(args.model)
    options = DecodeOptions(max_new_tokens=64)
    session = sessions.translate(args.sentence, args.model, options)
    trace = session.trace
    src, _ = translator.encode_sources([args.sentence])
    tgt_in = torch.tensor([[translator.config.bos_id] + trace.target_ids[:-1]])

    def forward() -> None:
        with torch.no_grad():
            translator.model(src, tgt_in)

    def step_change() -> int:
        figs = handlers.step_figures(trace, len(trace.target_ids) // 2, 0, "mean", False)
        return sum(len(figures.figure_json(f)) for f in figs.values())

    def all_views() -> int:
        # what the page draws after a translation: the step plots at one step (the frames draw every step) and
        # every other plot (page.draw_others)
        figs = {
            **handlers.step_figures(trace, 0, 0, "mean", False),
            **handlers.static_figures(trace, 0, "cross", False),
            **handlers.comparison_figures(False),
            **handlers.analysis_figures(trace, 0, False),
        }
        return sum(len(figures.figure_json(f)) for f in figs.values() if f is not None)

    def fresh_translation() -> None:
        sessions.translate(args.sentence, args.model, options)
        all_views()

    forward_ms = timed(forward, args.repeat)
    step_ms = timed(step_change, args.repeat)
    fresh_ms = timed(fresh_translation, max(3, args.repeat // 3))
    report = {
        "model": args.model,
        "sentence": args.sentence,
        "source_tokens": len(trace.source_ids),
        "target_tokens": len(trace.target_ids),
        "torch_threads": torch.get_num_threads(),
        "cpu": platform.processor() or platform.machine(),
        "forward_ms": round(forward_ms, 2),
        "step_change_ms": round(step_ms, 1),
        "step_change_vs_forward": round(step_ms / forward_ms, 1),
        "fresh_translation_ms": round(fresh_ms, 1),
        "fresh_translation_vs_forward": round(fresh_ms / forward_ms, 1),
        "step_payload_bytes": step_change(),
        "all_views_payload_bytes": all_views(),
        "trace_json_bytes": len(trace.to_json().encode()),  # the trace download (every field, every step)
        "cold_start_to_first_page_s": [round(cold_start(args.threads or 1), 1) for _ in range(args.cold_starts)],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
