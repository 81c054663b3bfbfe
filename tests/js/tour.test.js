// node --test: a tour's checks and the panel's state (transformer_viz/js/tour.js), on the server's rules and
// packaged tours (tests/test_js.py writes them: tour.json).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const tv = require('../../transformer_viz/js/tour.js');
const {fixture, needsFixtures} = require('./fixtures.js');

const HERE = 'https://example.org/app/?sentence=old#views';
const served = fixture('tour.json');
const {rules, tours, words} = served || {};
const known = new Set(served ? Object.keys(words.en) : []);

/** A teacher's tour of `n` stops, each a view of the sentence at step i with a note. */
function ownTour(n = 2) {
  const stops = Array.from({length: n}, (_, i) => ({
    view: {sentence: 'I see the house.', model: 'seed000', step: i, layer: 0, head: 'mean', tab: 'tab-cross'},
    note: `Stop ${i + 1}: look at the map.`,
    point: 'plot-cross',
  }));
  return {version: rules.version, stops};
}

/** The refusal's key (and values) of a tour's text, or null where it is accepted. */
function refusedAs(tour) {
  const checked = tv.checkTour(typeof tour === 'string' ? tour : JSON.stringify(tour), rules, known);
  return checked.error || null;
}

test('the packaged tours pass the browser\'s checks, as they pass the server\'s', needsFixtures, () => {
  assert.ok(tours.builtin.stops.length >= 10);
  for (const tour of Object.values(tours)) assert.equal(refusedAs(tour), null);
  assert.equal(refusedAs(ownTour()), null);
});

test('a tour over the size limit is refused before it is read', needsFixtures, () => {
  const tour = ownTour(1);
  tour.stops[0].note = 'x'.repeat(rules.max_bytes);
  const error = refusedAs(tour);
  assert.equal(error.key, 'err-tour-too-large');
  assert.equal(error.values.limit, rules.max_bytes);
  assert.ok(error.values.size > rules.max_bytes);
});

test('too many stops, none, or not a tour at all', needsFixtures, () => {
  assert.equal(refusedAs(ownTour(rules.max_stops + 1)).key, 'err-tour-stops');
  assert.equal(refusedAs(ownTour(rules.max_stops)), null);
  assert.equal(refusedAs({version: rules.version, stops: []}).key, 'err-tour-stops');
  assert.equal(refusedAs('{"version": 1, "stops": [').key, 'err-tour-json');
  assert.equal(refusedAs([1, 2]).key, 'err-tour-json');
  assert.equal(refusedAs(Object.assign(ownTour(), {version: rules.version + 1})).key, 'err-tour-version');
});

test('a stop may point only at an element of the list, never at a selector', needsFixtures, () => {
  for (const point of ['#plot-cross', 'div.tv-hidden', 'sentence-box', '']) {
    const tour = ownTour();
    tour.stops[1].point = point;
    assert.deepEqual(refusedAs(tour), {key: 'err-tour-element', values: {stop: 2, element: point}});
  }
  for (const point of rules.elements) {
    const tour = ownTour(1);
    tour.stops[0].point = point;
    assert.equal(refusedAs(tour), null, point);
  }
});

test('a bad stop is refused as the link\'s reader would drop it, naming the field', needsFixtures, () => {
  assert.ok(served.bad_stops.length >= 10);
  for (const [change, field] of served.bad_stops) {  // tests/test_tour.py's BAD_STOPS, checked there too
    const tour = ownTour();
    Object.assign(tour.stops[1].view, change);
    assert.deepEqual(refusedAs(tour), {key: 'err-tour-stop', values: {stop: 2, field}}, JSON.stringify(change));
  }
  const fine = ownTour();
  Object.assign(fine.stops[1].view, {branch: '2:3176,4:44', head: '3', step: 12});
  assert.equal(refusedAs(fine), null);
});

test('an action is one of the named ones with exactly its settings', needsFixtures, () => {
  const withAction = (action) => Object.assign(ownTour(1), {stops: [Object.assign(ownTour(1).stops[0], {action})]});
  assert.equal(refusedAs(withAction({name: 'head-off', kind: 'cross', layer: 2, head: 0})), null);
  assert.equal(refusedAs(withAction({name: 'compare'})), null);
  for (const action of [
    {name: 'head-off', kind: 'cross', layer: 2},
    {name: 'head-off', kind: 'both', layer: 2, head: 0},
    {name: 'head-off', kind: 'cross', layer: -1, head: 0},
    {name: 'compare', model: 'seed004'},
    {name: 'constructor'},
    {name: 'run-script'},
  ]) {
    assert.equal(refusedAs(withAction(action)).key, 'err-tour-action', JSON.stringify(action));
  }
});

test('a note is plain text: HTML in it is refused, and so is one too long', needsFixtures, () => {
  for (const note of ['<b>bold</b> map', 'see <img src=x onerror=alert(1)>', 'a <!-- comment -->', '</p>']) {
    const tour = ownTour();
    tour.stops[0].note = note;
    assert.deepEqual(refusedAs(tour), {key: 'err-tour-html', values: {stop: 1}}, note);
  }
  const maths = ownTour(1);
  maths.stops[0].note = 'p < 0.5 and 3 <4, **not bold**';
  assert.equal(refusedAs(maths), null);
  const long = ownTour(1);
  long.stops[0].note = 'x'.repeat(rules.max_text_chars + 1);
  assert.equal(refusedAs(long).key, 'err-tour-text');
  const both = ownTour(1);
  both.stops[0].text = 'tour-pieces';
  assert.deepEqual(refusedAs(both), {key: 'err-tour-stop', values: {stop: 1, field: 'text'}});
  const unknownKey = ownTour(1);
  delete unknownKey.stops[0].note;
  unknownKey.stops[0].text = 'tour-no-such-key';
  assert.equal(refusedAs(unknownKey).key, 'err-tour-stop');
});

test('a web address where a tour\'s name or an element belongs is refused, never fetched', needsFixtures, () => {
  const addresses = ['https://example.org/tour.json', '//example.org/t', 'www.example.org', 'file:tour', 'a/b.json'];
  for (const value of addresses) {
    assert.deepEqual(tv.readTourParam(value, tours, rules, known), {error: {key: 'err-tour-url', values: {}}}, value);
  }
  const tour = ownTour();
  tour.stops[0].point = 'javascript:alert(1)';
  assert.equal(refusedAs(tour).key, 'err-tour-url');
});

test('?tour= opens a packaged tour by its name, or a small one written inline', needsFixtures, () => {
  assert.deepEqual(tv.readTourParam('builtin', tours, rules, known), {name: 'builtin', tour: tours.builtin});
  const unknown = tv.readTourParam('nowhere', tours, rules, known).error;
  assert.deepEqual(unknown, {key: 'err-tour-unknown', values: {name: 'nowhere'}});
  const own = ownTour(3);
  own.stops[2].note = 'Umlaute: Größe, 日本語';
  const inline = tv.encodeInline(own);
  assert.match(inline, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(tv.readTourParam(inline, tours, rules, known), {name: '', tour: own});
  assert.equal(tv.readTourParam(inline.slice(0, -7) + '!!', tours, rules, known).error.key, 'err-tour-inline');
  const bad = ownTour(1);
  bad.stops[0].note = '<script>x</script>';
  assert.equal(tv.readTourParam(tv.encodeInline(bad), tours, rules, known).error.key, 'err-tour-html');
  const long = 'A'.repeat(rules.max_inline_chars + 1);
  assert.equal(tv.readTourParam(long, tours, rules, known).error.key, 'err-tour-link-too-long');
});

test('the panel steps through the stops, held to the tour, and counts them', needsFixtures, () => {
  let panel = tv.openAt(tv.newPanel(), tours.builtin, 'builtin', 2);
  const n = tours.builtin.stops.length;
  assert.equal(tv.counter(panel), `3 / ${n}`);
  panel = tv.moved(panel, -1);
  assert.equal(tv.counter(panel), `2 / ${n}`);
  panel = tv.moved(tv.moved(tv.moved(panel, -1), -1), -1);
  assert.equal(panel.at, 0);
  panel = tv.openAt(panel, tours.builtin, 'builtin', 99);
  assert.equal(tv.counter(panel), `${n} / ${n}`);
  assert.equal(tv.moved(panel, 1).at, n - 1);
  assert.equal(tv.counter(tv.newPanel()), '');
});

test('a stop\'s link is the share link\'s query of its view, the language and the tour', needsFixtures, () => {
  const panel = tv.openAt(tv.newPanel(), tours.builtin, 'builtin', 0);
  const at = 6, stop = tours.builtin.stops[at];
  const url = new URL(tv.stopLink(panel, at, 'ja', HERE, rules));
  assert.equal(url.origin + url.pathname, 'https://example.org/app/');
  assert.equal(url.hash, '');
  for (const [key, value] of Object.entries(stop.view)) assert.equal(url.searchParams.get(key), String(value), key);
  assert.equal(url.searchParams.get('lang'), 'ja');
  assert.equal(url.searchParams.get('tour'), 'builtin');
  assert.equal(url.searchParams.get('tour-stop'), String(at + 1));
  assert.equal(url.searchParams.has('old'), false);
  // a teacher's tour rides inline; its link opens it at its first stop
  const own = tv.openAt(tv.newPanel(), ownTour(2), '', 1);
  const link = new URL(tv.tourLink(own, HERE, rules).link);
  assert.deepEqual(tv.readTourParam(link.searchParams.get('tour'), tours, rules, known).tour, own.tour);
  assert.equal(link.searchParams.get('tour-stop'), '1');
  assert.equal(link.searchParams.get('step'), '0');
  const big = ownTour(rules.max_stops);
  big.stops.forEach((s) => (s.note = 'n'.repeat(400)));
  assert.equal(tv.tourLink(tv.openAt(tv.newPanel(), big, '', 0), HERE, rules).error.key, 'err-tour-link-too-long');
  const bigStop = new URL(tv.stopLink(tv.openAt(tv.newPanel(), big, '', 0), 3, 'en', HERE, rules));
  assert.equal(bigStop.searchParams.has('tour'), false); // too large to ride along: the tab's stored copy serves
});

test('a stop\'s text in the visitor\'s language, a note as it was written, a refusal explained', needsFixtures, () => {
  const stop = tours.builtin.stops[0];
  assert.equal(tv.stopText(stop, words, 'ja'), words.ja[stop.text]);
  assert.notEqual(words.ja[stop.text], words.en[stop.text]);
  assert.equal(tv.stopText({note: '<b>as typed</b>'}, words, 'ja'), '<b>as typed</b>');
  const said = tv.explain({key: 'err-tour-stops', values: {count: 31, limit: 30}}, words, 'de');
  assert.ok(said.startsWith(words.de['tour-refused']));
  assert.ok(said.includes('31') && said.includes('30') && !said.includes('{'));
});

test('a teacher adds the page\'s view, removes the last stop and reorders', needsFixtures, () => {
  const link = 'https://example.org/app/?sentence=I+see+the+house.&model=seed000&strategy=greedy&beam=4' +
    '&branch=1%3A44&step=3&layer=1&head=2&tab=tab-masks&lang=ja';
  let tour = tv.withStop(null, link, 'First', 'plot-masks', rules);
  tour = tv.withStop(tour, link.replace('step=3', 'step=1'), 'Second', 'plot-cross', rules);
  assert.deepEqual(tour.stops[0].view, {
    sentence: 'I see the house.', model: 'seed000', step: 3, layer: 1, head: '2', tab: 'tab-masks', branch: '1:44',
  });
  assert.equal(refusedAs(tour), null);
  const moved = tv.reordered(tour, 1, -1);
  assert.deepEqual(moved.tour.stops.map((s) => s.note), ['Second', 'First']);
  assert.equal(moved.at, 0);
  assert.equal(tv.reordered(tour, 0, -1).at, 0);
  assert.deepEqual(tv.withoutLast(tour).stops.map((s) => s.note), ['First']);
  assert.equal(tour.stops.length, 2); // the functions never change the tour they are handed
});
