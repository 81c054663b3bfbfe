// node --test: the presenter's keys (transformer_viz/js/keys.js): what each key does, and when none does.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const k = require('../../transformer_viz/js/keys.js');

/** An element as the key event's target sees it: a tag, attributes, and whether it is being edited. */
function element(tagName = 'DIV', attributes = {}, isContentEditable = false) {
  return {tagName, isContentEditable, getAttribute: (name) => (name in attributes ? attributes[name] : null)};
}

/** A keydown event of `key` on the page's body, with `more` (modifiers, another target, composition). */
function press(key, more = {}) {
  return {key, target: element('BODY'), keyCode: 0, isComposing: false, defaultPrevented: false, ...more};
}

// A model of 3 layers and 4 heads, shown at layer 1, its lesson's map on screen, the help panel hidden, guess first
// offering four choices at the step.
const SHOWN = {layer: 1, layers: 3, heads: 4, onScreen: true, helpShown: false, choices: 4};
const action = (key, more = {}, context = {}) => k.keyAction(press(key, more), {...SHOWN, ...context});

// Every key the lesson answers on SHOWN, for the rules that keep each of them from acting.
const HANDLED = [
  'ArrowLeft', 'ArrowRight', 'PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', '0', '3', 'm', 'M', ' ', '?', 'g', 'G', 'a',
  'B', 'c', 'd',
];

test('every key the lesson answers does something on a lesson at rest', () => {
  for (const key of HANDLED) assert.notEqual(action(key), null, key);
});

test('left and right arrows, PageUp and PageDown (a clicker) step back and forward', () => {
  assert.deepEqual(action('ArrowLeft'), {type: 'step', move: 'prev'});
  assert.deepEqual(action('ArrowRight'), {type: 'step', move: 'next'});
  assert.deepEqual(action('PageUp'), {type: 'step', move: 'prev'});
  assert.deepEqual(action('PageDown'), {type: 'step', move: 'next'});
});

test('up and down change the layer, held at the model\'s first and last', () => {
  assert.deepEqual(action('ArrowUp'), {type: 'layer', layer: 2});
  assert.deepEqual(action('ArrowDown'), {type: 'layer', layer: 0});
  assert.deepEqual(action('ArrowUp', {}, {layer: 2}), {type: 'layer', layer: 2});
  assert.deepEqual(action('ArrowDown', {}, {layer: 0}), {type: 'layer', layer: 0});
  assert.deepEqual(action('ArrowUp', {}, {layer: '0', layers: 1}), {type: 'layer', layer: 0}); // one layer
  assert.equal(action('ArrowUp', {}, {layers: 0}), null); // before a translation: the page scrolls
});

test('a digit picks the head of that number where the model has it, M the mean', () => {
  assert.deepEqual(action('0'), {type: 'head', head: '0'});
  assert.deepEqual(action('3'), {type: 'head', head: '3'});
  assert.equal(action('4'), null);
  assert.equal(action('9'), null);
  assert.deepEqual(action('m'), {type: 'head', head: 'mean'});
  assert.deepEqual(action('M', {shiftKey: true}), {type: 'head', head: 'mean'});
  assert.equal(action('0', {}, {heads: 0}), null);
  assert.equal(action('m', {}, {heads: 0}), null);
});

test('Space plays and pauses; ? shows and hides the help, Escape hides it', () => {
  assert.deepEqual(action(' '), {type: 'play'});
  assert.deepEqual(action('?', {shiftKey: true}), {type: 'help', show: true});
  assert.deepEqual(action('?', {}, {helpShown: true}), {type: 'help', show: false});
  assert.deepEqual(action('Escape', {}, {helpShown: true}), {type: 'help', show: false});
  assert.equal(action('Escape'), null);
});

test('G turns guess first on and off; A to D pick a choice where the step offers that many', () => {
  assert.deepEqual(action('g'), {type: 'guess'});
  assert.deepEqual(action('G', {shiftKey: true}), {type: 'guess'});
  assert.equal(action('g', {}, {layers: 0}), null); // before a translation there is nothing to guess
  assert.deepEqual(action('a'), {type: 'answer', index: 0});
  assert.deepEqual(action('B', {shiftKey: true}), {type: 'answer', index: 1});
  assert.deepEqual(action('d'), {type: 'answer', index: 3});
  assert.equal(action('d', {}, {choices: 3}), null); // a top 5 of fewer distinct pieces: three choices
  assert.deepEqual(action('c', {}, {choices: 3}), {type: 'answer', index: 2});
  for (const key of ['a', 'b', 'c', 'd']) assert.equal(action(key, {}, {choices: 0}), null, key); // nothing hidden
  assert.equal(action('a', {}, {choices: undefined}), null); // a page without guess first
});

test('other keys are left to the browser', () => {
  for (const key of ['e', 'E', 'x', 'Enter', 'Tab', 'Home', 'End', 'F5', 'Shift']) assert.equal(action(key), null, key);
});

test('no key acts in a form control: input, textarea, select, an element being edited', () => {
  const controls = [element('INPUT'), element('input'), element('TEXTAREA'), element('SELECT'),
    element('DIV', {}, true), element('SPAN', {contenteditable: 'true'}, true)];
  for (const target of controls)
    for (const key of HANDLED) assert.equal(action(key, {target}), null, `${key} in ${target.tagName}`);
});

test('no key acts on a slider, a radio, a list box, a tab or a button, by role or tag', () => {
  const roles = ['slider', 'radio', 'listbox', 'option', 'tab', 'button', 'textbox', 'combobox', 'checkbox'];
  const targets = [element('BUTTON'), ...roles.map((role) => element('DIV', {role}))];
  for (const target of targets)
    for (const key of HANDLED) assert.equal(action(key, {target}), null, `${key} on ${target.getAttribute('role')}`);
  assert.notEqual(action('ArrowRight', {target: element('DIV', {role: 'region'})}), null); // a role without keys
  assert.notEqual(action('ArrowRight', {target: element('svg')}), null); // a click in a plot leaves it no focus
  assert.equal(k.inControl(element('DIV', {role: 'presentation button'})), true);
  assert.equal(k.inControl(null), false);
});

test('no key acts while an input method composes (Japanese, Korean, Chinese)', () => {
  for (const key of HANDLED) {
    assert.equal(action(key, {isComposing: true}), null, key);
    assert.equal(action(key, {keyCode: 229}), null, key); // Chromium's keydown while an input method has the key
  }
  assert.equal(action('Process', {keyCode: 229}), null);
});

test('a key with Ctrl, Alt or Meta does nothing; Shift does not stop one', () => {
  for (const modifier of ['ctrlKey', 'altKey', 'metaKey'])
    for (const key of HANDLED) assert.equal(action(key, {[modifier]: true}), null, `${modifier} ${key}`);
  assert.deepEqual(action('ArrowRight', {shiftKey: true}), {type: 'step', move: 'next'});
});

test('keys that scroll the page act only while the lesson\'s map is on screen', () => {
  for (const key of ['PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', ' '])
    assert.equal(action(key, {}, {onScreen: false}), null, key);
  assert.deepEqual(action('ArrowRight', {}, {onScreen: false}), {type: 'step', move: 'next'});
  assert.deepEqual(action('3', {}, {onScreen: false}), {type: 'head', head: '3'});
  assert.deepEqual(action('?', {}, {onScreen: false}), {type: 'help', show: true});
});

test('a key something else has taken (defaultPrevented) is left to it', () => {
  assert.equal(action('ArrowRight', {defaultPrevented: true}), null);
});

test('the map is on screen while half of it is, or half the screen where it is taller', () => {
  const box = (top, height) => ({top, bottom: top + height, height});
  assert.equal(k.onScreen(box(300, 400), 720), true);
  assert.equal(k.onScreen(box(600, 400), 720), false); // 120 of 400 px seen: scrolled above it
  assert.equal(k.onScreen(box(-150, 400), 720), true); // 250 of 400 seen: scrolled a little past its top
  assert.equal(k.onScreen(box(-300, 400), 720), false);
  assert.equal(k.onScreen(box(-500, 2000), 720), true); // taller than the screen, filling it
  assert.equal(k.onScreen(box(0, 0), 720), false); // hidden: not laid out
  assert.equal(k.onScreen(null, 720), false);
});

/** A page for listenKeys: its keydown listener, its root's classes, and a lesson side that records what it did. */
function fakePage(mapTop = 300) {
  const classes = new Set(), done = [], listeners = [];
  const doc = {
    documentElement: {classList: {
      contains: (name) => classes.has(name),
      toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)),
    }},
    addEventListener: (type, fn) => listeners.push([type, fn]),
  };
  const lesson = {
    map: () => ({getBoundingClientRect: () => ({top: mapTop, bottom: mapTop + 400, height: 400})}),
    size: () => ({layers: 2, heads: 4}),
    layer: () => 0,
    press: (id) => done.push(['press', id]),
    setLayer: (layer) => done.push(['layer', layer]),
    setHead: (head) => done.push(['head', head]),
    choices: () => 4,
    toggleGuess: () => done.push(['guess']),
    answer: (index) => done.push(['answer', index]),
  };
  k.listenKeys(lesson, doc, {innerHeight: 720});
  assert.deepEqual(listeners.map(([type]) => type), ['keydown']);
  /** A key pressed on the page: whether the browser was kept from its own action. */
  const key = (name, more = {}) => {
    const event = {...press(name, more), prevented: false};
    event.preventDefault = () => (event.prevented = true);
    listeners[0][1](event);
    return event.prevented;
  };
  return {classes, done, key};
}

test('each key is done through the page\'s own controls, and only the keys done are kept from the browser', () => {
  const {classes, done, key} = fakePage();
  assert.equal(key('ArrowRight'), true);
  assert.equal(key('PageUp'), true);
  assert.equal(key(' '), true);
  assert.equal(key('ArrowUp'), true);
  assert.equal(key('2'), true);
  assert.equal(key('m'), true);
  assert.deepEqual(done, [['press', 'step-next'], ['press', 'step-prev'], ['press', 'step-play'], ['layer', 1],
    ['head', '2'], ['head', 'mean']]);
  assert.equal(key('?'), true);
  assert.equal(classes.has(k.HELP_CLASS), true);
  assert.equal(key('?'), true);
  assert.equal(classes.has(k.HELP_CLASS), false);
  for (const name of ['x', '7', 'Enter', 'Escape']) assert.equal(key(name), false, name);
  assert.equal(key('ArrowRight', {target: element('TEXTAREA')}), false);
  assert.equal(key('ArrowRight', {ctrlKey: true}), false);
  assert.equal(done.length, 6);
  assert.equal(key('g'), true);
  assert.equal(key('C'), true);
  assert.equal(key('c', {target: element('BUTTON')}), false); // a choice's own button takes its keys
  assert.deepEqual(done.slice(6), [['guess'], ['answer', 2]]);
});

test('off the lesson, PageDown scrolls the page as it would', () => {
  const {done, key} = fakePage(900); // the map below the screen's bottom edge
  assert.equal(key('PageDown'), false);
  assert.equal(key('ArrowRight'), true);
  assert.deepEqual(done, [['press', 'step-next']]);
});
