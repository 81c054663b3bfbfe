"""Stepping in the browser: every step's figures reach the page once, and a step, layer or head change is drawn there.

After a translation (or a new look, units or language) the frames (frames.step_frames) reach a hidden JSON value.
Previous, Next, the slider, a click in the token strip and Play then pick a frame in the browser and hand it to the
page's own components (a js-only event: no request to the server).

Then come the variants (frames.variants): the plots a new layer or head redraws, in every other layer and head, as
changes to the frames' own figures. A new layer or head makes its frames in the browser from the frames and the
variants (FRAMES_FOR_JS) and paints them; until the variants arrive (or where they do not fit the page), the server
draws that layer's and head's frames (frames_unless_drawn).

Frames drawn for another layer, head, look, units or language than the page shows, or for another translation
(a new one is on the page, its frames not yet), are not drawn from: the step moves, and the new frames' arrival
paints the step the slider is at.

Before every step's frames, a translation or a new look, units or language sends the lesson's frame: its map and
top-k at one step (frames.lesson_frame), painted first while the server draws the rest.
"""

from __future__ import annotations

import gradio as gr

from .frames import N_OUT, step_frames
from .header import Header
from .tabs import Event

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
#   config makes react draw everything anew (measured: 35 ms, not 50, for the top-k bars); but a new look's
#   format takes the new config, so that the camera button's tooltip names the format it now downloads.
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
  const sameFormat = images.format === download.format;  // else a new look: the camera button is drawn again
  if (drawn && drawn.layout === el.layout && drawn.revision === fig.layout.datarevision && sameFormat) {
    const {meta, ...layout} = fig.layout;
    const {meta: _, ...before} = prepared(drawn.json).layout;
    const update = changes(before, layout, '', {});
    if (Object.keys(update).length) window.Plotly.relayout(el, update);
    el.layout.meta = meta;
  } else {
    const config = Object.assign(fig.config, {responsive: true});
    // the drawn plot's download options, unless the format changed (a new look): then the new config, so that
    // Plotly draws the camera button again with its tooltip naming the new format
    if (sameFormat) config.toImageButtonOptions = images;
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
FRAMES_JS = "window.tvFrames"  # where the page keeps the frames it paints from
# The change json_changes describes, made to a JSON value parsed afresh from the frames' text (so in place); a value
# it sets is copied, for a later change must not alter the variants.
APPLY_JS = """(value, change) => {
  if (Array.isArray(change) && change[0] === '=') return JSON.parse(JSON.stringify(change[1]));
  if (Array.isArray(change)) {
    value.length = change[2];
    for (const [i, item] of Object.entries(change[1])) value[i] = APPLY(value[i], item);
    return value;
  }
  for (const [key, item] of Object.entries(change)) {
    if (Array.isArray(item) && item[0] === '-') delete value[key];
    else value[key] = APPLY(value[key], item);
  }
  return value;
}"""
# The frames for the controls' layer and head: those the page holds, or made from the complete frames the variants
# change (kept by their name, `base`) and the variants, which then become the page's frames. Frames made for
# another look, units, language or translation are not made: the frames the page holds come back, which do not
# match the controls (step_js then moves the step and paints nothing).
FRAMES_FOR_JS = f"""(lay, hd, pres, lng, unt) => {{
  const f = {FRAMES_JS}, key = ({FRAME_KEY_JS})(lay, hd, pres, lng, unt);
  const v = window.tvVariants, base = v && (window.tvBases || {{}})[v.base];
  if (!f || f.key === key || !base) return f;
  const [layer, head] = JSON.parse(base.key);
  if (base.key !== ({FRAME_KEY_JS})(layer, head, pres, lng, unt) || base.shown !== {SHOWN_KEY_JS}) return f;
  const combo = `${{Math.round(Number(lay))}}/${{hd}}`;
  const APPLY = {APPLY_JS};
  const plots = [];
  for (let i = 0; i < base.plots.length; i++) {{
    const frames = base.plots[i], name = v.keys[i] ? v.keys[i][combo] : v.own[i];
    if (name === undefined) return f;  // a layer or head the variants were not drawn for
    if (name === v.own[i]) {{ plots.push(frames); continue; }}
    let figure = frames[0] === null ? null : JSON.parse(frames[0]);
    plots.push(v.patches[i][name].map(change => {{
      figure = APPLY(figure, change);
      return figure === null ? null : JSON.stringify(figure);
    }}));
  }}
  return {FRAMES_JS} = Object.assign({{}}, base, {{key, plots}});
}}"""
# Complete frames that arrive are kept by their name for the variants (the last four: a layer or head drawn by the
# server, before its variants arrived, must not push out the frames the variants change).
KEEP_JS = f"""{FRAMES_JS} = f;
  if (f && f.base) {{
    const kept = window.tvBases = window.tvBases || {{}};
    delete kept[f.base];
    kept[f.base] = f;
    for (const name of Object.keys(kept).slice(0, -4)) delete kept[name];
  }}"""
ARRIVALS = {
    None: ("(t, lay, hd, pres, lng, unt, extra)", f"const f = ({FRAMES_FOR_JS})(lay, hd, pres, lng, unt);"),
    "frames": ("(f, t, lay, hd, pres, lng, unt, extra)", KEEP_JS),
    # new variants paint the controls' layer and head where the page's frames were drawn for another
    "variants": (
        "(v, t, lay, hd, pres, lng, unt, extra)",
        f"""window.tvVariants = v;
  const held = {FRAMES_JS}, f = ({FRAMES_FOR_JS})(lay, hd, pres, lng, unt);
  if (f === held) return [{SKIP}, {", ".join([SKIP] * N_OUT)}];""",
    ),
}


def step_js(move: str, arrived: str | None = None) -> str:
    """A js-only event on (step, layer, head, look, language, units, extra) → (step, PAINT's outputs).

    `move` is JavaScript computing `to` (the new step) and optionally `suffix` from f, t and extra. The frames
    are not an input: Gradio hands a js function a copy of each input, and the frames are a megabyte (measured:
    the copy was most of a step's time). The frames' own change event (arrived="frames") takes them once and keeps
    them in the page for the other events; the variants' (arrived="variants") likewise.
    """
    skip = ", ".join([SKIP] * N_OUT)
    head, frames = ARRIVALS[arrived]
    # Frames that arrive with a new session come with the step it opens on, and the page may still be setting its
    # controls (the step, layer and head) from the session: the lesson's frame is painted at its own step, and
    # frames that do not match the controls yet leave the step as it is, for the next frames to paint.
    # A step the visitor asked for before the translation's frames came (window.tvWanted) wins over the lesson's.
    arrival = {
        None: "",
        "frames": """const wanted = window.tvWanted && window.tvWanted[0] === f.shown ? window.tvWanted[1] : null;
  if (f.only !== null) to = wanted === null ? f.only : wanted;
  else if (wanted !== null) delete window.tvWanted;""",
        "variants": "",
    }[arrived]
    stale = SKIP if arrived == "frames" else "step"
    asked = f"window.tvWanted = [{SHOWN_KEY_JS}, to];" if arrived is None else ""
    # The slider is set only where the step moves: Gradio applies a js event's outputs a little after it ran, and
    # the slider's value as it was then, set again, undid a step the visitor chose meanwhile (a step typed just
    # after a translation went back to the lesson's step 0 when the lesson's frame arrived).
    return f"""{head} => {{
  {frames}
  t = Math.round(Number(t));
  let to = t, suffix = '';
  if (!f) {{ {asked} return [{SKIP}, {skip}]; }}
  {move}
  {arrival}
  to = Math.max(0, Math.min(to, f.steps - 1));
  const step = to === t ? {SKIP} : to;
  // frames drawn for other controls or another translation: the step moves, and the new frames' arrival draws it
  if (f.key !== ({FRAME_KEY_JS})(lay, hd, pres, lng, unt) || f.shown !== {SHOWN_KEY_JS}) {{
    {asked}
    return [{stale}, {skip}];
  }}
  if (f.only !== null && f.only !== to) return [step, {skip}];  // the lesson's frame alone: every step's follows
  return [step, ...({PAINT_JS})(f, to, suffix)];
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


def frames_unless_drawn(sess, t, lay, hd, pres, lng, unt, drawn):
    """A new layer's or head's frames from the server, unless the page made them from the variants (DRAWN_JS)."""
    if drawn == "drawn":
        return gr.skip()
    return step_frames(sess, t, lay, hd, pres, lng, unt)


# Before frames_unless_drawn: whether the page has the frames of the controls' layer and head (made now if it can).
DRAWN_JS = f"""(sess, t, lay, hd, pres, lng, unt, drawn) => {{
  const f = ({FRAMES_FOR_JS})(lay, hd, pres, lng, unt), key = ({FRAME_KEY_JS})(lay, hd, pres, lng, unt);
  const here = !!f && f.only === null && f.key === key && f.shown === {SHOWN_KEY_JS};
  return [sess, t, lay, hd, pres, lng, unt, here ? 'drawn' : ''];
}}"""
# A new layer or head paints the lesson's plots at once, then sets the switch box (a count), whose change paints the
# rest (wire_steps): the page sends a control's events one after the other, and the tab groups' listeners of the
# layer and head are made before the step plots' components exist, so that painting comes after the page has
# handled them (measured: 70-100 ms after the click).
SWITCH_JS = f"""(t, lay, hd, pres, lng, unt) => {{
  const f = ({FRAMES_FOR_JS})(lay, hd, pres, lng, unt), redraw = {REDRAW_JS};
  t = Math.round(Number(t));
  const ready = f && f.only === null && f.key === ({FRAME_KEY_JS})(lay, hd, pres, lng, unt) && t < f.steps;
  if (ready && f.shown === {SHOWN_KEY_JS})
    f.plots.forEach((frames, i) => {{ if (f.lesson[i] && frames && frames[t]) redraw(f.ids[i], frames[t]); }});
  return String(window.tvSwitches = (window.tvSwitches || 0) + 1);
}}"""


def wire_switch(top: Header, step_in: list):
    """A new layer or head: drawn in the browser (the switch box, then wire_steps), its frames from the server where
    the page cannot make them. Made before the tab groups' listeners of the layer and head; returns the layer's
    listener, for what else a new layer redraws to follow it."""
    listeners, controls = [], [top.step, top.layer, top.head, top.presentation, top.lang, top.units]
    for trigger in (top.layer.input, top.head.input):
        trigger(None, controls, [top.switch], js=SWITCH_JS, **JS_ONLY)
        fallback = trigger(
            frames_unless_drawn, [*step_in, top.drawn], [top.frames], js=DRAWN_JS, api_visibility="private", queue=False
        )
        listeners.append(fallback)
    return listeners[0]


def wire_steps(top: Header, step_outputs: list) -> None:
    """Previous, Next, the slider, the strip's tokens, Play, a new layer or head, new frames and new variants: each
    drawn in the browser."""
    controls = [top.step, top.layer, top.head, top.presentation, top.lang, top.units]
    outputs = [top.step, *step_outputs]
    for trigger, move, extra in (
        (top.prev_btn.click, "prev", []),
        (top.next_btn.click, "next", []),
        (top.step.input, "stay", []),
        (top.strip_click.change, "strip", [top.strip_click]),
        (top.switch.change, "stay", []),
    ):
        trigger(None, controls + extra, outputs, js=step_js(MOVES[move]), **JS_ONLY)
    # new frames, new variants: kept in the page, and the step the slider is at drawn from them
    for arrived in ("frames", "variants"):
        change = getattr(top, arrived).change
        change(None, [getattr(top, arrived), *controls], outputs, js=step_js(MOVES["stay"], arrived), **JS_ONLY)
    top.play_btn.click(None, controls, [top.play_btn, *outputs], js=PLAY_JS, **JS_ONLY)
