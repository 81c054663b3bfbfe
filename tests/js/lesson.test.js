// node --test: the lesson's maps fill the first screen (transformer_viz/js/lesson.js).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {lessonHeight, fitLesson, LESSON_MIN_PX, LESSON_MAX_PX} = require('../../transformer_viz/js/lesson.js');

test('the boxes take the screen left under their row, within bounds', () => {
  assert.equal(lessonHeight(353, 720), 720 - 353 - 12);
  assert.equal(lessonHeight(392, 720), 720 - 392 - 12); // a notice above moved them down: they shrink
  assert.equal(lessonHeight(600, 720), LESSON_MIN_PX); // too little room: the page scrolls instead
  assert.equal(lessonHeight(353, 2160), LESSON_MAX_PX);
});

function fakePage(top, scrollY, innerHeight) {
  const props = {};
  const doc = {
    getElementById: (id) => (id === 'lesson-maps' ? {getBoundingClientRect: () => ({top})} : null),
    documentElement: {style: {getPropertyValue: (k) => props[k] || '', setProperty: (k, v) => (props[k] = v)}},
  };
  return {doc, win: {scrollY, innerHeight}, props};
}

test('the height is set from the row\'s place on the page, not on the screen, and only when it changes', () => {
  const {doc, win, props} = fakePage(100, 253, 720); // scrolled down: the row is 353 px from the page's top
  assert.equal(fitLesson(doc, win), true);
  assert.equal(props['--tv-lesson-height'], '355px');
  assert.equal(fitLesson(doc, win), false); // the same height: nothing to change, so no layout loop
});

test('a page without the lesson is left alone', () => {
  const doc = {getElementById: () => null};
  assert.equal(fitLesson(doc, {scrollY: 0, innerHeight: 720}), false);
});
