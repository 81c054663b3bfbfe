// The tour's panel on the page: the stop's text, Back and Next, the part of the page it points at, and the teacher's
// own tour (add the view shown, remove the last stop, reorder, download, open a file, its link).
//
// What a tour is and how it is checked: tour.js. Opening a stop is going to its link (tour.stopLink), so that the
// page's own reader of its link restores the view; the tour rides along in the link (or in this tab's
// sessionStorage for one too large for a link), and the stop's action, where it has one, is done once the link's
// translation is on the page.
'use strict';

const TOUR = window.transformerViz.tour;
const POINTED = 'tv-tour-point'; // the class of the part of the page the stop points at (common.CSS outlines it)
const OPEN = 'tv-tour-open'; // the class of #tour-panel while it is shown
const PANEL = {config: null, state: TOUR.newPanel(), lang: null};

/** The language the page is shown in: the language radio's last change (tourLanguage), else the link's, else the
 * radio's choice on the page. */
function pageLang(doc = document) {
  const chosen = doc.querySelector('#language input:checked');
  return PANEL.lang || new URLSearchParams(window.location.search).get('lang') || (chosen ? chosen.value : 'en');
}

/** The page's language changed (its radio's change event, the link's own included): the panel said in it. */
function tourLanguage(lang, doc = document) {
  PANEL.lang = lang;
  if (doc.getElementById('tour-panel').classList.contains(OPEN)) show(doc);
}

/** The catalogue keys the page holds words for: the keys a stop's text may name. */
function knownKeys() {
  return new Set(Object.keys(PANEL.config.words.en));
}

/** Once, when the page loads: the panel laid out, and the tour of the page's link (?tour=, &tour-stop=) opened. */
function startTour(config, doc = document) {
  PANEL.config = config;
  layOut(doc);
  const query = new URLSearchParams(window.location.search);
  if (!query.has('tour') && !query.has('tour-stop')) return;
  const at = Math.max(Number(query.get('tour-stop')) - 1 || 0, 0);
  if (query.has('tour')) {
    const read = TOUR.readTourParam(query.get('tour'), config.tours, config.rules, knownKeys());
    if (read.error) return refused(read.error, doc);
    PANEL.state = TOUR.openAt(PANEL.state, read.tour, read.name, at);
  } else {
    const kept = JSON.parse(window.sessionStorage.getItem(TOUR.STORE) || 'null');
    if (!kept) return;
    PANEL.state = TOUR.openAt(PANEL.state, kept.tour, kept.name, at);
  }
  keep();
  show(doc);
  arrive(PANEL.state.tour.stops[PANEL.state.at], doc);
}

/** The Tour button: the built-in tour from its first stop. */
function tourStart() {
  PANEL.state = TOUR.openAt(PANEL.state, PANEL.config.tours.builtin, 'builtin', 0);
  go(0);
}

/** The page goes to stop `at` of the panel's tour, in the page's language. */
function go(at) {
  keep();
  window.location.assign(TOUR.stopLink(PANEL.state, at, pageLang(), window.location.href, PANEL.config.rules));
}

/** The panel's tour kept in this tab across the stops' page loads. */
function keep() {
  window.sessionStorage.setItem(TOUR.STORE, JSON.stringify({tour: PANEL.state.tour, name: PANEL.state.name}));
}

/** A tour that was not opened: the panel shown with why, in the visitor's language. */
function refused(error, doc = document) {
  PANEL.state = Object.assign(TOUR.newPanel(), {error});
  show(doc);
}

/** The panel's elements, made once inside #tour-panel (each with the elem_id a test or a user's script names). */
function layOut(doc) {
  const panel = doc.getElementById('tour-panel');
  panel.setAttribute('role', 'region'); // named by the tour's title (show)
  const make = (tag, id, attributes = {}) => Object.assign(doc.createElement(tag), {id}, attributes);
  const row = (...children) => {
    const div = doc.createElement('div');
    div.className = 'tv-tour-row';
    div.append(...children);
    return div;
  };
  const file = make('input', 'tour-file', {type: 'file', accept: '.json,application/json', hidden: true});
  const point = make('select', 'tour-point');
  for (const id of PANEL.config.rules.elements) {
    point.append(Object.assign(doc.createElement('option'), {value: id, textContent: id}));
  }
  const own = make('details', 'tour-own');
  own.append(
    make('summary', 'tour-own-title'),
    make('textarea', 'tour-note', {rows: 2, maxLength: PANEL.config.rules.max_text_chars}),
    row(make('label', 'tour-point-label', {htmlFor: 'tour-point'}), point),
    row(...['tour-add', 'tour-remove', 'tour-earlier', 'tour-later'].map((id) => make('button', id))),
    row(make('button', 'tour-download'), make('button', 'tour-open'), file),
    row(make('label', 'tour-link-label', {htmlFor: 'tour-link'}), make('input', 'tour-link', {readOnly: true})),
  );
  panel.replaceChildren(
    row(make('strong', 'tour-title'), make('span', 'tour-count'), make('button', 'tour-close', {textContent: '×'})),
    make('p', 'tour-text', {ariaLive: 'polite'}),
    make('p', 'tour-error', {role: 'alert'}),
    row(make('button', 'tour-prev'), make('button', 'tour-next')),
    own,
  );
  const on = (id, fn) => doc.getElementById(id).addEventListener('click', fn);
  on('tour-prev', () => go(PANEL.state.at - 1));
  on('tour-next', () => go(PANEL.state.at + 1));
  on('tour-close', () => close(doc));
  on('tour-add', () => add(doc));
  on('tour-remove', () => edit(TOUR.withoutLast(PANEL.state.tour), PANEL.state.at, doc));
  on('tour-earlier', () => reorder(-1, doc));
  on('tour-later', () => reorder(1, doc));
  on('tour-download', () => download(doc));
  on('tour-open', () => file.click());
  file.addEventListener('change', () => file.files[0] && openFile(file.files[0], doc));
}

/** The panel drawn from its state, in the page's language; every text set as text, never as HTML. */
function show(doc = document) {
  const {state, config} = PANEL, lang = pageLang(doc), el = (id) => doc.getElementById(id);
  const say = (key) => (config.words[lang] || {})[key] || config.words.en[key];
  el('tour-panel').classList.add(OPEN);
  const labels = {
    'tour-prev': 'tour-prev', 'tour-next': 'tour-next', 'tour-own-title': 'tour-own', 'tour-point-label': 'tour-point',
    'tour-add': 'tour-add', 'tour-remove': 'tour-remove', 'tour-earlier': 'tour-earlier', 'tour-later': 'tour-later',
    'tour-download': 'tour-download', 'tour-open': 'tour-open', 'tour-link-label': 'tour-link',
  };
  for (const [id, key] of Object.entries(labels)) el(id).textContent = say(key);
  el('tour-close').setAttribute('aria-label', say('tour-close'));
  el('tour-note').placeholder = say('tour-note');
  const tour = state.tour, stops = tour ? tour.stops : [];
  const title = tour && tour.title;
  const titleKey = tour ? 'tour-own' : 'tour-start';
  el('tour-title').textContent = title ? (config.words.en[title] ? say(title) : title) : say(titleKey);
  el('tour-panel').setAttribute('aria-label', el('tour-title').textContent);
  el('tour-count').textContent = TOUR.counter(state);
  el('tour-text').textContent = stops.length ? TOUR.stopText(stops[state.at], config.words, lang) : say('tour-empty');
  el('tour-error').textContent = state.error ? TOUR.explain(state.error, config.words, lang) : '';
  el('tour-prev').disabled = !stops.length || state.at === 0;
  el('tour-next').disabled = !stops.length || state.at === stops.length - 1;
  const own = Boolean(tour) && !state.name;
  for (const id of ['tour-remove', 'tour-earlier', 'tour-later', 'tour-download']) {
    el(id).disabled = !own || !stops.length;
  }
  const link = own && stops.length ? TOUR.tourLink(state, window.location.href, config.rules) : {link: ''};
  el('tour-link').value = link.link || (link.error ? TOUR.explain(link.error, config.words, lang) : '');
}

/** The panel closed, and the part of the page it pointed at no longer marked. */
function close(doc = document) {
  doc.getElementById('tour-panel').classList.remove(OPEN);
  for (const el of doc.querySelectorAll(`.${POINTED}`)) el.classList.remove(POINTED);
}

/** "Add this view": the share link's view (what the page shows now) with the note, at the end of the teacher's own
 * tour (a new one where the panel shows a packaged tour). */
function add(doc = document) {
  const link = doc.querySelector('#share-link textarea');
  if (!link || !link.value) return;
  const note = doc.getElementById('tour-note').value, point = doc.getElementById('tour-point').value;
  const own = PANEL.state.tour && !PANEL.state.name ? PANEL.state.tour : null;
  const tour = TOUR.withStop(own, link.value, note, point, PANEL.config.rules);
  const checked = TOUR.checkTour(JSON.stringify(tour), PANEL.config.rules, knownKeys());
  if (checked.error) {
    PANEL.state = Object.assign({}, PANEL.state, {error: checked.error});
    show(doc);
    return;
  }
  doc.getElementById('tour-note').value = '';
  edit(tour, tour.stops.length - 1, doc);
}

/** The teacher's own tour changed: shown at stop `at` and kept. */
function edit(tour, at, doc = document) {
  PANEL.state = TOUR.openAt(PANEL.state, tour, '', at);
  keep();
  show(doc);
}

/** The stop shown moved a place earlier (-1) or later (1). */
function reorder(delta, doc = document) {
  const moved = TOUR.reordered(PANEL.state.tour, PANEL.state.at, delta);
  edit(moved.tour, moved.at, doc);
}

/** The teacher's own tour saved as a small JSON file, tour.json. */
function download(doc = document) {
  const blob = new Blob([JSON.stringify(PANEL.state.tour, null, 2)], {type: 'application/json'});
  const link = Object.assign(doc.createElement('a'), {href: URL.createObjectURL(blob), download: 'tour.json'});
  doc.body.append(link);
  link.click();
  link.remove();
}

/** A tour file chosen by the visitor, read here (never sent anywhere) and, once checked, opened at its first stop. */
function openFile(file, doc = document) {
  const reader = new FileReader();
  reader.onload = () => {
    const checked = TOUR.checkTour(String(reader.result), PANEL.config.rules, knownKeys());
    if (checked.error) return refused(checked.error, doc);
    PANEL.state = TOUR.openAt(PANEL.state, checked.tour, '', 0);
    go(0);
  };
  if (file.size > PANEL.config.rules.max_bytes) {
    return refused({key: 'err-tour-too-large', values: {size: file.size, limit: PANEL.config.rules.max_bytes}}, doc);
  }
  reader.readAsText(file);
}

/** A stop's view is on the page (its link opened it): the part it points at marked, and its action done once the
 * link's translation is there. */
async function arrive(stop, doc = document) {
  const target = await waitFor(() => doc.getElementById(stop.point));
  if (target) {
    target.classList.add(POINTED);
    target.scrollIntoView({block: 'center'});
  }
  if (stop.action) await act(stop.action, doc);
}

/** What `find` returns once it is something, trying for up to a minute; null after. */
async function waitFor(find, tries = 600) {
  for (let i = 0; i < tries; i++) {
    const found = find();
    if (found) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
  return null;
}

/** A stop's action done as a visitor would: a head's box ticked in "What if?" and Run pressed; or the two models
 * compared. Each waits for the link's translation (Translate enabled again: page.wire_translation). */
async function act(action, doc = document) {
  await waitFor(() => {
    const button = doc.getElementById('translate');
    return button && !button.disabled;
  });
  if (action.name === 'head-off') {
    const label = `L${action.layer} H${action.head}`;
    const box = await waitFor(() =>
      [...doc.querySelectorAll(`#ablate-${action.kind} label`)].find((el) => el.textContent.trim() === label),
    );
    const input = box && box.querySelector('input');
    if (!input) return;
    if (!input.checked) input.click();
    await window.transformerViz.painted();
    doc.getElementById('whatif-run').click();
  } else if (action.name === 'compare') {
    const run = await waitFor(() => doc.getElementById('compare-run'));
    if (run) run.click();
  }
}

window.transformerViz = Object.assign(window.transformerViz || {}, {startTour, tourStart, tourLanguage});
