"""The server's paths warmed while it starts, so that the first visitor's translation costs what a later one does.

In a fresh process the first translation paid for more than its own work (benchmarks/bench_start.py, BENCHMARKS.md):
each model loaded on first use (building it on PyTorch's meta device imports torch._dynamo: 1–1.5 s), its model
card's two dry runs, and the first figure of each kind with its JSON (Plotly's figure classes, the figures' own first
calls: the lesson's first frame took 250 ms, a later one 2 ms). warm_up pays those once at start: every bundled model
loaded, its card made and the example a first visit opens on (common.LESSON_EXAMPLE) traced with it, with the page's
default options; every registered plot drawn in each look (the screen's and a slide's) and encoded as the page sends
it, with the lesson's frame. The example's trace stays in the cache (traces.py): every first visit finds it there,
and draws its lesson (in the visitor's language and look) from it. The rest of a translation (the trace of any other
sentence, every step's frames, the variants, the trace file) costs the first time what it costs later, and is not
warmed.

launch() serves the page with serve, which starts it in a thread of its own once the server answers: the server's
start neither waits for its 1–4 s on two cores nor shares the processor with it (started beside it, the warm-up
held the first page back from 4.8–6.4 s to 8.5–12.7 s: a Space's health check waits for that page). A visitor who
comes before the warm-up ends meets a model being loaded (models.get_translator waits for it) and the same first
calls, as without it. Nothing it makes is kept but what the server keeps anyway: the models, their cards and the
sentence's traces (traces.TRACES).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from ..decoding import DecodeOptions
from ..hub.hub import CHECKPOINTS_DIR
from . import frames
from . import handlers as h
from .common import LESSON_EXAMPLE, LOOKS, fills_box, plot, slides
from .model_card import model_card
from .models import available_models, get_translator
from .registry import PLOTS
from .session import translate

if TYPE_CHECKING:
    import gradio as gr

log = logging.getLogger(__name__)
WARM_SENTENCE = LESSON_EXAMPLE  # every first visit asks for it: its traces stay in the cache
FIGURE_LOOKS = list({slides(look): look for look in LOOKS}.values())  # the screen's, a slide's (PNG or SVG: alike)


def bundled_models() -> list[str]:
    """The menu's models that are folders in checkpoints/ (a Hub model would be downloaded: it loads on demand)."""
    return [name for name in available_models(CHECKPOINTS_DIR) if (CHECKPOINTS_DIR / name).is_dir()]


def warm_up(sentence: str = WARM_SENTENCE) -> dict[str, float]:
    """Each path a translation takes for the first time, taken once; the seconds each part took (models, cards,
    traces, figures)."""
    seconds: dict[str, float] = {}

    def part(name: str, work) -> None:
        began = time.perf_counter()
        work()
        seconds[name] = round(time.perf_counter() - began, 3)

    names = bundled_models()
    part("models", lambda: [get_translator(name) for name in names])
    part("cards", lambda: [model_card(get_translator(name)) for name in names])
    sessions = []
    part("traces", lambda: sessions.extend(translate(sentence, name, DecodeOptions()) for name in names))
    if not sessions:
        return seconds
    part("figures", lambda: [draw_figures(sessions[0], look) for look in FIGURE_LOOKS])
    return seconds


def draw_figures(sess, look: str) -> None:
    """Every registered plot of the session's trace in `look`, as the page sends it, and the lesson's frame."""
    figs = h.view_figures(PLOTS, sess.trace, presentation=slides(look))
    for plot_id, fig in figs.items():
        plot(fig, look, fit=fills_box(plot_id, look))
    frames.lesson_frame(sess, 0, 0, "mean", look, "en")


def serve(demo: gr.Blocks, **options) -> None:
    """`demo` served as demo.launch(**options) serves it, and its paths warmed in a thread (start) once it answers."""
    wait = not options.pop("prevent_thread_lock", False)
    demo.launch(prevent_thread_lock=True, **options)
    start()
    if wait:  # as launch() does in a script: the process lives while the server runs
        demo.block_thread()


def start() -> threading.Thread:
    """warm_up in a daemon thread of its own (the server does not wait for it to stop); it logs what it took."""

    def run() -> None:
        began = time.perf_counter()
        try:
            parts = warm_up()
        except Exception:  # noqa: BLE001  (a visitor's first translation will meet the same error, and say it)
            log.exception("warming the server's paths failed")
            return
        log.info("warmed the server's paths in %.1f s: %s", time.perf_counter() - began, parts)

    thread = threading.Thread(target=run, name="warm-up", daemon=True)
    thread.start()
    return thread
