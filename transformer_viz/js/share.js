// The share link: the page's whole address, with the lesson the page shows.
//
// The server writes the query of what it knows (sentence, model, decoding options, the forced tokens of a
// branch: share.py); the browser knows the rest (the step, layer and head it draws, the open tab, the
// language) and sets those parameters. A link is rewritten in place, so a link made before stays a link.
'use strict';

/** The address that reopens the page on `view` ({step, layer, head, tab, lang}): `link` (the server's query, or
 * a whole link made before) read against the page's address `here`, with each of the view's parameters set
 * (or removed where it has no value). The page's own hash is dropped. */
function shareLink(link, view, here) {
  if (!link) return '';
  const url = new URL(link, here);
  for (const [key, value] of Object.entries(view)) {
    if (value === null || value === undefined || value === '') url.searchParams.delete(key);
    else url.searchParams.set(key, String(value));
  }
  url.hash = '';
  return url.href;
}

/** The id of the innermost open tab under `root` (a tab group's view, else the group): of the tab buttons
 * shown as selected, the last one on screen. Gradio names a tab's button after its elem_id + '-button'. */
function openTab(root) {
  const shown = [...root.querySelectorAll('[role="tab"][aria-selected="true"]')].filter(
    (button) => button.id && button.id.endsWith('-button') && button.getClientRects().length > 0,
  );
  return shown.length ? shown[shown.length - 1].id.slice(0, -'-button'.length) : '';
}

/** The link of what the page shows now (a step slider may hold a fraction while it is dragged). */
function pageShareLink(link, step, layer, head, lang) {
  const view = {step: Math.round(Number(step)), layer: Math.round(Number(layer)), head, tab: openTab(document), lang};
  return shareLink(link, view, window.location.href);
}

/** Puts `link` on the clipboard; true when it got there. Without the Clipboard API (a page not served over
 * https or from this machine) the text of the share box is selected and copied the old way. */
async function copyLink(link, box = document.querySelector('#share-link textarea')) {
  try {
    await navigator.clipboard.writeText(link);
    return true;
  } catch (error) {
    if (!box) return false;
    box.select();
    return document.execCommand('copy');
  }
}

if (typeof module !== 'undefined') module.exports = {shareLink, openTab};
else window.transformerViz = Object.assign(window.transformerViz || {}, {pageShareLink, copyLink});
