// node --test: how the page's plots are drawn and clicked (transformer_viz/js/plots.js, js/page.js).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const plots = require('../../transformer_viz/js/plots.js');
const page = require('../../transformer_viz/js/page.js');
const {fixture, needsFixtures} = require('./fixtures.js');

test('a layout\'s changes name each changed leaf by its path, and what went as null', () => {
  const a = {title: {text: 'step 1'}, shapes: [{x0: 1}], xaxis: {range: [0, 1]}, meta: 1};
  const b = {title: {text: 'step 2'}, shapes: [{x0: 2}], xaxis: {range: [0, 1]}};
  assert.deepEqual(plots.layoutChanges(a, b), {'title.text': 'step 2', shapes: [{x0: 2}], meta: null});
  assert.deepEqual(plots.layoutChanges(b, b), {});
});

test('a click on a point reads what its plot\'s box takes', () => {
  const {head, thumbnail, customdata} = plots.READERS;
  assert.equal(head({customdata: [1, 2]}, 'cross'), 'cross 1 2');
  assert.equal(head({}, 'cross'), null);
  assert.equal(thumbnail({data: {meta: [0, 3]}}), 'layer 0 head 3');
  assert.equal(thumbnail({data: {}}), null);
  assert.equal(customdata({customdata: 0}), '0', 'the first node is a node');
  assert.equal(customdata({customdata: null}), null);
});

test('every reader the page names exists, and every click goes to one box', needsFixtures, () => {
  const {outputs, clicks, click_box: box} = fixture('start.json');
  assert.ok(outputs > 3 && clicks.length >= 5 && typeof box === 'string');
  for (const [plotId, reader] of clicks) {
    assert.equal(typeof plots.READERS[reader], 'function', `${plotId}: ${reader}`);
  }
});

test('a click on a plot is written into the one box after its plot\'s id; a point saying nothing writes nothing', () => {
  const {doc, box} = boxPage('plot-click');
  const handlers = {};
  const plot = {dataset: {}, on: (name, fn) => (handlers[name] = fn)};
  doc.querySelector = ((find) => (sel) => (sel === '#plot-beam .js-plotly-plot' ? plot : find(sel)))(doc.querySelector);
  plots.attachClicks([['plot-beam', 'customdata', null]], 'plot-click', doc);
  plots.attachClicks([['plot-beam', 'customdata', null]], 'plot-click', doc); // attached once
  handlers.plotly_click({points: [{customdata: 7}]});
  assert.match(box.value, /^plot-beam 7 \(\d+\)$/);
  handlers.plotly_click({points: [{customdata: null}]});
  assert.match(box.value, /^plot-beam 7 /, 'unchanged');
  assert.equal(plots.clickText('plot-qkv', '0'), 'plot-qkv 0');
  assert.equal(plots.clickText('plot-qkv', null), null);
});

/** A page holding one hidden box (#id textarea) that records the events sent to it. */
function boxPage(id) {
  const events = [];
  const box = {value: '', dispatchEvent: (e) => events.push(e.type)};
  return {doc: {querySelector: (sel) => (sel.includes(`#${id} `) ? box : null)}, box, events};
}

test('a click is written into its box as typed, and changes even when the same point is clicked again', () => {
  const {doc, box, events} = boxPage('beam-click');
  assert.equal(plots.writeBox('beam-click', '7', doc, 1000), true);
  assert.equal(box.value, '7 (1000)');
  plots.writeBox('beam-click', '7', doc, 1001);
  assert.equal(box.value, '7 (1001)');
  assert.deepEqual(events, ['input', 'input']);
  assert.equal(plots.writeBox('beam-click', null, doc), false, 'a point with nothing to say writes nothing');
  assert.equal(plots.writeBox('other-click', '1', doc), false);
});

test('a click in the token strip gives its target token\'s step, anywhere else nothing', () => {
  const token = {dataset: {step: '4'}};
  const inStrip = {target: {closest: (sel) => (sel === '#token-strip [data-step]' ? token : null)}};
  assert.equal(page.stripStep(inStrip), '4');
  assert.equal(page.stripStep({target: {closest: () => null}}), null);
  assert.equal(page.stripStep({target: {}}), null, 'a text node has no closest');
});

test('a slide look marks the page\'s root, the screen look unmarks it', () => {
  const classes = new Set();
  const doc = {documentElement: {classList: {toggle: (name, on) => (on ? classes.add(name) : classes.delete(name))}}};
  page.markLook(true, doc);
  assert.deepEqual([...classes], ['tv-slide-look']);
  page.markLook(false, doc);
  assert.deepEqual([...classes], []);
});

test('the translation shown is read as the server writes it: the text and the model\'s name', () => {
  const values = {'#translation textarea': {value: 'Ich sehe.'}, '#model input': {value: 'Vaswani 2017 (seed000)'}};
  const doc = {querySelector: (sel) => values[sel] || null};
  assert.equal(page.shownKey(doc), JSON.stringify(['Ich sehe.', 'seed000']));
  values['#model input'].value = 'mine';
  assert.equal(page.shownKey(doc), JSON.stringify(['Ich sehe.', 'mine']));
});

/** Fake IntersectionObserver and MutationObserver: `observers.seen` and `observers.mutated` call the page's
 * callbacks as the browser would. */
function fakeObservers() {
  const observers = {seen: null, mutated: null, watched: [], disconnected: 0};
  global.IntersectionObserver = class {
    constructor(callback) {
      observers.seen = callback;
    }
    observe(el) {
      observers.watched.push(el);
    }
  };
  global.MutationObserver = class {
    constructor(callback) {
      observers.mutated = callback;
    }
    observe() {}
    disconnect() {
      observers.disconnected += 1;
    }
  };
  return observers;
}

function freshQkv() {
  page.PAGE.qkv = {stale: false, tab: null, button: null, watching: null, mounting: null};
}

test('a step moved presses the query view\'s redraw while its tab shows, else once it shows again', () => {
  freshQkv();
  const observers = fakeObservers();
  let clicks = 0;
  const tab = {offsetParent: null}, button = {tagName: 'BUTTON', click: () => (clicks += 1)};
  const doc = {getElementById: (id) => ({'tab-qkv': tab, 'qkv-redraw': button})[id] || null};
  page.qkvStep(doc); // hidden: marked stale, not drawn
  assert.equal(clicks, 0);
  assert.equal(page.PAGE.qkv.stale, true);
  observers.seen([{isIntersecting: true}]); // the tab comes on screen: drawn once
  observers.seen([{isIntersecting: true}]);
  assert.equal(clicks, 1);
  tab.offsetParent = {}; // on screen: every step redraws it
  page.qkvStep(doc);
  assert.equal(clicks, 2);
  tab.offsetParent = null; // hidden again: a step marks it stale, but a step while it shows draws it once, not twice
  page.qkvStep(doc);
  tab.offsetParent = {};
  page.qkvStep(doc);
  observers.seen([{isIntersecting: true}]);
  assert.equal(clicks, 3);
  assert.deepEqual(observers.watched, [tab], 'one watch, however many steps');
  delete global.IntersectionObserver;
  delete global.MutationObserver;
});

test('a step moved before the query view\'s tab was ever opened is drawn when the tab first shows', () => {
  freshQkv();
  const observers = fakeObservers();
  let clicks = 0;
  const mounted = {};
  const doc = {body: {}, getElementById: (id) => mounted[id] || null};
  page.qkvStep(doc); // the translation's own redraw: Gradio has not put the tab on the page yet
  page.qkvStep(doc); // a step typed: still not on the page
  assert.equal(clicks, 0);
  assert.equal(page.PAGE.qkv.stale, true);
  assert.equal(observers.seen, null, 'nothing to watch yet');
  mounted['tab-qkv'] = {offsetParent: {}}; // the visitor opens the tab: its contents come onto the page
  mounted['qkv-redraw'] = {tagName: 'DIV', querySelector: () => ({click: () => (clicks += 1)})};
  observers.mutated([]);
  assert.equal(observers.disconnected, 1, 'the wait for the tab ends once it is there');
  assert.deepEqual(observers.watched, [mounted['tab-qkv']]);
  observers.seen([{isIntersecting: true}]); // the watch's first report: on screen
  assert.equal(clicks, 1);
  assert.equal(page.PAGE.qkv.stale, false);
  delete global.IntersectionObserver;
  delete global.MutationObserver;
});

test('painted waits for the next painted frame, then a task', async () => {
  const order = [];
  global.requestAnimationFrame = (fn) => setTimeout(() => (order.push('frame'), fn()), 1);
  await page.painted().then(() => order.push('done'));
  assert.deepEqual(order, ['frame', 'done']);
  delete global.requestAnimationFrame;
});

test('a file is downloaded once its box shows a link it did not show before', async () => {
  const clicked = [];
  let link = {href: 'http://host/file=old.html', click: () => clicked.push(link.href)};
  const doc = {querySelector: () => link};
  page.PAGE.downloaded['lesson-file'] = link.href; // the last lesson's link, still shown
  let waited = 0;
  const wait = async () => {
    waited += 1;
    if (waited === 3) link = {href: 'http://host/file=new.html', click: () => clicked.push('http://host/file=new.html')};
  };
  assert.equal(await page.downloadFile('lesson-file', doc, wait), true);
  assert.deepEqual(clicked, ['http://host/file=new.html'], 'the new file, not the last one again');
  link = null;
  assert.equal(await page.downloadFile('lesson-file', {querySelector: () => null}, async () => {}), false);
});

test('an example clicked while Translate waits for the page\'s first lesson is translated once it is enabled', async () => {
  const clicked = [];
  const button = {disabled: true, click: () => clicked.push('translate')};
  const doc = {getElementById: (id) => (id === 'translate' ? button : null)};
  let waited = 0;
  const wait = async () => {
    waited += 1;
    if (waited === 3) button.disabled = false; // the link's translation has come
  };
  assert.equal(await page.pressWhenEnabled('translate', doc, wait), true);
  assert.deepEqual(clicked, ['translate'], 'pressed once, after it was enabled');
  assert.equal(waited, 3);
  assert.equal(await page.pressWhenEnabled('translate', doc, wait), true, 'an enabled button at once');
  assert.equal(waited, 3);
  button.disabled = true;
  assert.equal(await page.pressWhenEnabled('translate', doc, async () => {}), false, 'never enabled: not pressed');
  assert.deepEqual(clicked, ['translate', 'translate']);
});

test('the step\'s text alternative is a polite live region, off while Play runs', () => {
  const attributes = {};
  const alt = {setAttribute: (name, value) => (attributes[name] = value)};
  const doc = {getElementById: (id) => (id === 'step-alt' ? alt : null)};
  page.speak(false, doc);
  assert.deepEqual(attributes, {'aria-live': 'polite', 'aria-atomic': 'true'});
  page.speak(true, doc);
  assert.equal(attributes['aria-live'], 'off');
  page.speak(true, {getElementById: () => null}); // a page without it: nothing to do
});

test('a lesson plot in a box narrower than it was drawn for is drawn as the builder draws it for a phone', needsFixtures, () => {
  const {wide, narrow, below} = fixture('narrow.json');
  assert.equal(plots.forWidth(wide, below), wide, 'wide enough: as it came');
  assert.equal(plots.narrowFor(wide, below), false);
  const made = JSON.parse(plots.forWidth(wide, below - 1));
  assert.equal(plots.narrowFor(wide, below - 1), true);
  const {height, meta, datarevision, ...layout} = made.layout;
  assert.deepEqual({data: made.data, layout}, narrow);
  assert.notDeepEqual(JSON.parse(wide).layout.xaxis, made.layout.xaxis, 'its key labels laid out anew');
  assert.equal(plots.narrowFor('{"layout": {}}', 100), null, 'a figure with one drawing');
});

test('a lesson plot whose box turns narrower than it was drawn for (a phone turned) is drawn again for it', needsFixtures, () => {
  const {wide, below} = fixture('narrow.json');
  const titles = [];
  const Plotly = {
    react: (el, data, layout) => titles.push(layout.title.text),
    relayout: (el, update) => titles.push(update['title.text']),
    Plots: {resize: () => {}},
  };
  const box = {id: 'plot-cross', clientWidth: below + 100};
  const el = {data: [{}], layout: {}, _context: {}, clientWidth: box.clientWidth, clientHeight: 300, closest: () => box,
    _fullLayout: {height: 300, width: box.clientWidth, autosize: true}};
  const doc = {getElementById: () => box, querySelector: () => el};
  el.ownerDocument = doc;
  plots.redraw('plot-cross', wide, doc, Plotly);
  assert.equal(box.tvSource.narrow, false);
  assert.equal(plots.fitPlot(el, Plotly), false, 'the same width: nothing to draw');
  box.clientWidth = el.clientWidth = below - 50;
  assert.equal(plots.fitPlot(el, Plotly), true);
  assert.equal(box.tvSource.narrow, true);
  assert.deepEqual(titles, [JSON.parse(wide).layout.title.text, JSON.parse(plots.forWidth(wide, below - 50)).layout.title.text]);
});
