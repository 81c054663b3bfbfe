"""One query, real numbers: the arithmetic of one attention query at the page's step, layer and head; a click on a
key opens q ∘ k_j.

An opened view drawn by this tab's handlers, not a registered plot: its kind radio and encoder query are the tab's
own, so it is drawn for the step shown (about 30 ms) instead of into the page's frames for every step, and only
while the tab is on screen (STEP_JS).
"""

from __future__ import annotations

import gradio as gr

from ... import figures, i18n
from .. import handlers as h
from ..common import Words, plot, slides
from . import Controls, Event, Plots, T, TabGroup, emptied, explain, kind_radio, opened_view, shown, tab

AUTO = "auto"  # the encoder query: the source token the head's cross-attention weighs most at the step
# The step moves in the browser without asking the server (stepping.py). While the tab is on screen, a step move
# presses the hidden redraw button (one request); otherwise the view is marked stale and redrawn once the tab shows.
STEP_JS = "() => transformerViz.qkvStep()"  # js/page.js


def query_choices(sess, lng: str) -> list[tuple[str, str]]:
    """The encoder query menu: the step's strongest source token, then each source token by position."""
    tokens = [] if sess is None else sess.trace.source_tokens
    return [(i18n.text("qkv-query-auto", lng), AUTO)] + [(f"{i}: {piece}", str(i)) for i, piece in enumerate(tokens)]


def chosen(sess, knd: str, query: str | None, t, lay, hd) -> tuple[str, int, int, int]:
    """(kind, layer, head, query row) the view shows: the head mean shows head 0, as the score pipeline does."""
    trace, kind = sess.trace, h.KINDS.get(knd, knd)
    step = h.clamp_step(trace, t)
    layer, head = int(lay), 0 if hd in (None, "mean") else int(hd)
    if kind != "encoder_self":
        return kind, layer, head, step
    if query in (None, "", AUTO):
        return kind, layer, head, figures.strongest_source(trace, layer, head, step)
    return kind, layer, head, min(int(query), len(trace.source_tokens) - 1)


def draw(lng, sess, knd, query, t, lay, hd, pres, key):
    """The query's numbers and, when a key was clicked and this query has it, its q ∘ k; the radio's menu."""
    if sess is None:
        return gr.skip(), gr.skip(), gr.skip()
    kind, layer, head, row = chosen(sess, knd, query, t, lay, hd)
    with figures.language(lng):
        fig = figures.qkv_figure(sess.trace, kind, layer, head, row, presentation=slides(pres))
        n_keys = len(sess.trace.decoder_input_tokens if kind == "decoder_self" else sess.trace.source_tokens)
        product = None
        if key is not None and key < n_keys:
            product = figures.qk_product(sess.trace, kind, layer, head, row, key, presentation=slides(pres))
    menu = gr.update(visible=kind == "encoder_self")
    return shown(plot(fig, pres)), shown(plot(product, pres)), menu


def key_clicked(clicked, lng, sess, knd, query, t, lay, hd, pres, _key):
    """A click on a key of the view ("plot-qkv 3 (1732…)"): its q ∘ k drawn, and the key kept; a click on another
    plot changes nothing."""
    said = h.clicked_on(clicked, "plot-qkv")
    if said is None:
        return [gr.skip()] * 4
    key = int(h.parse_click(said, 1)[0])
    return [*draw(lng, sess, knd, query, t, lay, hd, pres, key), key]


def build(words: Words, controls: Controls, plots: Plots) -> TabGroup:
    """The "One query in numbers" tab, laid out and wired."""
    with tab(words, "tab-qkv"):
        explain(words, "qkv")
        with gr.Row():
            kind = kind_radio(words, "qkv-kind", "cross")
            query = gr.Dropdown(
                query_choices(None, i18n.DEFAULT), value=AUTO, label=T("qkv-query"), elem_id="qkv-query"
            )
            words(query, "label", "qkv-query")
        view = opened_view("plot-qkv")
        product = opened_view("plot-qkv-key")
        step_moved = gr.Button("", elem_id="qkv-redraw", elem_classes=["tv-hidden"])  # pressed by STEP_JS
        key = gr.State(None)  # the key clicked last, while its view is open (in the tab: see tabs.attention)

    c = controls
    inputs = [c.lang, c.session, kind, query, c.step, c.layer, c.head, c.presentation, key]
    redraw = Event(draw, inputs, [view, product, query])
    redraw.on(kind.input, query.input, c.layer.input, c.head.input, c.presentation.input)
    redraw.on(step_moved.click, trigger_mode="always_last")
    c.step.change(None, None, None, js=STEP_JS, api_visibility="private")  # in the browser: no request
    c.click.change(key_clicked, [c.click, *inputs], [view, product, query, key], api_visibility="private")

    def fresh(lng, sess):
        """A new translation (or branch, or model): its own encoder menu, on the step's strongest source token."""
        if sess is None:
            return gr.skip()
        return gr.update(choices=query_choices(sess, lng), value=AUTO)

    def relabel(lng, sess, knd, qry, *rest):
        """A new language: the menu's first choice and both views in it."""
        if sess is None:
            return [gr.skip()] * 3
        figs = draw(lng, sess, knd, qry, *rest)
        return [figs[0], figs[1], gr.update(choices=query_choices(sess, lng), value=qry)]

    # A new session (a translation, a branch, a model) gives the menu its tokens, empties what a click on the old
    # view chose and draws the view anew through the step's own path (STEP_JS: the redraw button, one pending at a
    # time, then the last). Drawn in the new-session events themselves, a view read the step when they started and
    # could land after a step the visitor chose meanwhile. Not on the session State's change: attribution writes
    # its result into the same session, and the key a visitor clicked here must stay open through that.
    menu = Event(fresh, [c.lang, c.session], [query])
    closed = emptied(c.session, {key: None})
    pressed = Event(None, [], [], js=STEP_JS)  # after the menu: the redraw reads its new value
    language = Event(relabel, inputs, [view, product, query])
    return TabGroup(plots={}, on_new_session=[closed, menu, pressed], on_language=[language])
