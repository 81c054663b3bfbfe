"""The frames: every step's figures drawn by the handlers, for the browser to step through; and their variants
(their format: figures/payload.py).

step_frames draws, for every step of a translation, what draw_step returns at that step (the step plots, the
step's label, its alternatives to branch on, the token strip and the step's text alternative) into one JSON value:
the frames. lesson_frame is
the lesson's two plots at one step, sent first. variants draws the plots a new layer or head redraws (SWITCHED) in
every other layer and head, sent as changes to the frames' own figures (json_changes), step after step, from which
the browser makes that layer's and head's frames (js/stepping.js: framesFor). The handlers stay the one definition of
every figure: the browser only picks and patches what they drew.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time

import gradio as gr

from .. import i18n
from ..figures.alt import step_alt
from ..figures.changes import frame_key, step_changes
from ..figures.guess import guess_data
from ..figures.payload import Frames, Variants
from ..figures.strip import token_strip
from . import handlers as h
from .common import fills_box, plot, slides
from .markdown import md
from .models import model_label
from .registry import HEAD, LAYER, STEP_PLOTS

N_OUT = len(STEP_PLOTS) + 4  # draw_step's outputs: the step plots, the label, the alternatives, the strip, the alt
# Each set of frames's number, in the order they were drawn: the page keeps no frames older than those it holds (a
# late event of an earlier translation). Counted from the server's start time, so a restarted server's frames are
# newer than those a page kept from before.
SERIALS = itertools.count(time.time_ns() // 1_000_000)


# The most attention cells (steps × layers × heads and their mean × source pieces) whose variants are drawn in
# advance: a ten-word sentence has 2,300 with the bundled d256 models (1.2 s, 0.8 MB), a 3,000-character paste cut to
# 128 pieces 79,000 (7.5 s, 11 MB), which held up the next translation (the server drawing them, then the browser
# reading them). Beyond it a new layer or head is drawn by the server when it is chosen, as before the variants.
VARIANTS_MAX_CELLS = 40_000
LESSON_PLOTS = [plot for plot in STEP_PLOTS if plot.group == "page"]  # the lesson's map and top-k, always on screen
SWITCHED = [plot for plot in STEP_PLOTS if plot.follows & (LAYER | HEAD)]  # what a new layer or head redraws


def draw_step(sess, t, lay, hd, pres, lng, unt):
    """The plots that follow the step or the head, the step's label, its alternatives to branch on, the strip, and
    the step's text alternative."""
    if sess is None:
        return [gr.skip()] * N_OUT
    return step_outputs(sess, h.clamp_step(sess.trace, t), lay, hd, pres, lng, unt, STEP_PLOTS)


def step_outputs(sess, t, lay, hd, pres, lng, unt, plots) -> list:
    """draw_step's outputs at step t with `plots` drawn; every other step plot is None."""
    trace = sess.trace
    drawn = {p.id for p in plots}
    figs = h.step_figures(trace, t, int(lay), hd, slides(pres), lang=lng, units=unt, plots=plots)
    return [step_plot(p, figs, pres) if p.id in drawn else None for p in STEP_PLOTS] + [
        h.step_label(trace, t, lng),
        gr.update(choices=h.alternatives(trace, t), value=None),
        token_strip(trace, t, lng),
        alt_text(trace, t, lay, hd, lng, unt),
    ]


def alt_text(trace, t, lay, hd, lng, unt) -> str:
    """The step's text alternative (figures.alt.step_alt) as the page shows it: Markdown, the tokens literal."""
    return md(step_alt(trace, t, int(lay), hd, unt, lng))


def step_plot(p, figs: dict, pres):
    """A step plot's value for the page, from its figure in `figs`."""
    return plot(figs[p.id], pres, fit=fills_box(p.id, pres))


def step_frames(sess, t, lay, hd, pres, lng, unt="pieces") -> dict | None:
    """draw_step's outputs at every step, for the browser: the plots' figure JSON, labels, alternatives, strips and
    text alternatives."""
    if sess is None:
        return None
    return frames(sess, range(len(sess.trace.target_ids)), STEP_PLOTS, lay, hd, pres, lng, unt)


def lesson_frame(sess, t, lay, hd, pres, lng, unt="pieces") -> dict | None:
    """The lesson's plots, the label, alternatives and strip at step t alone: what a translation or a new look,
    layer, units or language paints first, in a fraction of the time every step's frames take (step_frames)."""
    if sess is None:
        return None
    return frames(sess, [h.clamp_step(sess.trace, t)], LESSON_PLOTS, lay, hd, pres, lng, unt)


def frames(sess, steps, plots, lay, hd, pres, lng, unt) -> dict:
    """Frames of `plots` at `steps` (all of them, or one: `only`). Per step plot a list over the trace's steps, or
    None where the plot is not among `plots` (the page leaves it as it is); a step not drawn is None in each list."""
    n, total = len(STEP_PLOTS), len(sess.trace.target_ids)
    drawn = {t: step_outputs(sess, t, lay, hd, pres, lng, unt, plots) for t in steps}
    ids = {p.id for p in plots}

    def each(column, convert=lambda value: value) -> list:
        return [convert(drawn[t][column]) if t in drawn else None for t in range(total)]

    plot_frames = [each(i, with_revision) if p.id in ids else None for i, p in enumerate(STEP_PLOTS)]
    complete = len(drawn) == total and all(p in plots for p in SWITCHED)
    return Frames(
        key=frame_key(lay, hd, pres, lng, unt),
        shown=shown_key(sess, lng),
        ids=[p.id for p in STEP_PLOTS],
        lesson=[p.group == "page" for p in STEP_PLOTS],  # drawn first (js/stepping.js: paint)
        steps=total,
        plots=plot_frames,
        label=each(n),
        alternatives=each(n + 1, lambda update: [list(choice) for choice in update["choices"]]),
        strip=each(n + 2),
        alt=each(n + 3),
        last=i18n.text("at-last-step", lng),
        play=i18n.text("play", lng),
        pause=i18n.text("pause", lng),
        layers=sess.trace.n_layers,
        heads=sess.trace.n_heads,
        guess=guess_data(sess.trace, lng, keys=sess.guess_keys),
        # the variants' name for these frames, where they hold every step of the SWITCHED plots
        base=variants_base([plot_frames[STEP_PLOTS.index(p)] for p in SWITCHED]) if complete else None,
        serial=next(SERIALS),  # new frames, even of the same figures, are told apart: their arrival repaints
        only=None if len(drawn) == total else next(iter(drawn)),  # the one step drawn, where not every step is
    ).to_json()


def shown_key(sess, lng) -> str:
    """The translation the frames were drawn from, as the page shows it: its text and the model's name, which ends
    the model menu's label in every language (js/page.js: shownKey reads both back from the page)."""
    label = model_label(sess.model, lng)
    name = sess.model if label.endswith(f"({sess.model})") else label
    return json.dumps([sess.trace.target_text, name], separators=(",", ":"), ensure_ascii=False)


def with_revision(data) -> str | None:
    """A plot's figure JSON with layout.datarevision naming its data.

    Plotly.react takes arrays of a new identity for new data unless datarevision says otherwise: where a step
    changes only the outline and the title (cross-attention), the heatmaps are then not recomputed.
    """
    if data is None:
        return None
    figure = json.loads(data.plot)
    digest = hashlib.sha1(json.dumps(figure["data"], sort_keys=True).encode(), usedforsecurity=False)
    figure["layout"]["datarevision"] = digest.hexdigest()[:16]
    return json.dumps(figure, separators=(",", ":"))


def variant(p, lay, hd) -> str:
    """Which of a SWITCHED plot's drawings a layer and head pick: "layer/head", or "layer" where it shows every head
    (decoder self-attention); two heads that draw alike (head_drawn) share one."""
    return f"{int(lay)}/{p.head_drawn(str(hd))}" if p.follows & HEAD else f"{int(lay)}"


def variants_base(columns: list[list]) -> str:
    """A name for the SWITCHED plots' frames (one list over the steps per plot), for the variants to say which
    frames they change."""
    text = "\n".join(json.dumps(column) for column in columns)
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


def variants(sess, t, lay, hd, pres, lng, unt="pieces") -> dict | None:
    """The SWITCHED plots at every step for every layer and head of the model, as changes to the frames at `lay`,
    `hd` (step_changes): the browser makes the frames of another layer or head from them (js/stepping.js: framesFor).

    keys[i][f"{layer}/{head}"] names plot i's drawing for that layer and head (variant); own[i] the frames' own,
    patches[i][name] the changes that draw another. None for a plot that no layer or head changes. alt[f"{layer}/
    {head}"] is the step's text alternative at every step for that layer and head. None in all for a translation of
    more than VARIANTS_MAX_CELLS cells: its layers and heads are drawn when they are chosen.
    """
    if sess is None or variant_cells(sess.trace) > VARIANTS_MAX_CELLS:
        return None
    trace, lay, hd = sess.trace, int(lay), str(hd)
    steps = range(len(trace.target_ids))
    own = {p.id: variant(p, lay, hd) for p in SWITCHED}
    base = drawn_plots(sess, steps, SWITCHED, lay, hd, pres, lng, unt)
    keys: dict[str, dict] = {p.id: {} for p in SWITCHED}
    patches: dict[str, dict] = {p.id: {} for p in SWITCHED}
    alt: dict[str, list[str]] = {}
    for layer in range(trace.n_layers):
        for head in ["mean", *map(str, range(trace.n_heads))]:
            alt[f"{layer}/{head}"] = [alt_text(trace, t, layer, head, lng, unt) for t in steps]
            names = {p.id: variant(p, layer, head) for p in SWITCHED}
            for p in SWITCHED:
                keys[p.id][f"{layer}/{head}"] = names[p.id]
            todo = [p for p in SWITCHED if names[p.id] != own[p.id] and names[p.id] not in patches[p.id]]
            drawn = drawn_plots(sess, steps, todo, layer, head, pres, lng, unt) if todo else {}
            for p in todo:
                patches[p.id][names[p.id]] = step_changes(base[p.id], drawn[p.id])
    return Variants(
        base=variants_base([base[p.id] for p in SWITCHED]),
        keys=[keys.get(p.id) for p in STEP_PLOTS],
        own=[own.get(p.id) for p in STEP_PLOTS],
        patches=[patches.get(p.id) for p in STEP_PLOTS],
        alt=alt,
    ).to_json()


def variant_cells(trace) -> int:
    """How many cross-attention cells the variants of a translation would draw: every step in every layer, for
    every head and their mean, over the source pieces (the other plots' grow alike)."""
    return len(trace.target_ids) * trace.n_layers * (trace.n_heads + 1) * len(trace.source_tokens)


def drawn_plots(sess, steps, plots, lay, hd, pres, lng, unt) -> dict[str, list]:
    """Each of `plots` at each of `steps` as the frames hold it."""
    out: dict[str, list] = {p.id: [] for p in plots}
    for t in steps:
        figs = h.step_figures(sess.trace, t, int(lay), hd, slides(pres), lang=lng, units=unt, plots=plots)
        for p in plots:
            out[p.id].append(with_revision(step_plot(p, figs, pres)))
    return out
