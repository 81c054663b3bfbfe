// The lesson file: a translation stepped through with no server (figures/lesson.py writes the page around this).
//
// The frames and variants the file holds are the page's own format, and the page's stepping module (stepping.js)
// decides what each step paints, as in the app; here its outputs are written into the file's plain elements.
'use strict';

const {stepping, keys, tour, guessPanel} =
  typeof module !== 'undefined'
    ? {
        stepping: require('./stepping.js'),
        keys: require('./keys.js'),
        tour: require('./tour.js'),
        guessPanel: require('./guess-panel.js'),
      }
    : window.transformerViz;
// Guess first's kind of each plot the file draws (guess.js: hideFigure): the main map and the top-k chart.
const GUESS_KINDS = {'lesson-cross': 'map', 'lesson-topk': 'topk'};

/** Gradio's "leave as it is", which the stepping functions return for what does not change. */
const unchanged = (value) => value !== null && typeof value === 'object' && value.__type__ === 'update';

/** A lesson over `data` (frames, variants, view, layers, heads, words) drawn into `doc` with `Plotly`, stepped by
 * its controls, the presenter's keys and guess first. */
function openLesson(data, doc, Plotly) {
  const state = stepping.newState(), view = Object.assign({}, data.view), title = doc.title;
  stepping.keep(state, data.frames);
  state.variants = data.variants;
  const el = (id) => doc.getElementById(id);
  const guessing = guessPanel.mountGuess(
    {
      data: () => data.frames.guess,
      id: () => data.frames.shown,
      view: () => view,
      redraw: () => step('stay'),
      playing: () => state.playing,
      pause: () => el('step-play').click(),
    },
    doc,
  );
  const page = {
    shown: data.frames.shown,
    outputs: data.frames.ids.length + 4,
    drawPlot: (id, json, lesson, t) => {
      const fig = JSON.parse(guessing.figure(GUESS_KINDS[id], json, t));
      Plotly.react(el(id), fig.data, fig.layout, Object.assign(fig.config || {}, {responsive: true}));
      return null;
    },
    current: () => view.step,
    press: (id) => el(id).click(),
    later: (fn, ms) => setTimeout(fn, ms),
    cancel: (timer) => clearTimeout(timer),
    afterPaint: (fn) => requestAnimationFrame(() => requestAnimationFrame(fn)),
  };
  /** The outputs of a step ([step, ...plots, label, alternatives, strip]) written into the page. */
  const show = (out) => {
    if (!unchanged(out[0])) view.step = out[0];
    const n = data.frames.ids.length, label = out[1 + n], strip = out[3 + n], alt = out[4 + n];
    if (typeof label === 'string') el('step-label').innerHTML = label;
    if (typeof strip === 'string') el('token-strip').innerHTML = strip;
    if (typeof alt === 'string') el('step-alt').textContent = alt; // plain text, read by a screen reader
    el('step-slider').value = String(view.step);
    guessing.paint(Number(view.step));
    // the tab's title names the translation: only its source while the step's answer is hidden
    doc.title = doc.documentElement.classList.contains('tv-guess-hidden') ? data.source : title;
  };
  const step = (move, extra = null) => show(stepping.step(state, move, view, page, {}, extra));

  el('step-prev').textContent = data.words.prev;
  el('step-next').textContent = data.words.next;
  el('step-play').textContent = data.words.play;
  el('layer-label').textContent = data.words.layer;
  el('head-label').textContent = data.words.head;
  el('step-slider').max = String(data.frames.steps - 1);
  const menu = (select, values, chosen) => {
    for (const value of values) select.add(Object.assign(doc.createElement('option'), {value, text: value}));
    select.value = String(chosen);
  };
  menu(el('layer'), [...Array(data.layers).keys()].map(String), view.layer);
  menu(el('head'), data.heads, view.head);

  el('step-prev').addEventListener('click', () => step('prev'));
  el('step-next').addEventListener('click', () => step('next'));
  el('step-slider').addEventListener('input', (event) => {
    view.step = Number(event.target.value);
    step('stay');
  });
  el('step-play').addEventListener('click', () => {
    const [label, ...out] = stepping.play(state, view, page);
    if (!unchanged(label)) el('step-play').textContent = label;
    el('step-alt').setAttribute('aria-live', stepping.liveness(state.playing)); // quiet while it plays
    show(out);
  });
  el('layer').addEventListener('change', (event) => {
    view.layer = Number(event.target.value);
    step('stay');
  });
  el('head').addEventListener('change', (event) => {
    view.head = event.target.value;
    step('stay');
  });
  el('token-strip').addEventListener('click', (event) => {
    const token = event.target.closest && event.target.closest('[data-step]');
    if (token) step('strip', token.dataset.step);
  });
  // the presenter's keys (keys.js) work the file's own controls, as a click or a choice in a menu does
  const choose = (select, value) => {
    if (select.value === String(value)) return;
    select.value = String(value);
    select.dispatchEvent(new Event('change'));
  };
  keys.listenKeys(
    {
      map: () => el('lesson-cross'),
      size: () => ({layers: data.frames.layers, heads: data.frames.heads}),
      layer: () => Number(view.layer),
      press: (id) => el(id).click(),
      setLayer: (layer) => choose(el('layer'), layer),
      setHead: (head) => choose(el('head'), head),
      choices: guessing.choices,
      toggleGuess: guessing.toggle,
      answer: guessing.answer,
    },
    doc,
    doc.defaultView,
  );
  step('stay');
  if (data.tour && data.tour.length) {
    // the stop's step, layer and head painted in one step: two paints in one task (a head's menu changed, then the
    // step) left Chromium's page unresponsive
    followTour(data.tour, data.words, el, (stop) => {
      el('layer').value = String(stop.layer);
      el('head').value = stop.head;
      Object.assign(view, {step: stop.step, layer: Number(stop.layer), head: stop.head});
      step('stay');
    });
  }
  return {state, view, step};
}

/** A tour's stops of this translation (figures/lesson.py): shown from the first, Back and Next each opening a stop
 * with `open` (its step, layer and head) and saying its text, as text. */
function followTour(stops, words, el, open) {
  let panel = tour.openAt(tour.newPanel(), {stops}, '', 0);
  const show = () => {
    el('tour-count').textContent = tour.counter(panel);
    el('tour-text').textContent = stops[panel.at].text;
    el('tour-prev').disabled = panel.at === 0;
    el('tour-next').disabled = panel.at === stops.length - 1;
    open(stops[panel.at]);
  };
  el('tour-prev').textContent = words['tour-prev'];
  el('tour-next').textContent = words['tour-next'];
  el('tour-prev').addEventListener('click', () => show((panel = tour.moved(panel, -1))));
  el('tour-next').addEventListener('click', () => show((panel = tour.moved(panel, 1))));
  el('tour-panel').hidden = false;
  show();
}

if (typeof module !== 'undefined') module.exports = {openLesson};
else {
  const data = JSON.parse(document.getElementById('lesson-data').textContent);
  window.transformerViz.lesson = openLesson(data, document, window.Plotly);
}
