// node --test: the share link's address (transformer_viz/js/share.js).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {shareLink, openTab} = require('../../transformer_viz/js/share.js');

const HERE = 'https://example.org/app/?sentence=old#views';
const QUERY = '?sentence=The+dog+sleeps.&model=seed000&branch=3%3A1234';

test('the server query becomes the whole address, with the view set', () => {
  const link = shareLink(QUERY, {step: 3, layer: 2, head: '1', tab: 'view-heads', lang: 'ja'}, HERE);
  const url = new URL(link);
  assert.equal(url.origin + url.pathname, 'https://example.org/app/');
  assert.equal(url.hash, '');
  assert.equal(url.searchParams.get('sentence'), 'The dog sleeps.');
  assert.equal(url.searchParams.get('branch'), '3:1234');
  assert.deepEqual(
    ['step', 'layer', 'head', 'tab', 'lang'].map((k) => url.searchParams.get(k)),
    ['3', '2', '1', 'view-heads', 'ja'],
  );
});

test('a link made before is rewritten, not extended', () => {
  const first = shareLink(QUERY, {step: 3, head: 'mean'}, HERE);
  const again = shareLink(first, {step: 5, head: '0'}, 'http://elsewhere.test/');
  const url = new URL(again);
  assert.equal(url.origin, 'https://example.org');  // the link's own address is kept
  assert.deepEqual(url.searchParams.getAll('step'), ['5']);
  assert.deepEqual(url.searchParams.getAll('head'), ['0']);
  assert.equal(url.searchParams.get('model'), 'seed000');
});

test('a view without a value leaves its parameter out', () => {
  const url = new URL(shareLink(QUERY + '&tab=old&lang=ko', {tab: '', lang: null, step: 0}, HERE));
  assert.equal(url.searchParams.has('tab'), false);
  assert.equal(url.searchParams.has('lang'), false);
  assert.equal(url.searchParams.get('step'), '0');
});

test('no query yet, no link', () => {
  assert.equal(shareLink('', {step: 2}, HERE), '');
});

test('the open tab is the last selected tab button on screen', () => {
  const button = (id, shown) => ({id, getClientRects: () => (shown ? [{}] : [])});
  const root = {
    querySelectorAll: () => [button('group-beyond-button', true), button('view-qkv-button', true),
      button('view-cross-button', false), button('overflow', true)],
  };
  assert.equal(openTab(root), 'view-qkv');
  assert.equal(openTab({querySelectorAll: () => []}), '');
});
