"""Stepping in the browser: every step's figures reach the page once, and a step change is drawn there.

After a translation (or a new layer, head, look or language) the server draws the step plots for every step of
the trace, with the step's label, its alternatives to branch on and the token strip, into one hidden JSON value:
the frames. Previous, Next, the slider, a click in the token strip and Play then pick a frame in the browser and
hand it to the page's own components (a js-only event: no request to the server). The figures' content stays the
handlers' (draw_step's pieces), so the library, the tests and the page keep one definition of each figure.

Frames drawn for another layer, head, look or language than the page shows are not used: the step waits for the
new frames, whose arrival paints the step the slider is at.
"""

from __future__ import annotations

import hashlib
import json

from .. import i18n
from . import handlers as h
from .common import fills_box, plot, slides
from .header import Header
from .registry import STEP_PLOTS
from .strip import token_strip


def step_frames(sess, t, lay, hd, pres, lng, unt="pieces") -> dict | None:
    """For every step: the step plots' figure JSON, the step's label, its alternatives, the token strip."""
    if sess is None:
        return None
    trace = sess.trace
    steps = list(range(len(trace.target_ids)))
    drawn = [h.step_figures(trace, step, int(lay), hd, slides(pres), lang=lng, units=unt) for step in steps]
    return dict(
        key=frame_key(lay, hd, pres, lng, unt),
        steps=len(steps),
        plots=[[figure_json(figs[p.id], pres, p.id) for figs in drawn] for p in STEP_PLOTS],
        label=[h.step_label(trace, step, lng) for step in steps],
        alternatives=[[list(choice) for choice in h.alternatives(trace, step)] for step in steps],
        strip=[token_strip(trace, step, lng) for step in steps],
        last=i18n.text("at-last-step", lng),
        play=i18n.text("play", lng),
        pause=i18n.text("pause", lng),
    )


def frame_key(lay, hd, pres, lng, unt) -> str:
    """What the frames were drawn for; the browser compares it with the controls' values (FRAME_KEY_JS)."""
    return json.dumps([int(lay), str(hd), str(pres), str(lng), str(unt)], separators=(",", ":"))


def figure_json(fig, pres, plot_id: str) -> str | None:
    """The figure as the page's plot takes it, its layout.datarevision naming its data.

    Plotly.react takes arrays of a new identity for new data unless datarevision says otherwise: where a step
    changes only the outline and the title (cross-attention), the heatmaps are then not recomputed.
    """
    data = plot(fig, pres, fit=fills_box(plot_id, pres))
    if data is None:
        return None
    figure = json.loads(data.plot)
    digest = hashlib.sha1(json.dumps(figure["data"], sort_keys=True).encode(), usedforsecurity=False)
    figure["layout"]["datarevision"] = digest.hexdigest()[:16]
    return json.dumps(figure, separators=(",", ":"))


# JavaScript. SKIP leaves a component as it is; PAINT(f, t) is the outputs of draw_step at step t, from frames f.
SKIP = "{__type__: 'update'}"
FRAME_KEY_JS = (
    "(lay, hd, pres, lng, unt) => JSON.stringify([Math.round(Number(lay)), `${hd}`, `${pres}`, `${lng}`, `${unt}`])"
)
PAINT_JS = """(f, t, suffix) => [
  ...f.plots.map(frames => frames[t] === null ? null : {type: 'plotly', plot: frames[t]}),
  f.label[t] + (suffix || ''),
  {__type__: 'update', choices: f.alternatives[t], value: null},
  f.strip[t],
]"""
N_OUT = len(STEP_PLOTS) + 3  # PAINT's outputs: the step plots, the label, the alternatives, the strip


def step_js(move: str) -> str:
    """A js-only event on (frames, step, layer, head, look, language, units, extra) → (step, PAINT's outputs).

    `move` is JavaScript computing `to` (the new step) and optionally `suffix` from f, t and extra.
    """
    skip = ", ".join([SKIP] * N_OUT)
    return f"""(f, t, lay, hd, pres, lng, unt, extra) => {{
  if (!f) return [{SKIP}, {skip}];
  t = Math.round(Number(t));
  let to = t, suffix = '';
  {move}
  to = Math.max(0, Math.min(to, f.steps - 1));
  // frames drawn for other controls: the step moves, and the new frames' arrival draws it
  if (f.key !== ({FRAME_KEY_JS})(lay, hd, pres, lng, unt)) return [to, {skip}];
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
PLAY_JS = f"""(f, t, lay, hd, pres, lng, unt) => {{
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
    controls = [top.frames, top.step, top.layer, top.head, top.presentation, top.lang, top.units]
    outputs = [top.step, *step_outputs]
    for trigger, move, extra in (
        (top.prev_btn.click, "prev", []),
        (top.next_btn.click, "next", []),
        (top.step.input, "stay", []),
        (top.strip_click.change, "strip", [top.strip_click]),
        (top.frames.change, "stay", []),  # new frames: the step the slider is at, drawn from them
    ):
        trigger(None, controls + extra, outputs, js=step_js(MOVES[move]), **JS_ONLY)
    top.play_btn.click(None, controls, [top.play_btn, *outputs], js=PLAY_JS, **JS_ONLY)
