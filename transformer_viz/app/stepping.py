"""Stepping in the browser: every step's figures reach the page once, and a step change is drawn there.

After a translation (or a new layer, head, look, units or language) the server runs draw_step, the step's plots,
label, alternatives to branch on and token strip, for every step of the trace, into one hidden JSON value: the
frames. Previous, Next, the slider, a click in the token strip and Play then pick a frame in the browser and
hand it to the page's own components (a js-only event: no request to the server). A head change still runs draw_step on
the server, so the page and the frames keep one definition of each figure.

Frames drawn for another layer, head, look, units or language than the page shows, or for another translation
(a new one is on the page, its frames not yet), are not drawn from: the step moves, and the new frames' arrival
paints the step the slider is at.

Before every step's frames, a translation or a new look, layer, units or language sends the lesson's frame: its
map and top-k at one step (lesson_frame), painted first while the server draws the rest.
"""

from __future__ import annotations

import hashlib
import itertools
import json

import gradio as gr

from .. import i18n
from . import handlers as h
from .common import fills_box, plot, slides
from .header import Header
from .models import model_label
from .registry import STEP_PLOTS
from .strip import token_strip
from .tabs import Event

SERIALS = itertools.count(1)  # each set of frames's number


LESSON_PLOTS = [plot for plot in STEP_PLOTS if plot.group == "page"]  # the lesson's map and top-k, always on screen


def draw_step(sess, t, lay, hd, pres, lng, unt):
    """The plots that follow the step or the head, the step's label, its alternatives to branch on, the strip."""
    if sess is None:
        return [gr.skip()] * N_OUT
    return step_outputs(sess, h.clamp_step(sess.trace, t), lay, hd, pres, lng, unt, STEP_PLOTS)


def step_outputs(sess, t, lay, hd, pres, lng, unt, plots) -> list:
    """draw_step's outputs at step t with `plots` drawn; every other step plot is None."""
    trace = sess.trace
    drawn = {p.id for p in plots}
    figs = h.step_figures(trace, t, int(lay), hd, slides(pres), lang=lng, units=unt, plots=plots)
    return [plot(figs[p.id], pres, fit=fills_box(p.id, pres)) if p.id in drawn else None for p in STEP_PLOTS] + [
        h.step_label(trace, t, lng),
        gr.update(choices=h.alternatives(trace, t), value=None),
        token_strip(trace, t, lng),
    ]


def step_frames(sess, t, lay, hd, pres, lng, unt="pieces") -> dict | None:
    """draw_step's outputs at every step, for the browser: the plots' figure JSON, labels, alternatives, strips."""
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

    return dict(
        key=frame_key(lay, hd, pres, lng, unt),
        shown=shown_key(sess, lng),
        ids=[p.id for p in STEP_PLOTS],
        lesson=[p.group == "page" for p in STEP_PLOTS],  # drawn first (PAINT_JS)
        serial=next(SERIALS),  # new frames, even of the same figures, are told apart: their arrival repaints
        steps=total,
        only=None if len(drawn) == total else next(iter(drawn)),  # the one step drawn, where not every step is
        plots=[each(i, with_revision) if p.id in ids else None for i, p in enumerate(STEP_PLOTS)],
        label=each(n),
        alternatives=each(n + 1, lambda update: [list(choice) for choice in update["choices"]]),
        strip=each(n + 2),
        last=i18n.text("at-last-step", lng),
        play=i18n.text("play", lng),
        pause=i18n.text("pause", lng),
    )


def frame_key(lay, hd, pres, lng, unt) -> str:
    """What the frames were drawn for; the browser compares it with the controls' values (FRAME_KEY_JS)."""
    return json.dumps([int(lay), str(hd), str(pres), str(lng), str(unt)], separators=(",", ":"))


def shown_key(sess, lng) -> str:
    """The translation the frames were drawn from, as the page shows it: its text and the model's name, which ends
    the model menu's label in every language (SHOWN_KEY_JS reads both back from the page)."""
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


# The translation the page shows: a new session's outputs come before its frames, and until they arrive the
# frames in the page are the last translation's. The model's name, not its whole label: a new language relabels
# the menu after the lesson's frame in that language has been painted.
SHOWN_KEY_JS = """(() => {
  const text = document.querySelector('#translation textarea'), model = document.querySelector('#model input');
  const label = model ? model.value : '', name = label.match(/[(]([^()]*)[)]$/);
  return JSON.stringify([text ? text.value : '', name ? name[1] : label]);
})()"""
# JavaScript. SKIP leaves a component as it is; PAINT(f, t) is the outputs of draw_step at step t, from frames f.
SKIP = "{__type__: 'update'}"
FRAME_KEY_JS = (
    "(lay, hd, pres, lng, unt) => JSON.stringify([Math.round(Number(lay)), `${hd}`, `${pres}`, `${lng}`, `${unt}`])"
)
# A plot the page has drawn is redrawn in place with Plotly's own API, the way Gradio's plot component draws
# (responsive, autosize, margins that grow), so that only what the step changed is drawn again:
# - Plotly.relayout of the layout's changes where the data are the same (their revision, with_revision): a step
#   of cross-attention, the masks or the pipeline moves an outline and a title (measured: 5 ms, not 50);
# - else Plotly.react, with the drawn plot's config: the download's name changes with every step, and a new
#   config makes react draw everything anew (measured: 35 ms, not 50, for the top-k bars).
# The download's name, format and scale (a new look's) are then set where the camera button reads them. A plot
# not drawn yet (its tab was never opened: Gradio mounts a tab's plots when it first opens) gets its Gradio value,
# which Gradio draws then.
REDRAW_JS = """(id, json) => {
  const el = document.querySelector('#' + id + ' .js-plotly-plot');
  if (!el || !el.data || !el.layout || !el._context || !window.Plotly) return {type: 'plotly', plot: json};
  const prepared = text => {
    const fig = JSON.parse(text);
    fig.layout.autosize = true;
    fig.layout.margin = Object.assign(fig.layout.margin || {}, {autoexpand: true});
    return fig;
  };
  const leaf = v => v === null || typeof v !== 'object' || Array.isArray(v) || 'bdata' in v;
  const changes = (a, b, path, into) => {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = a[k], y = b[k];
      if (x !== undefined && y !== undefined && !leaf(x) && !leaf(y)) changes(x, y, path + k + '.', into);
      else if (JSON.stringify(x) !== JSON.stringify(y)) into[path + k] = y === undefined ? null : y;
    }
    return into;
  };
  const fig = prepared(json), drawn = el.tvDrawn, images = el._context.toImageButtonOptions || {};
  const download = Object.assign({}, fig.config.toImageButtonOptions);
  if (drawn && drawn.layout === el.layout && drawn.revision === fig.layout.datarevision) {
    const {meta, ...layout} = fig.layout;
    const {meta: _, ...before} = prepared(drawn.json).layout;
    const update = changes(before, layout, '', {});
    if (Object.keys(update).length) window.Plotly.relayout(el, update);
    el.layout.meta = meta;
  } else {
    const config = Object.assign(fig.config, {responsive: true});
    config.toImageButtonOptions = images;
    window.Plotly.react(el, fig.data, fig.layout, config);
  }
  el._context.toImageButtonOptions = Object.assign(el._context.toImageButtonOptions || {}, download);
  el.tvDrawn = {json, layout: el.layout, revision: fig.layout.datarevision};
  return {__type__: 'update'};
}"""
# The lesson's plots are drawn at once; those in tabs just after the page has shown them (one frame later), all in
# one go and at the last step asked for. A plot not drawn yet gets its Gradio value, now.
PAINT_JS = f"""(f, t, suffix) => {{
  const redraw = {REDRAW_JS};
  return [
  ...f.plots.map((frames, i) => {{
    if (frames === null) return {SKIP};
    const id = f.ids[i], json = frames[t];
    if (json === null) return null;
    const el = document.querySelector('#' + id + ' .js-plotly-plot');
    if (f.lesson[i] || !el || !el.data) return redraw(id, json);
    const later = window.tvLater = window.tvLater || {{}}, first = !Object.keys(later).length;
    later[id] = json;
    if (first) requestAnimationFrame(() => setTimeout(() => {{
      window.tvLater = {{}};
      for (const [plot, figure] of Object.entries(later)) redraw(plot, figure);
    }}));
    return {{__type__: 'update'}};
  }}),
  f.label[t] + (suffix || ''),
  {{__type__: 'update', choices: f.alternatives[t], value: null}},
  f.strip[t],
];
}}"""
N_OUT = len(STEP_PLOTS) + 3  # PAINT's outputs: the step plots, the label, the alternatives, the strip
FRAMES_JS = "window.tvFrames"  # where the page keeps the frames that last arrived


def step_js(move: str, arrived: bool = False) -> str:
    """A js-only event on (step, layer, head, look, language, units, extra) → (step, PAINT's outputs).

    `move` is JavaScript computing `to` (the new step) and optionally `suffix` from f, t and extra. The frames
    are not an input: Gradio hands a js function a copy of each input, and the frames are a megabyte (measured:
    the copy was most of a step's time). The frames' own change event (`arrived`) takes them once and keeps them
    in the page for the other events.
    """
    skip = ", ".join([SKIP] * N_OUT)
    head = "(f, t, lay, hd, pres, lng, unt, extra)" if arrived else "(t, lay, hd, pres, lng, unt, extra)"
    # Frames that arrive with a new session come with the step it opens on, and the page may still be setting its
    # controls (the step, layer and head) from the session: the lesson's frame is painted at its own step, and
    # frames that do not match the controls yet leave the step as it is, for the next frames to paint.
    arrival = "if (f.only !== null) to = f.only;" if arrived else ""
    stale = SKIP if arrived else "to"
    frames = FRAMES_JS + " = f;" if arrived else f"const f = {FRAMES_JS};"
    return f"""{head} => {{
  {frames}
  if (!f) return [{SKIP}, {skip}];
  t = Math.round(Number(t));
  let to = t, suffix = '';
  {move}
  to = Math.max(0, Math.min(to, f.steps - 1));
  {arrival}
  // frames drawn for other controls or another translation: the step moves, and the new frames' arrival draws it
  if (f.key !== ({FRAME_KEY_JS})(lay, hd, pres, lng, unt) || f.shown !== {SHOWN_KEY_JS}) return [{stale}, {skip}];
  if (f.only !== null && f.only !== to) return [to, {skip}];  // the lesson's frame alone: every step's follows
  return [to, ...({PAINT_JS})(f, to, suffix)];
}}"""


MOVES = {
    "stay": "",
    "prev": "to = t - 1;",
    "next": "if (t >= f.steps - 1) suffix = ' — ' + f.last; else to = t + 1;",
    "strip": "to = parseInt(String(extra || ''), 10); if (Number.isNaN(to)) to = t;",
}

# Play steps on from the step shown (from the start when at the end) by clicking Next every 0.8 s; Pause, or the
# last step, stops it. The next tick is timed from the frame after the last one was drawn, so that a slow machine
# is not handed steps faster than it draws them. The event writes the button's label (and step 0 to restart).
PLAY_JS = f"""(t, lay, hd, pres, lng, unt) => {{
  const f = {FRAMES_JS};
  const skip = [{", ".join([SKIP] * (N_OUT + 1))}];
  if (window.tvPlaying) {{
    clearTimeout(window.tvPlayer);
    window.tvPlaying = false;
    return [f ? f.play : {SKIP}, ...skip];
  }}
  if (!f || f.key !== ({FRAME_KEY_JS})(lay, hd, pres, lng, unt)) return [{SKIP}, ...skip];
  const current = () => Math.round(Number(document.querySelector('#step-slider input[type=number]').value));
  const tick = () => {{
    if (!window.tvPlaying) return;
    document.querySelector(current() >= f.steps - 1 ? '#step-play' : '#step-next').click();
    requestAnimationFrame(() => requestAnimationFrame(() => {{ window.tvPlayer = setTimeout(tick, 800); }}));
  }};
  window.tvPlaying = true;
  window.tvPlayer = setTimeout(tick, 800);
  if (Math.round(Number(t)) < f.steps - 1) return [f.pause, ...skip];
  if (f.only !== null && f.only !== 0) return [f.pause, 0, ...skip.slice(1)];  // step 0 painted when it arrives
  return [f.pause, 0, ...({PAINT_JS})(f, 0, '')];
}}"""


# Until the page has painted its next frame: what follows the lesson's frame (every step's frames, the other plots)
# waits for it, so that the server's drawing does not compete with the browser's painting of the lesson where the
# two share a processor.
PAINTED = Event(None, [], [], js="() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))")

# Every click counts (Gradio's default drops a click while the last one is pending), and none is an API endpoint.
JS_ONLY = dict(trigger_mode="multiple", api_visibility="private")


def wire_steps(top: Header, step_outputs: list) -> None:
    """Previous, Next, the slider, the strip's tokens, Play and new frames: each drawn in the browser."""
    controls = [top.step, top.layer, top.head, top.presentation, top.lang, top.units]
    outputs = [top.step, *step_outputs]
    for trigger, move, extra in (
        (top.prev_btn.click, "prev", []),
        (top.next_btn.click, "next", []),
        (top.step.input, "stay", []),
        (top.strip_click.change, "strip", [top.strip_click]),
    ):
        trigger(None, controls + extra, outputs, js=step_js(MOVES[move]), **JS_ONLY)
    # new frames: kept in the page, and the step the slider is at drawn from them
    top.frames.change(None, [top.frames, *controls], outputs, js=step_js(MOVES["stay"], arrived=True), **JS_ONLY)
    top.play_btn.click(None, controls, [top.play_btn, *outputs], js=PLAY_JS, **JS_ONLY)
