// Guess first: the step's answer hidden until the class picks one of four pieces, or the English word a head reads.
//
// Pure functions of one state object (newGuess) and of the translation's guess data (figures/guess.py writes it
// into the frames and the lesson file: per step the piece produced, the top 5, the step line of the main map's
// title, and the strongest key of every layer and head). The page (page.js) and the lesson file (lesson-file.js)
// draw what these decide: which step is hidden, the choices and their order, the figures with the rows from the
// step on covered, the reveal and the score. No Math.random: a choice's place is seeded by (translation, step).
'use strict';

const LETTERS = ['A', 'B', 'C', 'D'];
const HIDDEN_CLASS = 'tv-guess-hidden'; // on the page's root while the step's answer is hidden (the CSS hides)
const COVER = '#F7F7F7'; // the maps' plot background: the rows from the step on covered by it

/** A guess-first state: off; no step revealed; no guess counted. */
function newGuess() {
  return {on: false, id: null, revealed: new Map(), rows: new Map(), right: 0, asked: 0};
}

/** The state following the translation `id` (the frames' `shown`): a new translation or a branch starts again. */
function follow(g, id) {
  if (g.id === id) return g;
  Object.assign(g, {id, revealed: new Map(), rows: new Map(), right: 0, asked: 0});
  return g;
}

/** Whether step t was forced (a branch's pieces): marked, never hidden nor scored. */
function forced(data, t) {
  return t < data.forced;
}

/** Whether the step's answer is hidden: guess first on, the step neither forced nor revealed. */
function hides(g, data, t) {
  return !!data && g.on && !forced(data, t) && !g.revealed.has(t);
}

/** A 32-bit hash of a text (FNV-1a): the seed of a step's order. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A generator of numbers in [0, 1) from a seed (mulberry32): the same seed, the same numbers. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The step's choices, in an order seeded by (translation `id`, step t): the piece produced and up to three other
 * distinct pieces of the step's top 5, most likely first; each {piece, right, letter}. */
function choices(data, id, t) {
  const answer = data.piece[t], others = [];
  for (const piece of data.top[t]) {
    if (piece !== answer && !others.includes(piece) && others.length < LETTERS.length - 1) others.push(piece);
  }
  const picks = [answer, ...others], random = seeded(hash(`${id}\u0000${t}`));
  for (let i = picks.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [picks[i], picks[j]] = [picks[j], picks[i]];
  }
  return picks.map((piece, i) => ({piece, right: piece === answer, letter: LETTERS[i]}));
}

/** Counts a guess at step t (forced steps are not counted): right or not. */
function count(g, data, t, right) {
  if (forced(data, t)) return;
  g.asked += 1;
  if (right) g.right += 1;
}

/** Choice `index` of step t picked: the step revealed, the guess counted; {right} or null where the step is not
 * hidden (revealed already, forced, or guess first off). */
function answer(g, data, t, index) {
  if (!hides(g, data, t)) return null;
  const choice = choices(data, g.id, t)[index];
  if (!choice) return null;
  g.revealed.set(t, {index, right: choice.right});
  count(g, data, t, choice.right);
  return {right: choice.right};
}

/** The source pieces that are the strongest key (or a part of the strongest key word) of the main map's row at step
 * t, for the view's layer, head and units: ties all count. */
function strongest(data, view, t) {
  const units = data.strongest[view.units] ? view.units : 'pieces';
  const combo = `${Math.round(Number(view.layer))}/${view.head}`;
  return data.strongest[units][combo][t];
}

/** Source piece `key` clicked as the one the view's head reads most at step t: the row revealed, the guess counted
 * (right where `key` is among the strongest, ties included); {right} or null where the step is not hidden or its
 * row was guessed already. */
function guessKey(g, data, view, t, key) {
  if (!hides(g, data, t) || g.rows.has(t)) return null;
  const right = strongest(data, view, t).includes(Number(key));
  g.rows.set(t, {key: Number(key), right});
  count(g, data, t, right);
  return {right};
}

/** The figure `json` (the main map, kind 'map', or the top-k chart, 'topk') as shown while step t is hidden: the
 * top-k's bars and labels gone; the map's rows from the step's row on covered (the step's row left open once the
 * head was guessed), their labels and hover gone, and the step line of its title without the piece. The row of
 * step t in the view's units comes with the data (rows), as does the title's step line. */
function hideFigure(json, kind, g, data, view, t) {
  const fig = JSON.parse(json), layout = fig.layout;
  delete (layout.meta || {}).narrow; // a phone's drawing would bring the labels back
  layout.datarevision = `${layout.datarevision || ''}:hidden-${t}-${g.rows.has(t)}`;
  if (kind === 'topk') {
    fig.data = [];
    Object.assign(layout.yaxis, {tickvals: [], ticktext: []});
    return JSON.stringify(fig);
  }
  const rows = data.rows[view.units] || data.rows.pieces, row = rows[t], total = rows[rows.length - 1] + 1;
  const from = g.rows.has(t) ? row + 1 : row;
  const axis = layout.yaxis;
  axis.ticktext = (axis.ticktext || []).map((text, i) => (axis.tickvals[i] >= row ? '' : text));
  for (const trace of fig.data) trace.hoverinfo = 'skip';
  if (from < total) {
    const cover = {type: 'rect', xref: 'paper', x0: 0, x1: 1, y0: from - 0.5, y1: total - 0.5, layer: 'above'};
    layout.shapes = [...(layout.shapes || []), {...cover, fillcolor: COVER, line: {width: 0}}];
  }
  const title = layout.title && layout.title.text;
  if (typeof title === 'string') {
    const {line, hidden} = data.title[t];
    layout.title.text = title.includes(line) ? title.replace(line, hidden) : title.split('<br>')[0] + '<br>' + hidden;
  }
  return JSON.stringify(fig);
}

/** "3 of 5 right", from the words' template with {right} and {asked}. */
function scoreText(g, template) {
  return template.replace('{right}', String(g.right)).replace('{asked}', String(g.asked));
}

const api = {
  LETTERS, HIDDEN_CLASS, newGuess, follow, forced, hides, hash, seeded, choices, answer, strongest, guessKey,
  hideFigure, scoreText,
};
if (typeof module !== 'undefined') module.exports = api;
else window.transformerViz = Object.assign(window.transformerViz || {}, {guess: api});
