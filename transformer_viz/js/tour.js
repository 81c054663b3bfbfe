// Guided tours: a tour's checks and the panel's state (plain functions, tested under Node), and the panel.
//
// A tour is data (docs/user-guide.md#write-a-tour; its rules are tours/schema.json, which the server hands over with
// the share link's limits: tour.py's rules()). A stop reopens its view as a share link does: the page goes to the
// stop's link, whose query is the share link's own, with the tour and the stop's number added, and the page's
// reader of its link (links.py) restores it. Nothing here fetches a tour: one comes packaged with the page, from a
// file read in the browser, or inline in the link.
'use strict';

const URL_LIKE = /^[a-zA-Z][a-zA-Z0-9+.-]*:|^\/\/|^www\./i; // a web address where a name belongs
const HTML = /<\s*[a-zA-Z!/?]/; // the start of a tag, a comment or a declaration: a note is never HTML
const COUNT = /^(0|[1-9][0-9]*)$/;
const STORE = 'transformer-viz-tour'; // the open tour in this tab's sessionStorage, across the stops' page loads

/** A refusal, said by its catalogue key with the values of its placeholders. */
function refusal(key, values = {}) {
  return {key, values};
}

/** Throws a refusal; the checks below stop at the first thing wrong, as tour.py's do. */
function refuse(key, values) {
  throw refusal(key, values);
}

/** {tour} from a tour file's text checked against `rules` (tour.py: rules()), or {error: refusal}; `known` holds
 * the catalogue keys a stop's text may name. */
function checkTour(text, rules, known = new Set()) {
  try {
    const size = new TextEncoder().encode(text).length;
    if (size > rules.max_bytes) refuse('err-tour-too-large', {size, limit: rules.max_bytes});
    let tour;
    try {
      tour = JSON.parse(text);
    } catch (error) {
      refuse('err-tour-json');
    }
    if (!tour || typeof tour !== 'object' || Array.isArray(tour)) refuse('err-tour-json');
    if (tour.version !== rules.version) refuse('err-tour-version', {version: tour.version, expected: rules.version});
    const stops = tour.stops;
    if (!Array.isArray(stops) || stops.length === 0 || stops.length > rules.max_stops) {
      refuse('err-tour-stops', {count: Array.isArray(stops) ? stops.length : 0, limit: rules.max_stops});
    }
    if ('title' in tour) checkText(0, tour.title, rules, known, false);
    stops.forEach((stop, i) => checkStop(i + 1, stop, rules, known));
    return {tour};
  } catch (error) {
    if (error && error.key) return {error};
    throw error;
  }
}

/** One stop: its view as a share link's, its action, its text (a catalogue key or a plain note), its element. */
function checkStop(number, stop, rules, known) {
  const fields = ['view', 'action', 'text', 'note', 'point'];
  if (!stop || typeof stop !== 'object' || Object.keys(stop).some((key) => !fields.includes(key))) {
    refuse('err-tour-stop', {stop: number, field: 'stop'});
  }
  checkView(number, stop.view, rules);
  if ('action' in stop) checkAction(number, stop.action, rules);
  if ('text' in stop === 'note' in stop) refuse('err-tour-stop', {stop: number, field: 'text'});
  checkText(number, 'text' in stop ? stop.text : stop.note, rules, known, 'text' in stop);
  if (typeof stop.point === 'string' && URL_LIKE.test(stop.point)) refuse('err-tour-url');
  if (!rules.elements.includes(stop.point)) {
    refuse('err-tour-element', {stop: number, element: String(stop.point).slice(0, 64)});
  }
}

/** A stop's view holds what a share link's reader keeps as it is (share.py: parse_query, with the same limits). */
function checkView(number, view, rules) {
  const link = rules.link, bad = (field) => refuse('err-tour-stop', {stop: number, field});
  if (!view || typeof view !== 'object' || typeof view.sentence !== 'string' || !view.sentence) bad('sentence');
  const tab = new RegExp(`^(?:${link.tab})$`);
  const fits = {
    sentence: (v) => [...v].length <= link.max_chars,
    model: () => true,
    step: (v) => COUNT.test(v),
    layer: (v) => COUNT.test(v),
    head: (v) => v === 'mean' || /^[0-9]+$/.test(v),
    tab: (v) => tab.test(v),
    branch: (v) => {
      const items = v.split(',');
      return items.length <= link.max_branches && items.every((item) => /^(0|[1-9][0-9]*):(0|[1-9][0-9]*)$/.test(item));
    },
  };
  for (const [key, value] of Object.entries(view)) {
    const scalar = typeof value === 'string' || Number.isInteger(value);
    if (!rules.view.includes(key) || !scalar || !fits[key](String(value))) bad(key.slice(0, 64));
  }
}

/** A named action and exactly its settings (schema: "actions"). */
function checkAction(number, action, rules) {
  const settings = action && typeof action === 'object' ? rules.actions[action.name] : undefined;
  const wrong = () => refuse('err-tour-action', {stop: number, action: String(action && action.name).slice(0, 64)});
  if (!settings || Object.prototype.hasOwnProperty.call(Object.prototype, action.name)) wrong();
  const keys = Object.keys(action).sort(), wanted = ['name', ...Object.keys(settings)].sort();
  if (keys.join() !== wanted.join()) wrong();
  for (const [name, allowed] of Object.entries(settings)) {
    const value = action[name];
    if (Array.isArray(allowed) ? !allowed.includes(value) : !(Number.isInteger(value) && value >= 0)) wrong();
  }
}

/** A catalogue key the page knows (`key`), or a note of plain text within the length limit. */
function checkText(number, text, rules, known, key) {
  if (key) {
    if (typeof text !== 'string' || !new RegExp(rules.text_key).test(text) || !known.has(text)) {
      refuse('err-tour-stop', {stop: number, field: 'text'});
    }
    return;
  }
  if (typeof text !== 'string' || [...text].length > rules.max_text_chars) {
    refuse('err-tour-text', {stop: number, limit: rules.max_text_chars});
  }
  if (HTML.test(text)) refuse('err-tour-html', {stop: number});
}

/** A tour written into a link: its JSON as URL-safe base64 (no padding). */
function encodeInline(tour) {
  const bytes = new TextEncoder().encode(JSON.stringify(tour));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The JSON text of a tour written by encodeInline; null where it is not that. */
function decodeInline(value) {
  try {
    const binary = atob(value.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder('utf-8', {fatal: true}).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch (error) {
    return null;
  }
}

/** The link's ?tour= read: {name, tour} of a packaged tour, {name: '', tour} of an inline one, or {error}. A web
 * address is refused, never fetched. */
function readTourParam(value, packaged, rules, known) {
  if (new RegExp(rules.name).test(value)) {
    return Object.prototype.hasOwnProperty.call(packaged, value)
      ? {name: value, tour: packaged[value]}
      : {error: refusal('err-tour-unknown', {name: value})};
  }
  if (URL_LIKE.test(value) || /[/.:]/.test(value)) return {error: refusal('err-tour-url')};
  if (value.length > rules.max_inline_chars) {
    return {error: refusal('err-tour-link-too-long', {limit: rules.max_inline_chars})};
  }
  const text = decodeInline(value);
  if (text === null) return {error: refusal('err-tour-inline')};
  const checked = checkTour(text, rules, known);
  return checked.error ? checked : {name: '', tour: checked.tour};
}

/** The panel's state: the tour shown, its packaged name ('' for one of a file or a link) and the stop shown. */
function newPanel() {
  return {tour: null, name: '', at: 0, error: null};
}

/** The panel on `tour` at stop `at` (held to its stops). */
function openAt(panel, tour, name, at) {
  const last = tour ? tour.stops.length - 1 : 0;
  return Object.assign({}, panel, {tour, name, at: Math.min(Math.max(at, 0), Math.max(last, 0)), error: null});
}

/** The panel a stop further (`delta` 1) or back (-1), held to the tour's stops. */
function moved(panel, delta) {
  return openAt(panel, panel.tour, panel.name, panel.at + delta);
}

/** "3 / 10": the stop shown and how many there are. */
function counter(panel) {
  return panel.tour ? `${panel.at + 1} / ${panel.tour.stops.length}` : '';
}

/** The address of stop `at` of the panel's tour, read against `here`: the share link's query of its view, the
 * visitor's language, and the tour (its name, or inline where it fits; else the tab's stored copy) and stop. */
function stopLink(panel, at, lang, here, rules) {
  const url = new URL(here);
  url.search = '';
  url.hash = '';
  for (const [key, value] of Object.entries(panel.tour.stops[at].view)) url.searchParams.set(key, String(value));
  if (lang) url.searchParams.set('lang', lang);
  const inline = panel.name || encodeInline(panel.tour);
  if (inline.length <= rules.max_inline_chars) url.searchParams.set('tour', inline);
  url.searchParams.set('tour-stop', String(at + 1));
  return url.href;
}

/** The address that opens the panel's own tour at its first stop; {error} where it is too large for a link. */
function tourLink(panel, here, rules) {
  const inline = encodeInline(panel.tour);
  if (inline.length > rules.max_inline_chars) {
    return {error: refusal('err-tour-link-too-long', {limit: rules.max_inline_chars})};
  }
  return {link: stopLink(panel, 0, '', here, rules)};
}

/** The text of `stop` in `lang`: its catalogue key's (English where that language lacks it), or its note. Only
 * this stop's text is looked up. */
function stopText(stop, words, lang) {
  if ('note' in stop) return stop.note;
  return (words[lang] || {})[stop.text] || words.en[stop.text];
}

/** A refusal in `lang`, its placeholders filled, after the words saying that the tour was not opened. */
function explain(error, words, lang) {
  const say = (key) => (words[lang] || {})[key] || words.en[key];
  const text = say(error.key).replace(/\{(\w+)\}/g, (all, name) => (name in error.values ? error.values[name] : all));
  return `${say('tour-refused')} ${text}`;
}

/** `tour` with one more stop at its end: the view of the page's share link `link` (its query's view parameters),
 * with a note and the element to point at. */
function withStop(tour, link, note, point, rules) {
  const query = new URL(link).searchParams, view = {};
  for (const key of rules.view) {
    if (!query.has(key)) continue;
    const value = query.get(key);
    view[key] = key === 'step' || key === 'layer' ? Number(value) : value;
  }
  const own = tour || {version: rules.version, stops: []};
  return Object.assign({}, own, {stops: [...own.stops, {view, note, point}]});
}

/** `tour` without its last stop. */
function withoutLast(tour) {
  return Object.assign({}, tour, {stops: tour.stops.slice(0, -1)});
}

/** `tour` with stop `at` moved `delta` places (held to the tour), and where it now is. */
function reordered(tour, at, delta) {
  const stops = [...tour.stops], to = Math.min(Math.max(at + delta, 0), stops.length - 1);
  stops.splice(to, 0, stops.splice(at, 1)[0]);
  return {tour: Object.assign({}, tour, {stops}), at: to};
}

const api = {
  checkTour, readTourParam, encodeInline, decodeInline, newPanel, openAt, moved, counter, stopLink, tourLink,
  stopText, explain, withStop, withoutLast, reordered, STORE,
};
if (typeof module !== 'undefined') module.exports = api;
else window.transformerViz = Object.assign(window.transformerViz || {}, {tour: api});
