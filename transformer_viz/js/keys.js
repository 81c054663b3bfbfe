// The presenter's keys: a teacher at a projector steps the lesson with the keyboard or a clicker.
//
// keyAction decides alone what a key does, from the key event and what the lesson shows (its context), so that
// Node's test runner checks every key and every rule without a browser. listenKeys hands each action to the page
// that loads this module, which does it through its own controls: the app's page (page.js: the same buttons,
// slider and menu a visitor uses, so that every view that follows them follows) and the lesson file
// (lesson-file.js). G turns guess first on and off, and A–D pick one of its choices (guess.js).
'use strict';

// Where the focus is in one of these, a key is the element's own (typing, moving a slider, picking a choice,
// pressing a button): tags, and the ARIA roles of elements that take keys themselves.
const CONTROL_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON']);
const CONTROL_ROLES = new Set([
  'textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'radio', 'checkbox', 'switch', 'listbox', 'option',
  'tab', 'button', 'menuitem',
]);
const STEP_KEYS = new Map([
  ['ArrowLeft', 'prev'],
  ['ArrowRight', 'next'],
  ['PageUp', 'prev'], // a presenter's clicker sends PageUp and PageDown
  ['PageDown', 'next'],
]);
// Keys that scroll the page: the lesson's only while its map is on screen, the page's own everywhere else.
const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', ' ']);
const IME_KEY_CODE = 229; // a key that goes to an input method (Japanese, Korean, Chinese) while it composes
const HELP_CLASS = 'tv-keys-help'; // on the page's root while the keys' help panel shows
const ANSWER_KEYS = ['a', 'b', 'c', 'd']; // guess first's choices, as their letters read (guess.js: LETTERS)

/** Whether the element `target` (where the focus is) takes keys itself: a form control, an element being edited,
 * or one whose role (slider, radio, list box, tab, button, …) has keys of its own. */
function inControl(target) {
  if (!target) return false;
  if (CONTROL_TAGS.has(String(target.tagName || '').toUpperCase()) || target.isContentEditable) return true;
  const role = target.getAttribute ? target.getAttribute('role') : null;
  return !!role && role.split(/\s+/).some((name) => CONTROL_ROLES.has(name));
}

/** What the key `event` does to the lesson, or null where it is not the lesson's (then the browser does what it
 * would). `context`: {layer: the layer shown, layers and heads: how many the model has (0 before a translation),
 * onScreen: the lesson's map is on screen, helpShown: the help panel shows, choices: how many choices guess first
 * offers at the step (0 where none is hidden)}. An action is {type: 'step', move: 'prev' | 'next'}, {type: 'layer',
 * layer}, {type: 'head', head: '0'… or 'mean'}, {type: 'play'} (play or pause), {type: 'help', show}, {type: 'guess'}
 * (guess first on or off) or {type: 'answer', index}. */
function keyAction(event, context) {
  if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey) return null;
  if (event.isComposing || event.keyCode === IME_KEY_CODE) return null;
  if (inControl(event.target)) return null;
  const key = event.key;
  if (SCROLL_KEYS.has(key) && !context.onScreen) return null;
  if (STEP_KEYS.has(key)) return {type: 'step', move: STEP_KEYS.get(key)};
  if (key === 'ArrowUp' || key === 'ArrowDown') {
    if (!(context.layers > 0)) return null;
    const layer = Math.round(Number(context.layer)) + (key === 'ArrowUp' ? 1 : -1);
    return {type: 'layer', layer: Math.max(0, Math.min(layer, context.layers - 1))}; // held at the first and last
  }
  if (/^[0-9]$/.test(key)) return Number(key) < context.heads ? {type: 'head', head: key} : null;
  if (key === 'm' || key === 'M') return context.heads > 0 ? {type: 'head', head: 'mean'} : null;
  if (key === ' ') return {type: 'play'};
  if (key === 'g' || key === 'G') return context.layers > 0 ? {type: 'guess'} : null;
  const answer = ANSWER_KEYS.indexOf(String(key).toLowerCase());
  if (answer >= 0) return answer < (context.choices || 0) ? {type: 'answer', index: answer} : null;
  if (key === '?') return {type: 'help', show: !context.helpShown};
  if (key === 'Escape' && context.helpShown) return {type: 'help', show: false};
  return null;
}

/** Whether a box `rect` (getBoundingClientRect) is on a screen `height` pixels tall: at least half of it, or of the
 * screen where it is taller. A box not laid out (hidden) is not. */
function onScreen(rect, height) {
  if (!rect || !(rect.height > 0)) return false;
  const seen = Math.min(rect.bottom, height) - Math.max(rect.top, 0);
  return seen >= Math.min(rect.height, height) / 2;
}

/** Whether the keys' help panel shows on `doc`. */
function helpShown(doc) {
  return doc.documentElement.classList.contains(HELP_CLASS);
}

/** The keys' help panel shown or hidden: a class on the page's root, which the page's CSS shows it under (the
 * panel's own element is redrawn by a new language; the root is not). */
function showHelp(doc, show) {
  doc.documentElement.classList.toggle(HELP_CLASS, Boolean(show));
}

/** What the lesson shows now, for keyAction: `lesson` is the page's side of listenKeys. */
function contextOf(lesson, doc, win) {
  const map = lesson.map(), size = lesson.size();
  return {
    layer: lesson.layer(),
    layers: size.layers,
    heads: size.heads,
    onScreen: !!map && onScreen(map.getBoundingClientRect(), win.innerHeight),
    helpShown: helpShown(doc),
    choices: lesson.choices ? lesson.choices() : 0,
  };
}

/** An action done with the page's own controls (`lesson`: press(id) for the buttons step-prev, step-next and
 * step-play; setLayer(layer) and setHead(head), which leave a control that shows it already as it is; toggleGuess()
 * and answer(index), guess first's switch and choices). */
function perform(action, lesson, doc) {
  if (action.type === 'step') lesson.press(`step-${action.move}`);
  else if (action.type === 'play') lesson.press('step-play');
  else if (action.type === 'layer') lesson.setLayer(action.layer);
  else if (action.type === 'head') lesson.setHead(action.head);
  else if (action.type === 'help') showHelp(doc, action.show);
  else if (action.type === 'guess') lesson.toggleGuess();
  else if (action.type === 'answer') lesson.answer(action.index);
}

/** The presenter's keys on `doc`: each key keyAction maps is done (perform) and kept from the browser
 * (preventDefault); every other key is left to it. `lesson` is the page's side: map() its main map's element,
 * size() {layers, heads} of the model shown, layer() the layer shown, choices() how many choices guess first offers
 * now, and perform's controls. */
function listenKeys(lesson, doc = document, win = window) {
  const onKey = (event) => {
    const action = keyAction(event, contextOf(lesson, doc, win));
    if (action === null) return;
    event.preventDefault();
    perform(action, lesson, doc);
  };
  doc.addEventListener('keydown', onKey);
  return onKey;
}

const api = {keyAction, inControl, onScreen, helpShown, showHelp, listenKeys, HELP_CLASS};
if (typeof module !== 'undefined') module.exports = api;
else window.transformerViz = Object.assign(window.transformerViz || {}, {keys: api});
