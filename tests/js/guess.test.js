// node --test: guess first (transformer_viz/js/guess.js): what is hidden, the choices and their seeded order,
// the reveal, the score, forced steps, the head guess with ties, and the figures as shown while a step is hidden.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const g = require('../../transformer_viz/js/guess.js');

// A translation of four steps, the first forced (a branch), as figures/guess.py writes its data. Step 2's top 5
// holds the piece produced twice over and only two others; at step 3 layer 0's mean reads source pieces 1 and 2
// alike (a tie).
const DATA = {
  forced: 1,
  piece: ['Ich', 'sehe', 'das', 'Haus'],
  top: [
    ['Ich', 'Du', 'Wir', 'Er', 'Sie'],
    ['sehe', 'habe', 'mag', 'will', 'bin'],
    ['das', 'der', 'das', 'die', 'der'],
    ['Haus', 'Hund', 'Garten', 'Katze', '·s'],
  ],
  title: [0, 1, 2, 3].map((t) => ({line: `step ${t}: producing “${['Ich', 'sehe', 'das', 'Haus'][t]}”`,
    hidden: `step ${t}: producing “?”`})),
  rows: {pieces: [0, 1, 2, 3], words: [0, 1, 1, 2]},
  strongest: {
    pieces: {'0/mean': [[0], [1], [3], [1, 2]], '0/2': [[0], [0], [0], [3]]},
    words: {'0/mean': [[0], [1, 2], [3], [3]], '0/2': [[0], [0], [0], [0]]},
  },
};
const ID = '["Ich sehe das Haus","tiny"]';
const VIEW = {layer: 0, head: 'mean', units: 'pieces'};

/** A guess state on, following the translation ID. */
function on() {
  const state = g.follow(g.newGuess(), ID);
  state.on = true;
  return state;
}

test('off, nothing is hidden; on, every step that is neither forced nor revealed is', () => {
  const state = g.follow(g.newGuess(), ID);
  assert.deepEqual([0, 1, 2, 3].map((t) => g.hides(state, DATA, t)), [false, false, false, false]);
  state.on = true;
  assert.deepEqual([0, 1, 2, 3].map((t) => g.hides(state, DATA, t)), [false, true, true, true]);
  assert.equal(g.forced(DATA, 0), true);
  assert.equal(g.hides(state, null, 1), false); // frames without guess data (before they come)
});

test('four choices: the piece produced and three other distinct pieces of the top 5, most likely first', () => {
  const picks = g.choices(DATA, ID, 1);
  assert.deepEqual(picks.map((c) => c.letter), ['A', 'B', 'C', 'D']);
  assert.deepEqual(picks.map((c) => c.piece).sort(), ['habe', 'mag', 'sehe', 'will'].sort());
  assert.deepEqual(picks.filter((c) => c.right).map((c) => c.piece), ['sehe']);
  // a top 5 of fewer distinct pieces gives fewer choices, each once
  assert.deepEqual(g.choices(DATA, ID, 2).map((c) => c.piece).sort(), ['das', 'der', 'die']);
});

test('the order is seeded by the translation and the step: the same twice, not always the same', () => {
  assert.deepEqual(g.choices(DATA, ID, 3), g.choices(DATA, ID, 3));
  const orders = new Set();
  for (let t = 0; t < 4; t++)
    for (const id of [ID, 'another', 'a third', 'a fourth']) orders.add(g.choices(DATA, id, t).map((c) => c.right).join());
  assert.ok(orders.size > 2, 'the right answer sits in several places'); // a fixed order would give one
  assert.equal(g.hash('a'), g.hash('a'));
  assert.notEqual(g.hash('a\u00001'), g.hash('a\u00002'));
  const random = g.seeded(7), again = g.seeded(7);
  for (let i = 0; i < 5; i++) {
    const x = random();
    assert.ok(x >= 0 && x < 1);
    assert.equal(x, again());
  }
});

test('a choice reveals the step, marks it right or wrong and counts; a revealed step stays revealed', () => {
  const state = on();
  const picks = g.choices(DATA, ID, 1), right = picks.findIndex((c) => c.right), wrong = (right + 1) % picks.length;
  assert.deepEqual(g.answer(state, DATA, 1, right), {right: true});
  assert.equal(g.hides(state, DATA, 1), false);
  assert.equal(g.answer(state, DATA, 1, wrong), null); // revealed: a second pick counts nothing
  const wrongAt3 = g.choices(DATA, ID, 3).findIndex((c) => !c.right);
  assert.deepEqual(g.answer(state, DATA, 3, wrongAt3), {right: false});
  assert.deepEqual([state.right, state.asked], [1, 2]);
  assert.equal(g.scoreText(state, '{right} of {asked} right'), '1 of 2 right');
  assert.equal(g.hides(state, DATA, 1), false); // back at a revealed step
  assert.equal(g.hides(state, DATA, 2), true);
  assert.equal(g.answer(state, DATA, 2, 7), null); // no such choice
});

test('a forced step is neither hidden nor counted', () => {
  const state = on();
  assert.equal(g.answer(state, DATA, 0, 0), null);
  assert.deepEqual([state.right, state.asked], [0, 0]);
});

test('a new translation or branch starts the score again; the same one keeps it', () => {
  const state = on();
  g.answer(state, DATA, 1, 0);
  g.follow(state, ID);
  assert.equal(state.asked, 1);
  g.follow(state, '["Ich sehe den Hund","tiny"]');
  assert.deepEqual([state.right, state.asked, state.revealed.size, state.on], [0, 0, 0, true]);
});

test('the head guess: right where the piece is the row\'s strongest key, ties included, once a step', () => {
  const state = on();
  assert.deepEqual(g.guessKey(state, DATA, VIEW, 3, 2), {right: true}); // 1 and 2 tie
  assert.equal(g.guessKey(state, DATA, VIEW, 3, 1), null); // the row is revealed: once
  assert.deepEqual(g.guessKey(state, DATA, {...VIEW, head: '2'}, 2, 3), {right: false});
  assert.deepEqual([state.right, state.asked], [1, 2]);
  assert.equal(g.hides(state, DATA, 3), true); // the piece is still to guess
  // in words, a piece is right where it is a part of the strongest word
  assert.deepEqual(g.guessKey(on(), DATA, {...VIEW, units: 'words'}, 1, 2), {right: true});
  assert.equal(g.guessKey(on(), DATA, VIEW, 0, 0), null); // forced
});

/** The main map at step t: four rows, four key columns, its title's step line naming the piece. */
function map(t) {
  return JSON.stringify({
    data: [{type: 'heatmap', z: [[1]], hovertemplate: 'query: %{y}'}],
    layout: {
      title: {text: `Cross-attention · Layer 0<br>${DATA.title[t].line}`},
      yaxis: {tickvals: [0, 1, 2, 3], ticktext: DATA.piece},
      shapes: [{type: 'rect', y0: t - 0.5, y1: t + 0.5}],
      meta: {narrow: {below: 600, change: {}}},
      datarevision: 'abc',
    },
  });
}

test('a hidden step\'s map: the rows from the step on covered and unlabelled, no hover, the title without the piece', () => {
  const state = on(), fig = JSON.parse(g.hideFigure(map(2), 'map', state, DATA, VIEW, 2));
  assert.deepEqual(fig.layout.yaxis.ticktext, ['Ich', 'sehe', '', '']);
  assert.equal(fig.layout.title.text, 'Cross-attention · Layer 0<br>step 2: producing “?”');
  assert.ok(!JSON.stringify(fig).includes('“das”'));
  const cover = fig.layout.shapes[1];
  assert.deepEqual([cover.y0, cover.y1, cover.xref], [1.5, 3.5, 'paper']);
  assert.equal(fig.data[0].hoverinfo, 'skip');
  assert.equal(fig.layout.meta.narrow, undefined);
  assert.notEqual(fig.layout.datarevision, 'abc'); // so Plotly draws the cover, not only the layout's changes
  // the head guessed: the step's row opens, its label (the piece) stays hidden
  g.guessKey(state, DATA, VIEW, 2, 3);
  const open = JSON.parse(g.hideFigure(map(2), 'map', state, DATA, VIEW, 2));
  assert.deepEqual([open.layout.shapes[1].y0, open.layout.yaxis.ticktext[2]], [2.5, '']);
  // in words, the rows are words: step 2's piece is in word row 1
  const words = JSON.parse(g.hideFigure(map(2), 'map', on(), DATA, {...VIEW, units: 'words'}, 2));
  assert.deepEqual(words.layout.yaxis.ticktext, ['Ich', '', '', '']);
  // the last step: nothing below it but its own row
  const last = JSON.parse(g.hideFigure(map(3), 'map', on(), DATA, VIEW, 3));
  assert.deepEqual([last.layout.shapes[1].y0, last.layout.shapes[1].y1], [2.5, 3.5]);
});

test('a title wrapped through its step line loses everything after its first line', () => {
  const fig = JSON.parse(map(1));
  fig.layout.title.text = 'Cross-attention · Layer 0<br>step 1: producing<br>“sehe”';
  const hidden = JSON.parse(g.hideFigure(JSON.stringify(fig), 'map', on(), DATA, VIEW, 1));
  assert.equal(hidden.layout.title.text, 'Cross-attention · Layer 0<br>step 1: producing “?”');
});

test('a hidden step\'s top-k chart has no bars and no labels', () => {
  const topk = JSON.stringify({
    data: [{type: 'bar', y: [0, 1], hovertext: ['sehe', 'habe']}],
    layout: {title: {text: 'Step 1'}, yaxis: {tickvals: [0, 1], ticktext: ['sehe', 'habe']}},
  });
  const fig = JSON.parse(g.hideFigure(topk, 'topk', on(), DATA, VIEW, 1));
  assert.deepEqual([fig.data, fig.layout.yaxis.ticktext], [[], []]);
  assert.ok(!JSON.stringify(fig).includes('sehe'));
});
