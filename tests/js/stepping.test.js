// node --test: what a step paints (transformer_viz/js/stepping.js), on the server's own frames and variants.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const s = require('../../transformer_viz/js/stepping.js');
const {fixture, needsFixtures} = require('./fixtures.js');

const SKIP = {__type__: 'update'};

/** What the page hands the stepping functions: the translation shown, and a drawPlot that records what it drew. */
function fakePage(shown, outputs) {
  const drawn = [];
  return {
    shown,
    outputs,
    drawn,
    drawPlot: (id, json, lesson) => {
      drawn.push({id, json, lesson});
      return {drawn: id};
    },
  };
}

/** The frames fixture, a fresh state, a page showing the frames' translation, and a view at `step`. */
function setUp(step = 0) {
  const fx = fixture('frames.json');
  return {fx, state: s.newState(), page: fakePage(fx.shown, fx.outputs), view: {...fx.view, step}};
}

const labelOf = (out, f) => out[1 + f.ids.length]; // after the slider and the step plots

test('each change of the server\'s format turns its first value into its second', needsFixtures, () => {
  const cases = fixture('changes.json');
  assert.ok(cases.length > 6, 'the real figures\' changes are among them');
  for (const [a, b, change] of cases) {
    const made = change === null ? a : s.applyChange(JSON.parse(JSON.stringify(a)), change);
    assert.deepEqual(made, b);
  }
});

test('a value a change sets is a copy: changing the result leaves the change alone', () => {
  const change = ['=', {list: [1, 2]}];
  const made = s.applyChange(null, change);
  made.list.push(3);
  assert.deepEqual(change[1], {list: [1, 2]});
});

test('the frame key is the server\'s: layer as a whole number, the rest as text', () => {
  const view = {layer: '1.0', head: 2, presentation: 'screen', lang: 'ja', units: 'pieces'};
  assert.equal(s.frameKey(view), '[1,"2","screen","ja","pieces"]');
});

test('every layer\'s and head\'s frames are made from the variants as the server draws them', needsFixtures, () => {
  const {fx, state, view} = setUp();
  s.keep(state, fx.complete);
  state.variants = fx.variants;
  for (const [combo, plots] of Object.entries(fx.served)) {
    const [layer, head] = combo.split('/');
    state.frames = fx.complete; // each made from the complete frames, not from the last made
    const made = s.framesFor(state, {...view, layer: Number(layer), head}, fx.shown);
    assert.equal(made.key, s.frameKey({...view, layer, head}), combo);
    made.plots.forEach((frames, i) =>
      assert.deepEqual(frames === null ? null : frames.map((x) => JSON.parse(x)),
        plots[i] === null ? null : plots[i].map((x) => JSON.parse(x)), `${combo} ${fx.complete.ids[i]}`),
    );
    assert.deepEqual(made.alt, fx.served_alt[combo], `${combo}: the step's text alternative of that layer and head`);
    assert.equal(state.frames, made, 'the made frames are the page\'s now');
  }
});

test('variants for another look or another translation make nothing', needsFixtures, () => {
  const {fx, state, view} = setUp();
  s.keep(state, fx.complete);
  state.variants = fx.variants;
  const held = state.frames;
  assert.equal(s.framesFor(state, {...view, layer: 0, head: '0', presentation: 'slides'}, fx.shown), held);
  assert.equal(s.framesFor(state, {...view, layer: 0, head: '0'}, '["Ein anderer Satz.","x"]'), held);
});

test('Next, Previous and a strip token move the step within the translation, and paint it', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  const last = fx.complete.steps - 1;
  let out = s.step(state, 'next', view, page);
  assert.equal(out[0], 2);
  assert.equal(labelOf(out, fx.complete), fx.complete.label[2]);
  assert.equal(out.length, 1 + fx.outputs);
  assert.equal(out[out.length - 1], fx.complete.alt[2], 'the step\'s text alternative, last');
  assert.notEqual(fx.complete.alt[2], fx.complete.alt[1]);
  out = s.step(state, 'prev', {...view, step: 0}, page);
  assert.deepEqual(out[0], SKIP, 'no step before the first: the slider is left');
  out = s.step(state, 'next', {...view, step: last}, page);
  assert.deepEqual(out[0], SKIP);
  assert.equal(labelOf(out, fx.complete), fx.complete.label[last] + ' — ' + fx.complete.last, 'it says why');
  out = s.step(state, 'strip', view, page, {}, `${last} (1733300000000)`);
  assert.equal(out[0], last);
  out = s.step(state, 'strip', view, page, {}, 'not a step');
  assert.deepEqual(out[0], SKIP);
  assert.equal(labelOf(out, fx.complete), fx.complete.label[1]);
});

test('the lesson\'s plots are drawn at once, the others handed to drawPlot as not the lesson\'s', needsFixtures, () => {
  const {fx, state, page, view} = setUp(0);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  const lesson = page.drawn.filter((d) => d.lesson).map((d) => d.id);
  assert.deepEqual(lesson.sort(), fx.complete.ids.filter((_, i) => fx.complete.lesson[i]).sort());
  assert.ok(page.drawn.some((d) => !d.lesson), 'the tabs\' step plots too');
});

test('frames drawn for another layer move the step and paint nothing', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.keep(state, fx.complete); // no variants: the server must draw layer 0
  const out = s.step(state, 'next', {...view, layer: 0}, page);
  assert.equal(out[0], 2);
  assert.deepEqual(out.slice(1), Array(fx.outputs).fill(SKIP));
  assert.deepEqual(state.wanted, [fx.shown, 2], 'the step is painted when that layer\'s frames come');
});

// A new translation's text reaches the page before its frames: until they come, a step moves without painting the
// translation before's map over the new one.
test('the last translation\'s frames move the step under a new one and paint nothing, until the page shows theirs', needsFixtures, () => {
  const {fx, state, page, view} = setUp(0);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  const newer = {...page, shown: '["Eine neue Übersetzung.","tiny-seed000"]'};
  let out = s.step(state, 'next', view, newer);
  assert.equal(out[0], 1, 'the step moves');
  assert.deepEqual(out.slice(1), Array(fx.outputs).fill(SKIP), 'nothing of the translation before is painted');
  assert.deepEqual(state.wanted, [newer.shown, 1], 'painted once that translation\'s frames come');
  out = s.step(state, 'next', {...view, step: 1}, page); // the frames' own translation shown again
  assert.equal(out[0], 2);
  assert.equal(labelOf(out, fx.complete), fx.complete.label[2]);
});

// The race of a step typed just after a translation showed: the lesson's frame came later and moved it back.
test('a step asked for before the frames arrive wins over the lesson\'s, once', needsFixtures, () => {
  const {fx, state, page, view} = setUp(2);
  assert.deepEqual(s.step(state, 'stay', view, page), Array(1 + fx.outputs).fill(SKIP));
  let out = s.step(state, 'stay', view, page, {frames: fx.lesson});
  assert.deepEqual(out, Array(1 + fx.outputs).fill(SKIP), 'the slider stays at 2 (not set), nothing painted');
  out = s.step(state, 'stay', view, page, {frames: fx.complete});
  assert.deepEqual(out[0], SKIP);
  assert.equal(labelOf(out, fx.complete), fx.complete.label[2], 'every step\'s frames paint the step asked for');
  assert.equal(state.wanted, null);
  const next = {...fx.lesson, serial: fx.later.serial + 1}; // a later translation's lesson opens at its own step
  out = s.step(state, 'stay', view, page, {frames: next});
  assert.equal(out[0], 0);
  assert.equal(labelOf(out, fx.lesson), fx.lesson.label[0]);
});

test('the lesson\'s frame arriving at the slider\'s step paints it and leaves the slider alone', needsFixtures, () => {
  const {fx, state, page, view} = setUp(0);
  const out = s.step(state, 'stay', view, page, {frames: fx.lesson});
  assert.deepEqual(out[0], SKIP, 'a 0 set now would undo a step typed meanwhile');
  assert.equal(labelOf(out, fx.lesson), fx.lesson.label[0]);
  const moved = s.step(state, 'next', view, page);
  assert.equal(moved[0], 1, 'the step moves');
  assert.deepEqual(moved.slice(1), Array(fx.outputs).fill(SKIP), 'and waits for every step\'s frames');
});

// The race of an earlier translation's event arriving after a newer one's: it took the page's frames.
test('frames older than the page\'s are not kept: the newer translation stays steppable', needsFixtures, () => {
  const {fx, state, page, view} = setUp(0);
  s.step(state, 'stay', view, page, {frames: fx.later});
  const stale = {...fx.complete, shown: '["Eine alte Übersetzung.","tiny-seed000"]'};
  assert.ok(stale.serial < fx.later.serial);
  assert.deepEqual(s.step(state, 'stay', view, page, {frames: stale}), Array(1 + fx.outputs).fill(SKIP));
  assert.equal(state.frames, fx.later);
  const out = s.step(state, 'next', view, page);
  assert.equal(labelOf(out, fx.later), fx.later.label[1]);
});

test('new variants paint the view\'s layer where the page holds another\'s, and nothing otherwise', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  let out = s.step(state, 'stay', view, page, {variants: fx.variants});
  assert.deepEqual(out, Array(1 + fx.outputs).fill(SKIP), 'the frames are the view\'s already');
  out = s.step(state, 'stay', {...view, layer: 0, head: '1'}, page, {variants: fx.variants});
  assert.equal(labelOf(out, fx.complete), fx.complete.label[1]);
  assert.equal(state.frames.key, s.frameKey({...view, layer: 0, head: '1'}));
});

// A late variants event (an earlier translation's, or of frames the page no longer holds) took the page's own
// variants: every new layer or head then waited for the server.
test('variants the page cannot use do not replace those it can', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  s.step(state, 'stay', view, page, {variants: fx.variants});
  assert.equal(state.variants, fx.variants);
  state.bases.set('0ld', {...fx.complete, base: '0ld', shown: '["Eine alte Übersetzung.","tiny-seed000"]'});
  for (const late of [{...fx.variants, base: '0ld'}, {...fx.variants, base: 'never-held'}, null]) {
    assert.deepEqual(s.step(state, 'stay', view, page, {variants: late}), Array(1 + fx.outputs).fill(SKIP));
    assert.equal(state.variants, fx.variants);
  }
  const out = s.step(state, 'stay', {...view, layer: 0, head: '1'}, page); // still made in the page
  assert.equal(labelOf(out, fx.complete), fx.complete.label[1]);
});

test('no variants (a translation too large) are taken where the page\'s are of another', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  s.step(state, 'stay', view, page, {variants: fx.variants});
  const large = fakePage('["A long pasted page.","tiny-seed000"]', fx.outputs);
  s.step(state, 'stay', view, large, {variants: null});
  assert.equal(state.variants, null);
  assert.equal(s.drawnHere(state, {...view, layer: 0, head: '1'}, large.shown), false);
});

test('the frames the variants change are kept however many other frames arrive after them', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.step(state, 'stay', view, page, {frames: fx.complete});
  s.step(state, 'stay', view, page, {variants: fx.variants});
  for (let i = 1; i <= 6; i++) s.keep(state, {...fx.complete, base: `drawn-${i}`, serial: fx.complete.serial + i});
  assert.ok(state.bases.has(fx.variants.base));
  assert.equal(state.bases.size, 5, 'the four newest, and the variants\' own');
  assert.equal(s.drawnHere(state, {...view, layer: 0, head: '1'}, fx.shown), true);
});

test('a new layer draws the lesson\'s plots at once and counts itself in the switch box', needsFixtures, () => {
  const {fx, state, page, view} = setUp(1);
  s.keep(state, fx.complete);
  state.variants = fx.variants;
  assert.equal(s.switched(state, {...view, layer: 0}, page), '1');
  assert.ok(page.drawn.length > 0 && page.drawn.every((d) => d.lesson));
  assert.equal(s.drawnHere(state, {...view, layer: 0}, fx.shown), true);
  assert.equal(s.drawnHere(state, {...view, layer: 0}, '["Ein anderer Satz.","x"]'), false);
  assert.equal(s.switched(state, {...view, layer: 0}, fakePage('["other","x"]', fx.outputs)), '2');
});

test('Play presses Next until the last step, then Play, which pauses; Pause stops it', needsFixtures, () => {
  const {fx, state, page, view} = setUp(0);
  s.keep(state, fx.complete);
  let at = 0;
  const timers = [], pressed = [];
  Object.assign(page, {
    current: () => at,
    press: (id) => {
      pressed.push(id);
      if (id === 'step-next') at += 1;
      else s.play(state, {...view, step: at}, page); // Play's own click
    },
    later: (fn) => timers.push(fn),
    cancel: () => timers.splice(0),
    afterPaint: (fn) => fn(),
  });
  assert.equal(s.play(state, view, page)[0], fx.complete.pause);
  assert.equal(s.liveness(state.playing), 'off', 'quiet while it plays');
  while (timers.length && pressed.length < 50) timers.shift()();
  assert.equal(at, fx.complete.steps - 1);
  assert.deepEqual(pressed, [...Array(fx.complete.steps - 1).fill('step-next'), 'step-play']);
  assert.equal(state.playing, false);
  assert.equal(s.liveness(state.playing), 'polite', 'stopped at the last step: said again');
  const again = s.play(state, {...view, step: at}, page); // from the end: from the start
  assert.equal(again[1], 0);
  assert.equal(labelOf(again.slice(1), fx.complete), fx.complete.label[0]);
  assert.equal(s.play(state, view, page)[0], fx.complete.play, 'pressed again: Pause');
  assert.equal(state.playing, false);
  assert.equal(timers.length, 0, 'no tick left');
});

test('the step\'s text alternative is said at every step the learner moves to, and kept quiet while Play runs', () => {
  assert.equal(s.liveness(false), 'polite');
  assert.equal(s.liveness(true), 'off');
});
