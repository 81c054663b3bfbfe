"""The analysis views: what the heads do (click a cell to open it), rollout and words, the beam tree (click a node)."""

from __future__ import annotations

import gradio as gr

from ... import figures
from .. import handlers as h
from ..common import PLOT_ROW, Words, localised_errors, plot, slides
from ..registry import CLICKABLE
from . import Controls, Event, Plots, TabGroup, emptied, explain, opened_view, redrawn, shown, tab


def open_summary_head(sess, choice, pres, lng, unt):
    """A click on a head-summary cell ('kind layer head') opens that head large, in the page's units."""
    if sess is None or not choice:
        return gr.skip()
    knd, lay, hd = h.parse_click(choice, 3)
    with figures.language(lng):
        fig = figures.attention_head(sess.trace, knd, int(lay), int(hd), presentation=slides(pres), units=unt)
    return shown(plot(fig, pres))


# The head summaries' plots (the registry's, in its order): a click on a cell of any of them opens that head.
HEAD_SUMMARIES = tuple(plot.id for plot in CLICKABLE if plot.click.reader == "head")


def summary_clicked(sess, clicked, pres, lng, unt):
    """A click on one of the head-summary plots: that head opened large, and its choice kept to redraw it later."""
    choice = h.clicked_on(clicked, *HEAD_SUMMARIES)
    if choice is None:
        return gr.skip(), gr.skip()
    return open_summary_head(sess, choice, pres, lng, unt), choice


def beam_clicked(lng, sess, clicked, lay, pres, unt):
    """A click on the beam tree: its node opened, and its choice kept to redraw it later."""
    choice = h.clicked_on(clicked, "plot-beam")
    if choice is None:
        return gr.skip(), gr.skip(), gr.skip()
    return *open_beam_node(lng, sess, choice, lay, pres, unt), choice


@localised_errors
def open_beam_node(lng, sess, choice, lay, pres, unt):
    """A click on a beam-tree node: the attention when that node's token was chosen, in the page's units."""
    if sess is None or not choice:
        return gr.skip(), gr.skip()
    node = int(h.parse_click(choice, 1)[0])
    trace, t = h.beam_node_trace(sess, node)
    with figures.language(lng):
        fig = figures.attention_grid(trace, "cross", int(lay), step=t, presentation=slides(pres), units=unt)
    return h.beam_node_info(trace, node, t, lng), shown(plot(fig, pres))


def build(words: Words, controls: Controls) -> TabGroup:
    """The "Analysis" tab group, laid out and wired."""
    plots = Plots()
    with tab(words, "group-analysis"), gr.Tabs(elem_id="views-analysis"):
        with tab(words, "tab-heads"):
            explain(words, "heads")
            with gr.Row(elem_classes=[PLOT_ROW]):
                for plot_id in HEAD_SUMMARIES:
                    plots.place(plot_id)
            heads_open = opened_view("plot-heads-open")
            heads_choice = gr.State("")  # the cell clicked last: "kind layer head" (in the tab: see attention.py)
        with tab(words, "tab-rollout"):
            explain(words, "rollout")
            plots.place("plot-rollout")
            plots.place("plot-rollout-words")
            explain(words, "words")
            plots.place("plot-words-cross")
        with tab(words, "tab-beam"):
            explain(words, "beam")
            plots.place("plot-beam")
            beam_info = gr.Markdown(elem_id="beam-node-info")
            beam_node = opened_view("plot-beam-node")
            beam_choice = gr.State("")  # the node clicked last: its number

    s, lang, look, units = controls.session, controls.lang, controls.presentation, controls.units
    click = controls.click
    click.change(summary_clicked, [s, click, look, lang, units], [heads_open, heads_choice], api_visibility="private")
    beam_in = [lang, s, click, controls.layer, look, units]
    click.change(beam_clicked, beam_in, [beam_info, beam_node, beam_choice], api_visibility="private")

    def reopen(lng, sess, summary_choice, beam_choice, lay, pres, unt):
        """The head-summary cell and the beam node opened by clicks, redrawn in a new language, look, units or layer."""
        return [
            redrawn(open_summary_head, sess, summary_choice, pres, lng, unt),
            *redrawn(open_beam_node, lng, sess, beam_choice, lay, pres, unt, width=2),
        ]

    reopen_in = [lang, s, heads_choice, beam_choice, controls.layer, look, units]
    reopen_event = Event(reopen, reopen_in, [heads_open, beam_info, beam_node])
    reopen_event.on(controls.layer.input, look.input, units.input)
    # a new translation: the views opened by clicks on the old one no longer apply
    closed = {heads_choice: "", heads_open: shown(None), beam_choice: "", beam_info: "", beam_node: shown(None)}
    closed = emptied(s, closed)
    return TabGroup(plots=plots, on_new_session=[closed], on_language=[reopen_event])
