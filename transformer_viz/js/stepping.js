// Stepping in the browser: every step's figures reach the page once, and a step, layer or head change is drawn here.
//
// After a translation (or a new look, units or language) the frames (their format: figures/payload.py) reach a
// hidden JSON value. Previous, Next, the slider, a click in the token strip and Play then pick a frame here and hand
// it to the page's own components (a js-only event: no request to the server).
//
// Then come the variants (frames.variants): the plots a new layer or head redraws, in every other layer and head, as
// changes to the frames' own figures (frames.json_changes; applyChange makes them). A new layer or head makes its
// frames from the frames and the variants (framesFor) and paints them; until the variants arrive (or where they do
// not fit the page), the server draws that layer's and head's frames.
//
// Frames drawn for another layer, head, look, units or language than the page shows, or for another translation
// (a new one is on the page, its frames not yet), are not drawn from: the step moves, and the new frames' arrival
// paints the step the slider is at. Frames older than those the page holds (a late event of an earlier
// translation) are not kept.
//
// Everything the page knows lives in one object (newState); each Gradio event calls one function here with the view
// controls as one object, named as the server's figures.views.View names them: {step, layer, head, presentation, lang,
// units}. The functions take what they read from the page (the translation shown, how a plot is drawn) as
// arguments, so that Node's test runner runs them without a browser.
'use strict';

/** Gradio's "leave this component as it is". */
const skip = () => ({__type__: 'update'});

/** The page's state: the frames it paints from and what it remembers between events. */
function newState() {
  return {
    frames: null, // the frames the page paints from (all steps, or the lesson's frame alone: `only`)
    variants: null, // the changes that make another layer's or head's frames
    bases: new Map(), // complete frames by their name (`base`), the last BASES_KEPT, for the variants to change
    wanted: null, // [translation shown, step]: a step asked for before that translation's frames came
    playing: false, // Play is on
    player: null, // its next tick's timer
    switches: 0, // how many times a new layer or head was drawn (the switch box's text)
  };
}

// A layer or head the server drew, before its variants arrived, must not push out the frames the variants change.
const BASES_KEPT = 4;

/** What frames are drawn for, as the server's figures/changes.py frame_key writes it: [layer, head, look, language, units]. */
function frameKey(view) {
  const {layer, head, presentation, lang, units} = view;
  return JSON.stringify([Math.round(Number(layer)), `${head}`, `${presentation}`, `${lang}`, `${units}`]);
}

/** The change frames.json_changes describes, made to a JSON value parsed afresh (so in place): ["=", v] sets v
 * (a copy: a later change must not alter the variants), ["[", {index: change}, length] changes a list's items and
 * cuts or grows it to length, {key: change} an object's keys (["-"] deletes one). */
function applyChange(value, change) {
  if (Array.isArray(change) && change[0] === '=') return JSON.parse(JSON.stringify(change[1]));
  if (Array.isArray(change)) {
    value.length = change[2];
    for (const [i, item] of Object.entries(change[1])) value[i] = applyChange(value[i], item);
    return value;
  }
  for (const [key, item] of Object.entries(change)) {
    if (Array.isArray(item) && item[0] === '-') delete value[key];
    else value[key] = applyChange(value[key], item);
  }
  return value;
}

/** Complete frames or a lesson's frame that arrived: the page's frames now, and kept by their name for the
 * variants; false (nothing kept) where they are older than the frames the page holds. */
function keep(state, f) {
  if (f && state.frames && f.serial < state.frames.serial) return false; // a late event of an earlier request
  state.frames = f;
  if (f && f.base) {
    state.bases.delete(f.base);
    state.bases.set(f.base, f);
    const changed = state.variants && state.variants.base; // the frames the variants change stay, however old
    for (const name of [...state.bases.keys()].slice(0, -BASES_KEPT)) if (name !== changed) state.bases.delete(name);
  }
  return true;
}

/** Whether variants that arrived can make frames of the translation shown: the complete frames they change are
 * held and are that translation's. Others (a late event of an earlier translation, or variants of frames the page
 * no longer holds) would only push out the page's own. None (a translation too large for variants) is taken
 * unless the page's variants are the shown translation's: a translation has variants or None, never both, so that
 * None is a late event of another. */
function usable(state, variants, shown) {
  if (!variants) return !(state.variants && usable(state, state.variants, shown));
  const base = state.bases.get(variants.base);
  return !!base && base.shown === shown;
}

/** The frames for the view's layer and head: those the page holds, or made from the complete frames the variants
 * change and the variants, which then become the page's frames. Frames made for another look, units, language or
 * translation (`shown`) are not made: the frames the page holds come back, which do not match the view. */
function framesFor(state, view, shown) {
  const f = state.frames, key = frameKey(view), v = state.variants, base = v && state.bases.get(v.base);
  if (!f || f.key === key || !base) return f;
  const [layer, head] = JSON.parse(base.key);
  if (base.key !== frameKey({...view, layer, head}) || base.shown !== shown) return f;
  const combo = `${Math.round(Number(view.layer))}/${view.head}`, alt = v.alt && v.alt[combo];
  if (!alt) return f; // a layer or head the variants were not drawn for
  const plots = [];
  for (let i = 0; i < base.plots.length; i++) {
    const frames = base.plots[i], name = v.keys[i] ? v.keys[i][combo] : v.own[i];
    if (name === undefined) return f; // a layer or head the variants were not drawn for
    if (name === v.own[i]) {
      plots.push(frames);
      continue;
    }
    let figure = frames[0] === null ? null : JSON.parse(frames[0]);
    plots.push(
      v.patches[i][name].map((change) => {
        figure = applyChange(figure, change);
        return figure === null ? null : JSON.stringify(figure);
      }),
    );
  }
  return (state.frames = Object.assign({}, base, {key, plots, alt}));
}

/** Whether frames `f` are the page's to paint: drawn for the view's controls and the translation shown. */
function fits(f, view, shown) {
  return !!f && f.key === frameKey(view) && f.shown === shown;
}

/** draw_step's outputs at step t from frames f: each step plot (drawPlot(id, figure JSON, in the lesson, step) decides
 * how it is drawn), the step's label (and `suffix`), its alternatives to branch on, the token strip, and the step's text
 * alternative (what the maps show, in a sentence: figures/alt.py). */
function paint(f, t, suffix, drawPlot) {
  return [
    ...f.plots.map((frames, i) => {
      if (frames === null) return skip();
      return frames[t] === null ? null : drawPlot(f.ids[i], frames[t], f.lesson[i], t);
    }),
    f.label[t] + (suffix || ''),
    {__type__: 'update', choices: f.alternatives[t], value: null},
    f.strip[t],
    f.alt[t],
  ];
}

/** The step's text alternative's aria-live while Play is on or off: a screen reader says each step the learner moves
 * to ('polite'), but not the steps Play moves through by itself every 0.8 s, which it would read over each other. */
function liveness(playing) {
  return playing ? 'off' : 'polite';
}

/** The step a move leads to from step t: 'stay', 'prev', 'next' (at the last step: stays, and says so), or
 * 'strip' (a token's step clicked in the strip: `extra`). Returns [step, suffix for the step's label]. */
function moved(move, t, f, extra) {
  if (move === 'prev') return [t - 1, ''];
  if (move === 'next') return t >= f.steps - 1 ? [t, ' — ' + f.last] : [t + 1, ''];
  if (move === 'strip') {
    const to = parseInt(String(extra || ''), 10);
    return [Number.isNaN(to) ? t : to, ''];
  }
  return [t, ''];
}

/** A step event: the step slider's new value (skip where it stays) and what the page paints there.
 *
 * `arrived` is what came with the event: {frames} (new frames: kept, then the step the slider is at painted),
 * {variants} (new variants: the view's layer and head painted where the page's frames were drawn for another), or
 * nothing (Previous, Next, the slider, the strip, a new layer or head). `page` is what the event reads from the page:
 * {shown: the translation on the page (frames.shown_key), drawPlot, outputs: how many components a step paints}.
 */
function step(state, move, view, page, arrived = {}, extra = null) {
  const all = () => [skip(), ...Array.from({length: page.outputs}, skip)];
  let f;
  if ('frames' in arrived) {
    if (!keep(state, arrived.frames)) return all();
    f = arrived.frames;
  } else if ('variants' in arrived) {
    if (!usable(state, arrived.variants, page.shown)) return all();
    state.variants = arrived.variants;
    const held = state.frames;
    f = framesFor(state, view, page.shown);
    if (f === held) return all(); // nothing new to paint
  } else {
    f = framesFor(state, view, page.shown);
  }
  const t = Math.round(Number(view.step));
  if (!f) {
    if (!('frames' in arrived)) state.wanted = [page.shown, t]; // painted when the frames come
    return all();
  }
  let [to, suffix] = moved(move, t, f, extra);
  if ('frames' in arrived) {
    // Frames that come with a new translation come with the step it opens on (the lesson's frame: `only`), while
    // the page may still be setting its controls: a step the visitor asked for before they came wins.
    const wanted = state.wanted && state.wanted[0] === f.shown ? state.wanted[1] : null;
    if (f.only !== null) to = wanted === null ? f.only : wanted;
    else if (wanted !== null) state.wanted = null;
  }
  to = Math.max(0, Math.min(to, f.steps - 1));
  // The slider is set only where the step moves: Gradio applies a js event's outputs a little after it ran, and
  // the slider's value as it was then, set again, undid a step the visitor chose meanwhile.
  const slider = to === t ? skip() : to;
  if (!fits(f, view, page.shown)) {
    // frames drawn for other controls or another translation: the step moves, the new frames' arrival paints it
    if (!('frames' in arrived || 'variants' in arrived)) state.wanted = [page.shown, to];
    return ['frames' in arrived ? skip() : slider, ...all().slice(1)];
  }
  if (f.only !== null && f.only !== to) return [slider, ...all().slice(1)]; // the lesson's frame alone
  return [slider, ...paint(f, to, suffix, page.drawPlot)];
}

/** A new layer or head: the lesson's plots at the view's step drawn at once (drawPlot with the lesson flag), where
 * the page holds or can make that layer's and head's frames; the switch box's new text, whose change paints the
 * rest. */
function switched(state, view, page) {
  const f = framesFor(state, view, page.shown), t = Math.round(Number(view.step));
  if (fits(f, view, page.shown) && f.only === null && t < f.steps)
    f.plots.forEach((frames, i) => {
      if (f.lesson[i] && frames && frames[t]) page.drawPlot(f.ids[i], frames[t], true, t);
    });
  return String(++state.switches);
}

/** Whether the page has (or has now made) every step's frames for the view's layer and head: the server then
 * draws none. */
function drawnHere(state, view, shown) {
  const f = framesFor(state, view, shown);
  return fits(f, view, shown) && f.only === null;
}

/** Play steps on from the step shown (from the start at the end) by pressing Next every 0.8 s; Play again
 * (Pause), or the last step, stops it. The next tick is timed from the frame after the last was drawn, so a slow
 * machine is not handed steps faster than it draws them. `page` adds to step's: current() (the slider's step),
 * press(id), later(fn, ms) → timer, cancel(timer), afterPaint(fn). Returns [Play's label, step, ...paint]. */
function play(state, view, page) {
  const f = state.frames, rest = () => Array.from({length: page.outputs + 1}, skip);
  if (state.playing) {
    page.cancel(state.player);
    state.playing = false;
    return [f ? f.play : skip(), ...rest()];
  }
  if (!f || f.key !== frameKey(view)) return [skip(), ...rest()];
  const tick = () => {
    if (!state.playing) return;
    page.press(page.current() >= f.steps - 1 ? 'step-play' : 'step-next');
    page.afterPaint(() => {
      state.player = page.later(tick, 800);
    });
  };
  state.playing = true;
  state.player = page.later(tick, 800);
  if (Math.round(Number(view.step)) < f.steps - 1) return [f.pause, ...rest()];
  if (f.only !== null && f.only !== 0) return [f.pause, 0, ...rest().slice(1)]; // step 0 painted when it arrives
  return [f.pause, 0, ...paint(f, 0, '', page.drawPlot)];
}

const api = {newState, frameKey, applyChange, keep, framesFor, paint, liveness, step, switched, drawnHere, play, skip};
if (typeof module !== 'undefined') module.exports = api;
else window.transformerViz = Object.assign(window.transformerViz || {}, {stepping: api});
