// The page's plots as Plotly draws them: a figure redrawn in place, plots refitted to their boxes, clicks on points.
'use strict';

const {applyChange} =
  typeof module !== 'undefined' ? require('./stepping.js') : window.transformerViz.stepping;

/** What changed from layout a to layout b, as Plotly.relayout takes it: {"path.to.key": new value} (null where a
 * key goes). Arrays and typed arrays (Plotly's {bdata}) are compared whole. */
function layoutChanges(a, b, path = '', into = {}) {
  const leaf = (v) => v === null || typeof v !== 'object' || Array.isArray(v) || 'bdata' in v;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[k], y = b[k];
    if (x !== undefined && y !== undefined && !leaf(x) && !leaf(y)) layoutChanges(x, y, path + k + '.', into);
    else if (JSON.stringify(x) !== JSON.stringify(y)) into[path + k] = y === undefined ? null : y;
  }
  return into;
}

/** A figure's JSON text as drawn in a box `width` pixels wide: a figure drawn for a wider box than that carries what
 * makes it the figure drawn for a phone's (layout.meta.narrow: figures/narrow.py), made here; any other as it is.
 * Where the narrow drawing's data differ (the hover's names of unlabelled rows), so does its datarevision. */
function forWidth(text, width) {
  const fig = JSON.parse(text), narrow = fig.layout.meta && fig.layout.meta.narrow;
  if (!narrow || !(width < narrow.below)) return text;
  applyChange(fig, narrow.change);
  if (narrow.change.data) fig.layout.datarevision = `${fig.layout.datarevision || ''}:narrow`;
  return JSON.stringify(fig);
}

/** Whether a plot drawn from `text` in a box `width` pixels wide is drawn narrow (forWidth), or null where its
 * figure has no narrow drawing. */
function narrowFor(text, width) {
  const meta = JSON.parse(text).layout.meta, narrow = meta && meta.narrow;
  return narrow ? width < narrow.below : null;
}

/** A figure's JSON text as the page draws it: Gradio's plot component lays it out responsive, its margins growing. */
function prepared(text) {
  const fig = JSON.parse(text);
  fig.layout.autosize = true;
  fig.layout.margin = Object.assign(fig.layout.margin || {}, {autoexpand: true});
  return fig;
}

/** The plot `id` redrawn with figure `json`, in place, with Plotly's own API (as Gradio's plot component draws it),
 * so that only what changed is drawn again:
 * - Plotly.relayout of the layout's changes where the data are the same (their datarevision): a step of
 *   cross-attention, the masks or the pipeline moves an outline and a title (measured: 5 ms, not 50);
 * - else Plotly.react with the drawn plot's config (the download's name changes every step, and a new config makes
 *   react draw everything anew), unless the download's format changed (a new look): then the new config, so that
 *   the camera button's tooltip names the format it now downloads.
 * The download's name, format and scale are then set where the camera button reads them. A plot not drawn yet (its
 * tab never opened: Gradio mounts a tab's plots when it first opens) gets its Gradio value, which Gradio draws.
 * Either is the figure for the width of the plot's box (forWidth). */
function redraw(id, json, doc = document, Plotly = window.Plotly) {
  const box = doc.getElementById(id), width = box ? box.clientWidth : Infinity, source = json;
  json = forWidth(json, width);
  // what it is drawn from, and whether narrow: fitPlot draws it again where its box's width asks for the other
  if (box) box.tvSource = {source, narrow: narrowFor(source, width)};
  const el = doc.querySelector('#' + id + ' .js-plotly-plot');
  if (!el || !el.data || !el.layout || !el._context || !Plotly) return {type: 'plotly', plot: json};
  const fig = prepared(json), drawn = el.tvDrawn, images = el._context.toImageButtonOptions || {};
  const download = Object.assign({}, fig.config.toImageButtonOptions);
  const sameFormat = images.format === download.format;
  if (drawn && drawn.layout === el.layout && drawn.revision === fig.layout.datarevision && sameFormat) {
    const {meta, ...layout} = fig.layout;
    const {meta: _, ...before} = prepared(drawn.json).layout;
    const update = layoutChanges(before, layout);
    if (Object.keys(update).length) Plotly.relayout(el, update);
    el.layout.meta = meta;
  } else {
    const config = Object.assign(fig.config, {responsive: true});
    if (sameFormat) config.toImageButtonOptions = images;
    Plotly.react(el, fig.data, fig.layout, config);
  }
  el._context.toImageButtonOptions = Object.assign(el._context.toImageButtonOptions || {}, download);
  el.tvDrawn = {json, layout: el.layout, revision: fig.layout.datarevision};
  return {__type__: 'update'};
}

const waiting = new Map(); // plots in tabs to draw after the page has shown them: id → figure JSON

/** How a step plot is drawn (stepping.paint's drawPlot): the lesson's at once; those in tabs one frame later, all
 * in one go and at the last step asked for. A plot not drawn yet gets its Gradio value, now. */
function drawPlot(id, json, lesson, doc = document) {
  const el = doc.querySelector('#' + id + ' .js-plotly-plot');
  if (lesson || !el || !el.data) {
    const value = redraw(id, json, doc);
    if (el && el.data) requestAnimationFrame(() => fitPlot(el));
    return value;
  }
  const first = waiting.size === 0;
  waiting.set(id, json);
  if (first)
    requestAnimationFrame(() =>
      setTimeout(() => {
        const batch = [...waiting];
        waiting.clear();
        for (const [plot, figure] of batch) redraw(plot, figure, doc);
      }),
    );
  return {__type__: 'update'};
}

/** A plot laid out again to its element's size where it was drawn at another (true then): one with no height of its
 * own (a fitted plot) to the element's height, and every plot to its width. A fitted plot that Gradio drew is not
 * laid out to its element by Plotly (no autosize): it is told to now. One whose box became narrow enough for its
 * phone's drawing, or no longer is, is drawn again from its figure (redraw: forWidth). */
function fitPlot(el, Plotly = window.Plotly) {
  const full = el && el._fullLayout;
  if (!full || !Plotly || el.clientWidth === 0) return false;
  const box = el.closest('[id]'), drawn = box && box.tvSource; // the plot's box: its gr.Plot, named by its id
  if (drawn && drawn.narrow !== null && narrowFor(drawn.source, box.clientWidth) !== drawn.narrow) {
    redraw(box.id, drawn.source, el.ownerDocument, Plotly);
    return true;
  }
  const taller = !el.layout.height && Math.abs(full.height - el.clientHeight) > 1;
  if (taller && !full.autosize) Plotly.relayout(el, {autosize: true});
  else if (full.autosize && (taller || Math.abs(full.width - el.clientWidth) > 1)) Plotly.Plots.resize(el);
  else return false;
  return true;
}

/** Each plot refitted when its box gets a width (or, for a fitted plot with no height of its own, a height) it was
 * not drawn at: a plot redrawn while its tab was hidden is laid out at Plotly's default 700 px, and Gradio does not
 * draw it again when the tab opens. Figures with a size of their own are left. */
function refitPlots(doc = document) {
  const fitted = new ResizeObserver((entries) => entries.forEach(({target}) => fitPlot(target)));
  return () =>
    doc.querySelectorAll('.js-plotly-plot').forEach((el) => {
      if (!el.dataset.tvFit) {
        el.dataset.tvFit = '1';
        fitted.observe(el);
      }
    });
}

// What a click on a plot's point writes into its hidden box (registry.Click names the reader and its argument).
const READERS = {
  /** The point's customdata as text (a beam node's number, a key's index). */
  customdata: (p) => (p.customdata === undefined || p.customdata === null ? null : `${p.customdata}`),
  /** A head-summary cell: "kind layer head". */
  head: (p, kind) => (p.customdata ? `${kind} ${p.customdata[0]} ${p.customdata[1]}` : null),
  /** An overview thumbnail: "layer L head H". */
  thumbnail: (p) => (p.data.meta ? `layer ${p.data.meta[0]} head ${p.data.meta[1]}` : null),
};

/** `value` written into the hidden box `boxId`, as typed: it changes even when the same point is clicked again,
 * and its input event reaches the server. */
function writeBox(boxId, value, doc = document, now = Date.now()) {
  const box = doc.querySelector(`#${boxId} textarea, #${boxId} input`);
  if (value === null || value === undefined || !box) return false;
  box.value = `${value} (${now})`;
  box.dispatchEvent(new Event('input', {bubbles: true}));
  return true;
}

/** What a click on `plotId` says, after the plot's id ("plot-beam 7"), for the one click box; null where the point
 * says nothing. */
function clickText(plotId, said) {
  return said === null || said === undefined ? null : `${plotId} ${said}`;
}

/** Plotly's click on each plot of `clicks` ([plot id, reader, argument]) written into the one box `boxId` after the
 * plot's id, attached once to each plot as it appears. */
function attachClicks(clicks, boxId, doc = document) {
  for (const [plotId, reader, arg] of clicks) {
    const plot = doc.querySelector(`#${plotId} .js-plotly-plot`);
    if (!plot || plot.dataset.tvClick || !plot.on) continue;
    plot.dataset.tvClick = '1';
    plot.on('plotly_click', (event) => writeBox(boxId, clickText(plotId, READERS[reader](event.points[0], arg)), doc));
  }
}

const api = {
  ...{layoutChanges, forWidth, narrowFor, redraw, drawPlot, fitPlot, refitPlots},
  ...{READERS, writeBox, clickText, attachClicks},
};
if (typeof module !== 'undefined') module.exports = api;
else window.transformerViz = Object.assign(window.transformerViz || {}, {plots: api});
