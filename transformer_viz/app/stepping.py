"""Stepping in the browser: every step's figures reach the page once, and a step change is drawn there.

After a translation (or a new layer, head, look, units or language) the server runs draw_step, the step's plots,
label, alternatives to branch on and token strip, for every step of the trace, into one hidden JSON value: the
frames. Previous, Next, the slider, a click in the token strip and Play then pick a frame in the browser and
hand it to the page's own components (a js-only event: no request to the server). A head change still runs draw_step on
the server, so the page and the frames keep one definition of each figure.

Frames drawn for another layer, head, look, units or language than the page shows, or for another translation
(a new one is on the page, its frames not yet), are not drawn from: the step moves, and the new frames' arrival
paints the step the slider is at.
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

SERIALS = itertools.count(1)  # each set of frames's number


def draw_step(sess, t, lay, hd, pres, lng, unt):
    """The plots that follow the step or the head, the step's label, its alternatives to branch on, the strip."""
    if sess is None:
        return [gr.skip()] * N_OUT
    trace = sess.trace
    t = h.clamp_step(trace, t)
    figs = h.step_figures(trace, t, int(lay), hd, slides(pres), lang=lng, units=unt)
    return [plot(figs[p.id], pres, fit=fills_box(p.id, pres)) for p in STEP_PLOTS] + [
        h.step_label(trace, t, lng),
        gr.update(choices=h.alternatives(trace, t), value=None),
        token_strip(trace, t, lng),
    ]


def step_frames(sess, t, lay, hd, pres, lng, unt="pieces") -> dict | None:
    """draw_step's outputs at every step, for the browser: the plots' figure JSON, labels, alternatives, strips."""
    if sess is None:
        return None
    drawn = [draw_step(sess, step, lay, hd, pres, lng, unt) for step in range(len(sess.trace.target_ids))]
    n = len(STEP_PLOTS)
    return dict(
        key=frame_key(lay, hd, pres, lng, unt),
        shown=shown_key(sess, lng),
        ids=[p.id for p in STEP_PLOTS],
        lesson=[p.group == "page" for p in STEP_PLOTS],  # drawn first (PAINT_JS)
        serial=next(SERIALS),  # new frames, even of the same figures, are told apart: their arrival repaints
        steps=len(drawn),
        plots=[[with_revision(outputs[i]) for outputs in drawn] for i in range(n)],
        label=[outputs[n] for outputs in drawn],
        alternatives=[[list(choice) for choice in outputs[n + 1]["choices"]] for outputs in drawn],
        strip=[outputs[n + 2] for outputs in drawn],
        last=i18n.text("at-last-step", lng),
        play=i18n.text("play", lng),
        pause=i18n.text("pause", lng),
    )


def frame_key(lay, hd, pres, lng, unt) -> str:
    """What the frames were drawn for; the browser compares it with the controls' values (FRAME_KEY_JS)."""
    return json.dumps([int(lay), str(hd), str(pres), str(lng), str(unt)], separators=(",", ":"))


def shown_key(sess, lng) -> str:
    """The translation the frames were drawn from, as the page shows it: its text and the model menu's label
    (SHOWN_KEY_JS reads both back from the page)."""
    return json.dumps([sess.trace.target_text, model_label(sess.model, lng)], separators=(",", ":"), ensure_ascii=False)


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
# frames in the page are the last translation's.
SHOWN_KEY_JS = """(() => {
  const text = document.querySelector('#translation textarea'), model = document.querySelector('#model input');
  return JSON.stringify([text ? text.value : '', model ? model.value : '']);
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
# The download's name is then set where the camera button reads it. A plot not drawn yet (its tab was never
# opened: Gradio mounts a tab's plots when it first opens) gets its Gradio value, which Gradio draws then.
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
  const filename = (fig.config.toImageButtonOptions || {}).filename;
  if (drawn && drawn.layout === el.layout && drawn.revision === fig.layout.datarevision) {
    const {meta, ...layout} = fig.layout;
    const {meta: _, ...before} = prepared(drawn.json).layout;
    const update = changes(before, layout, '', {});
    if (Object.keys(update).length) window.Plotly.relayout(el, update);
    el.layout.meta = meta;
  } else {
    const config = Object.assign(fig.config, {responsive: true});
    config.toImageButtonOptions = Object.assign({}, config.toImageButtonOptions, {filename: images.filename});
    window.Plotly.react(el, fig.data, fig.layout, config);
  }
  if (el._context.toImageButtonOptions) el._context.toImageButtonOptions.filename = filename;
  el.tvDrawn = {json, layout: el.layout, revision: fig.layout.datarevision};
  return {__type__: 'update'};
}"""
# The lesson's plots are drawn at once; those in tabs just after the page has shown them (one frame later), all in
# one go and at the last step asked for. A plot not drawn yet gets its Gradio value, now.
PAINT_JS = f"""(f, t, suffix) => [
  ...f.plots.map((frames, i) => {{
    const redraw = {REDRAW_JS}, id = f.ids[i], json = frames[t];
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
]"""
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
    frames = FRAMES_JS + " = f;" if arrived else f"const f = {FRAMES_JS};"
    return f"""{head} => {{
  {frames}
  if (!f) return [{SKIP}, {skip}];
  t = Math.round(Number(t));
  let to = t, suffix = '';
  {move}
  to = Math.max(0, Math.min(to, f.steps - 1));
  // frames drawn for other controls or another translation: the step moves, and the new frames' arrival draws it
  if (f.key !== ({FRAME_KEY_JS})(lay, hd, pres, lng, unt) || f.shown !== {SHOWN_KEY_JS}) return [to, {skip}];
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
  return [f.pause, 0, ...({PAINT_JS})(f, 0, '')];
}}"""


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
