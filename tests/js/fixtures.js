// The server's frames, variants and changes, written by tests/test_js.py for the browser code's tests.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const FOLDER = process.env.TRANSFORMER_VIZ_JS_FIXTURES;

/** The fixture `name` (a fresh copy each time: the code under test changes what it is handed), or null without the
 * fixtures (node --test run alone: the tests that need them skip). */
function fixture(name) {
  if (!FOLDER) return null;
  return JSON.parse(fs.readFileSync(path.join(FOLDER, name), 'utf-8'));
}

/** Options for a test that needs the fixtures: skipped, saying why, where they are missing. */
const needsFixtures = FOLDER ? {} : {skip: 'no fixtures: run through pytest tests/test_js.py'};

module.exports = {fixture, needsFixtures};
