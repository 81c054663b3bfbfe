// The page: its one state object, and the functions its Gradio events call in one line.
//
// stepping.js decides what a step paints and plots.js draws it; this file reads what they need from the page (the
// translation shown, the slider's step) and hands them the page's own ways to draw, press and wait. A view is the
// page's controls as one object, named as the server's figures.views.View: {step, layer, head, presentation, lang, units}.
'use strict';

const {stepping, plots, keys, guessPanel} =
  typeof module !== 'undefined'
    ? {
        stepping: require('./stepping.js'),
        plots: require('./plots.js'),
        keys: require('./keys.js'),
        guessPanel: require('./guess-panel.js'),
      }
    : window.transformerViz;
// Guess first's kind of each lesson plot (guess.js: hideFigure): the main map and the top-k chart.
const GUESS_KINDS = {'plot-cross': 'map', 'plot-topk': 'topk'};

/** Everything the page remembers between events (stepping.newState's, and the query view's). */
const PAGE = Object.assign(stepping.newState(), {
  outputs: 0, // how many components a step paints (frames.N_OUT), set by start
  // "One query, real numbers": whether a step moved while its tab was hidden, and how the tab is watched (qkvWatch)
  qkv: {stale: false, tab: null, button: null, watching: null, mounting: null},
  downloaded: {}, // the last link each file box's download clicked
  view: null, // the view of the last step event: guess first's reveal draws the lesson's plots at it
  guess: null, // guess first on this page (guess-panel.js: mountGuess), from start
});

/** The translation the page shows, as frames.shown_key writes it: its text and the model's name, which ends the
 * model menu's label in every language (a new language relabels the menu after the lesson's frame is painted). */
function shownKey(doc = document) {
  const text = doc.querySelector('#translation textarea'), model = doc.querySelector('#model input');
  const label = model ? model.value : '', name = label.match(/[(]([^()]*)[)]$/);
  return JSON.stringify([text ? text.value : '', name ? name[1] : label]);
}

/** A step plot's figure JSON as guess first shows it at step t (hidden while the step is), before it is mounted as
 * it is. */
function guessed(id, json, t) {
  return PAGE.guess ? PAGE.guess.figure(GUESS_KINDS[id], json, t) : json;
}

/** The step of the strip's target token a click landed on (as text), or null. */
function stripStep(event) {
  const token = event.target && event.target.closest ? event.target.closest('#token-strip [data-step]') : null;
  return token ? token.dataset.step : null;
}

/** What the stepping functions read from and do to the page. */
function inPage(doc = document) {
  return {
    shown: shownKey(doc),
    outputs: PAGE.outputs,
    drawPlot: (id, json, lesson, t) => plots.drawPlot(id, guessed(id, json, t), lesson, doc),
    current: () => Math.round(Number(doc.querySelector('#step-slider input[type=number]').value)),
    press: (id) => doc.getElementById(id).click(),
    later: (fn, ms) => setTimeout(fn, ms),
    cancel: (timer) => clearTimeout(timer),
    afterPaint: (fn) => requestAnimationFrame(() => requestAnimationFrame(fn)),
  };
}

/** Once, when the page loads: how many outputs a step paints, and the clicks on plots ([plot id, reader, argument]:
 * registry.Click, into the one box `click_box`) and on the strip's tokens written into their hidden boxes; plots
 * refitted to their boxes as they appear. */
function start(config, doc = document) {
  PAGE.outputs = config.outputs;
  speak(false, doc);
  const refit = plots.refitPlots(doc);
  const watch = () => {
    plots.attachClicks(config.clicks, config.click_box, doc);
    refit();
  };
  new MutationObserver(watch).observe(doc.body, {childList: true, subtree: true});
  watch();
  // delegated, so it survives every redraw of the strip's HTML
  doc.addEventListener('click', (event) => plots.writeBox('strip-click', stripStep(event), doc));
  PAGE.guess = guessPanel.mountGuess(
    {
      data: () => PAGE.frames && PAGE.frames.guess,
      id: () => PAGE.frames && PAGE.frames.shown,
      view: () => PAGE.view,
      redraw: () => PAGE.view && stepping.switched(PAGE, PAGE.view, inPage(doc)), // the lesson's plots, drawn again
      playing: () => PAGE.playing,
      pause: () => doc.getElementById('step-play').click(),
    },
    doc,
  );
  keys.listenKeys(pageLesson(doc), doc);
}

/** A step event's outputs ([step or skip, ...]) passed on, guess first's panel painted at the step they show. */
function guessPainted(out, view, at = 0) {
  PAGE.view = view;
  const to = out[at];
  if (PAGE.guess) PAGE.guess.paint(typeof to === 'number' ? to : Math.round(Number(view.step)));
  return out;
}

/** The presenter's keys' side of the page (js/keys.js: listenKeys): they press the step buttons and Play, move the
 * layer slider and pick in the head menu as a visitor does, so that every view that follows those controls follows.
 * The model's layers and heads come with the frames. */
function pageLesson(doc = document) {
  const layerSlider = () => doc.querySelector('#layer input[type=range]');
  return {
    map: () => doc.getElementById('plot-cross'),
    size: () => ({layers: PAGE.frames ? PAGE.frames.layers : 0, heads: PAGE.frames ? PAGE.frames.heads : 0}),
    layer: () => (layerSlider() ? Math.round(Number(layerSlider().value)) : 0),
    press: (id) => doc.getElementById(id).click(),
    setLayer: (layer) => {
      const slider = layerSlider();
      if (!slider || slider.disabled || Number(slider.value) === layer) return;
      slider.value = String(layer);
      slider.dispatchEvent(new Event('input', {bubbles: true})); // as a drag of the slider ends there
    },
    setHead: (head) => chooseOption('head', head, doc),
    choices: () => PAGE.guess.choices(),
    toggleGuess: () => PAGE.guess.toggle(),
    answer: (index) => PAGE.guess.answer(index),
  };
}

/** Picks `value` in the Gradio menu `id` as a visitor does: the menu opened (its box focused), the option pressed;
 * nothing where it shows that value already. False where the menu has no such option (or did not open). */
async function chooseOption(id, value, doc = document) {
  const box = doc.querySelector(`#${id} input`);
  if (!box || box.disabled || box.value === value) return false;
  box.focus({preventScroll: true});
  for (let frame = 0; frame < 30; frame++) {
    const options = [...doc.querySelectorAll(`#${id} [role=option]`)];
    const option = options.find((el) => el.getAttribute('aria-label') === value);
    if (option) {
      option.dispatchEvent(new MouseEvent('mousedown', {bubbles: true, cancelable: true}));
      return true;
    }
    await new Promise((done) => requestAnimationFrame(done));
  }
  box.blur();
  return false;
}

/** Previous, Next, the slider, a strip token (`extra`: the strip box's text), a new layer or head drawn:
 * [step, ...what the step paints]. */
function onStep(move, view, extra = null) {
  return guessPainted(stepping.step(PAGE, move, view, inPage(), {}, extra), view);
}

/** The look chosen, on the page's root: the class `tv-slide-look` when it is a slide look (the CSS stacks rows of
 * plots then, as the downloads are drawn); returns nothing. */
function markLook(slide, doc = document) {
  doc.documentElement.classList.toggle('tv-slide-look', Boolean(slide));
}

/** New frames from the server: kept, and the step the slider is at painted from them. */
function onFrames(frames, view) {
  return guessPainted(stepping.step(PAGE, 'stay', view, inPage(), {frames}), view);
}

/** New variants: the view's layer and head painted from them where the page's frames are another's. */
function onVariants(variants, view) {
  return guessPainted(stepping.step(PAGE, 'stay', view, inPage(), {variants}), view);
}

/** A new layer or head: the lesson's plots drawn now; the switch box's text, whose change paints the rest. */
function onSwitch(view) {
  return stepping.switched(PAGE, view, inPage());
}

/** Before the server's fallback for a new layer or head: 'drawn' where the page has its frames (so the server
 * draws none). */
function drawnHere(view) {
  return stepping.drawnHere(PAGE, view, shownKey()) ? 'drawn' : '';
}

/** Play or Pause: [Play's label, step, ...what the step paints]; the step's text alternative quiet while it plays. */
function onPlay(view) {
  const out = stepping.play(PAGE, view, inPage());
  speak(PAGE.playing);
  return guessPainted(out, view, 1);
}

/** The step's text alternative (#step-alt) a live region: polite, or off while Play is on (stepping.liveness). */
function speak(playing, doc = document) {
  const alt = doc.getElementById('step-alt');
  if (!alt) return;
  alt.setAttribute('aria-live', stepping.liveness(playing));
  alt.setAttribute('aria-atomic', 'true'); // the whole sentence, not the words that changed
}

/** The query view's tab watched from the first time it and its redraw button are on the page: when the tab comes
 * on screen after a step moved while it was hidden, the button is pressed once. Gradio puts a tab's contents on the
 * page the first time it is opened, so until then a MutationObserver waits for them. */
function qkvWatch(doc) {
  const qkv = PAGE.qkv;
  if (qkv.watching) return;
  const tab = doc.getElementById('tab-qkv'), el = doc.getElementById('qkv-redraw');
  const button = el && (el.tagName === 'BUTTON' ? el : el.querySelector('button'));
  if (!tab || !button) {
    qkv.mounting = qkv.mounting || new MutationObserver(() => qkvWatch(doc));
    qkv.mounting.observe(doc.body, {childList: true, subtree: true});
    return;
  }
  if (qkv.mounting) qkv.mounting.disconnect();
  Object.assign(qkv, {tab, button, mounting: null});
  qkv.watching = new IntersectionObserver((seen) => {
    if (seen.some((e) => e.isIntersecting) && qkv.stale) {
      qkv.stale = false;
      button.click();
    }
  });
  qkv.watching.observe(tab); // its first report says whether the tab is on screen now
}

/** A step moved: "One query, real numbers" (drawn by the server for the step shown) presses its redraw button
 * while its tab is on screen; otherwise it is marked stale and redrawn once the tab shows (qkvWatch). */
function qkvStep(doc = document) {
  qkvWatch(doc);
  const {tab, button} = PAGE.qkv;
  const onScreen = !!tab && tab.offsetParent !== null;
  PAGE.qkv.stale = !onScreen; // drawn now, or when the tab shows
  if (onScreen) button.click();
}

/** The file the server just offered in the file box `id`, downloaded as if its link were clicked, once the box shows
 * it (a link it did not show before); false where none came within a few seconds. */
async function downloadFile(id, doc = document, wait = (ms) => new Promise((done) => setTimeout(done, ms))) {
  for (let tries = 0; tries < 100; tries++) {
    const link = doc.querySelector(`#${id} a[href]`);
    if (link && link.href !== PAGE.downloaded[id]) {
      PAGE.downloaded[id] = link.href;
      link.click();
      return true;
    }
    await wait(50);
  }
  return false;
}

/** The button `id` clicked once it is enabled (at once where it is already): the page keeps Translate disabled until
 * its link's translation, or its example's, has come (page.wire_translation). The examples take no clicks until then
 * (common.CSS); this is what an example's click does once it is in the box. False where it stayed disabled through
 * every try. */
async function pressWhenEnabled(id, doc = document, wait = (ms) => new Promise((done) => setTimeout(done, ms))) {
  for (let tries = 0; tries < 600; tries++) {
    const button = doc.getElementById(id);
    if (button && !button.disabled) {
      button.click();
      return true;
    }
    await wait(50);
  }
  return false;
}

/** A promise kept once the page has painted its next frame. */
function painted() {
  return new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
}

const api = {
  PAGE, painted, downloadFile, pressWhenEnabled, shownKey, stripStep, start, markLook, onStep, onFrames, onVariants,
  onSwitch, drawnHere, onPlay, speak, qkvStep,
};
if (typeof module !== 'undefined') module.exports = api;
else window.transformerViz = Object.assign(window.transformerViz || {}, api, {page: PAGE});
