// The lesson's maps fill the first screen: from where their row starts down to the screen's bottom edge.
//
// Whatever comes above them (a notice under the sentence, a strip of two lines, a long sentence) moves their
// top; the boxes of the main map and the top-k chart then take the height that is left, within bounds, so that
// on a projector's 1280×720 both are whole on the first screen. The page's CSS reads the height from the
// --tv-lesson-height property of the document; Plotly redraws a fitted plot when its box changes size.
'use strict';

const LESSON_MIN_PX = 300; // below this a map's labels no longer fit: the page scrolls instead
const LESSON_MAX_PX = 820; // a tall screen shows the maps at about their own size, not stretched further
const LESSON_GAP_PX = 12; // room under the boxes, above the screen's edge

/** The boxes' height for a row starting `top` pixels from the page's top on a screen `viewport` pixels tall. */
function lessonHeight(top, viewport) {
  return Math.round(Math.max(LESSON_MIN_PX, Math.min(LESSON_MAX_PX, viewport - top - LESSON_GAP_PX)));
}

/** Sets --tv-lesson-height from where the lesson's maps start on the page; true when it changed. */
function fitLesson(doc = document, win = window) {
  const row = doc.getElementById('lesson-maps');
  if (!row) return false;
  const value = `${lessonHeight(row.getBoundingClientRect().top + win.scrollY, win.innerHeight)}px`;
  const root = doc.documentElement.style;
  if (root.getPropertyValue('--tv-lesson-height') === value) return false;
  root.setProperty('--tv-lesson-height', value);
  // the plots follow their boxes (a ResizeObserver in plots.js); one drawn while the boxes changed is fitted again
  const fit = win.transformerViz && win.transformerViz.plots && win.transformerViz.plots.fitPlot;
  if (fit) win.requestAnimationFrame(() => row.querySelectorAll('.js-plotly-plot').forEach((el) => fit(el)));
  return true;
}

/** Fit the lesson now and whenever the page's layout or the window changes. */
function watchLesson() {
  const refit = () => fitLesson();
  new ResizeObserver(refit).observe(document.body);
  window.addEventListener('resize', refit);
  refit();
}

if (typeof module !== 'undefined') module.exports = {lessonHeight, fitLesson, LESSON_MIN_PX, LESSON_MAX_PX};
else window.transformerViz = Object.assign(window.transformerViz || {}, {watchLesson});
