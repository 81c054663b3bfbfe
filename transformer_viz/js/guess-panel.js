// Guess first on the page and in the lesson file: its switch, choices and score drawn, and its clicks answered.
//
// guess.js decides; this draws into the switch and the panel (figures/guess.py: guess_switch, GUESS_PANEL) and puts
// the class guess.HIDDEN_CLASS on the page's root while the step's answer is hidden (and ON_CLASS while guess first
// is on), under which the page's CSS hides the rest and shows the panel (GUESS_CSS). The
// page (page.js) and the lesson file (lesson-file.js) each hand it their side: data() the shown frames' guess data,
// id() the translation shown, view() {layer, head, units}, redraw() the lesson's plots drawn again at the step,
// playing() and pause().
'use strict';

const {guess} = typeof module !== 'undefined' ? {guess: require('./guess.js')} : window.transformerViz;
const ON_CLASS = 'tv-guess-on'; // on the page's root while guess first is on: its panel shows

/** Guess first mounted on `doc` with the page's `side`: paint(t) after each step, figure(kind, json, t) for each
 * lesson plot drawn, and what the keys do (toggle, answer, choices). */
function mountGuess(side, doc = document) {
  const g = guess.newGuess(), el = (id) => doc.getElementById(id);
  let step = 0, drawn = null; // the step shown, and what the panel was last drawn from
  const data = () => {
    const d = side.data();
    if (d) guess.follow(g, side.id());
    return d;
  };

  /** The panel and the page's root at step t, from the state. */
  function paint(t) {
    step = t;
    const d = data(), hidden = guess.hides(g, d, t), root = doc.documentElement.classList;
    root.toggle(guess.HIDDEN_CLASS, hidden);
    root.toggle(ON_CLASS, g.on);
    if (hidden && side.playing()) setTimeout(() => side.playing() && side.pause(), 0); // Play waits for the class
    if (!d || !el('guess-first')) return;
    // a step with guess first off (or a repaint of the same step) leaves the panel as it is: stepping stays as fast
    const what = JSON.stringify([g.on && t, g.id, g.right, g.asked, g.revealed.get(t), g.rows.get(t), d.words]);
    if (what === drawn && el('guess-first').checked === g.on) return;
    drawn = what;
    const words = d.words;
    el('guess-first').checked = g.on;
    el('guess-first-label').textContent = words['guess-first'];
    el('guess-score').textContent = g.on ? guess.scoreText(g, words['guess-score']) : '';
    el('guess-ask').textContent = hidden ? `${words['guess-ask']} ${words['guess-ask-head']}` : '';
    const box = el('guess-choices'), said = [];
    box.replaceChildren();
    if (g.on && guess.forced(d, t)) said.push(words['guess-forced']);
    else if (g.on) {
      const picked = g.revealed.get(t);
      guess.choices(d, g.id, t).forEach((choice, index) => {
        const button = doc.createElement('button');
        button.type = 'button';
        button.className = 'tv-choice';
        button.dataset.choice = String(index);
        const letter = doc.createElement('b');
        letter.textContent = choice.letter;
        button.append(letter, doc.createTextNode(choice.piece));
        if (picked) {
          button.disabled = true;
          if (choice.right) button.classList.add('tv-right');
          else if (picked.index === index) button.classList.add('tv-wrong');
        }
        box.append(button);
      });
      if (picked) said.push(words[picked.right ? 'guess-right' : 'guess-wrong']);
      const row = g.rows.get(t);
      if (row) said.push(words[row.right ? 'guess-head-right' : 'guess-head-wrong']);
    }
    el('guess-said').textContent = said.join(' ');
  }

  /** A lesson plot's figure JSON as shown at step t: hidden (guess.hideFigure) while the step is. */
  function figure(kind, json, t) {
    const d = data();
    if (!kind || !json || !guess.hides(g, d, t)) return json;
    return guess.hideFigure(json, kind, g, d, side.view(), t);
  }

  /** The step painted again after a reveal: the lesson's plots drawn, then the panel. */
  const again = () => {
    side.redraw();
    paint(step);
  };
  const api = {
    state: g,
    paint,
    figure,
    toggle() {
      g.on = !g.on;
      again();
    },
    answer(index) {
      const d = data();
      if (d && guess.answer(g, d, step, index)) again();
    },
    choices() {
      const d = data();
      return guess.hides(g, d, step) ? guess.choices(d, g.id, step).length : 0;
    },
  };
  doc.addEventListener('click', (event) => {
    const target = event.target && event.target.closest ? event.target : null;
    const choice = target && target.closest('#guess-choices [data-choice]');
    if (choice) return api.answer(Number(choice.dataset.choice));
    const key = target && target.closest('#token-strip [data-key]');
    const d = data();
    if (key && d && guess.guessKey(g, d, side.view(), step, key.dataset.key)) again();
  });
  doc.addEventListener('change', (event) => {
    if (event.target && event.target.id === 'guess-first' && event.target.checked !== g.on) api.toggle();
  });
  return api;
}

if (typeof module !== 'undefined') module.exports = {mountGuess};
else window.transformerViz = Object.assign(window.transformerViz || {}, {guessPanel: {mountGuess}});
