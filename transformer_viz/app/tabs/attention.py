"""The attention maps: the alignment, decoder and encoder self-attention, and the overview of every head.

The step's cross-attention map sits on the page itself (header.lay_out_steps), where the lesson is.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ... import figures
from .. import handlers as h
from ..common import Words, plot, slides
from . import (
    Controls,
    Event,
    Plots,
    T,
    TabGroup,
    emptied,
    explain,
    kind_radio,
    opened_view,
    redrawn,
    shown,
    tab,
)


@dataclass(kw_only=True)
class AttentionGroup(TabGroup):
    kind: gr.Radio  # which attention the overview shows; the page redraws on its change
    pick: gr.Dropdown  # "layer L head H" to open large; a new translation fills it with its model's heads


def open_head(sess, choice, knd, pres, lng, unt):
    """The head chosen in the menu (a thumbnail's click chooses it there), large, in the page's units; and the
    choice, to redraw it later."""
    if sess is None or not choice:
        return gr.skip(), gr.skip()
    _, lay, _, hd = choice.split()[:4]  # "layer L head H"
    with figures.language(lng):
        fig = figures.attention_head(sess.trace, h.KINDS[knd], int(lay), int(hd), presentation=slides(pres), units=unt)
    return shown(plot(fig, pres)), choice


def menu_choice(clicked: str):
    """The menu's "layer L head H" for a click on a thumbnail ("plot-overview layer L head H (time)"); the menu then
    opens it. A click on another plot changes nothing."""
    said = h.clicked_on(clicked, "plot-overview")
    if said is None:
        return gr.skip()
    _, lay, _, hd = h.parse_click(said, 4)
    return f"layer {lay} head {hd}"


def build(words: Words, controls: Controls) -> AttentionGroup:
    """The "Attention maps" tab group, laid out and wired."""
    plots = Plots()
    with tab(words, "group-attention"), gr.Tabs(elem_id="views-attention"):
        with tab(words, "tab-cross"):
            explain(words, "cross")  # the cross-attention map itself is the page's, under the step controls
            plots.place("plot-alignment")
        with tab(words, "tab-dec-self"):
            explain(words, "dec-self")
            plots.place("plot-dec-self")
        with tab(words, "tab-enc-self"):
            explain(words, "enc-self")
            plots.place("plot-enc-self")
        with tab(words, "tab-overview"):
            explain(words, "overview")
            with gr.Row():
                kind = kind_radio(words, "overview-kind", "cross")
                pick = words(
                    gr.Dropdown([], label=T("overview-pick"), elem_id="overview-pick"), "label", "overview-pick"
                )
            plots.place("plot-overview")
            large = opened_view("plot-head")
            # the head shown in `large`: the menu and the thumbnails both open one. Inside the tab: a State among
            # the tabs of a gr.Tabs shifts the tab order Gradio counts, and a clicked tab then takes another's place
            large_choice = gr.State("")

    # a click on a thumbnail sets the menu to its head, and the menu opens that head large
    controls.click.change(menu_choice, controls.click, pick, api_visibility="private")
    pick.change(
        open_head,
        [controls.session, pick, kind, controls.presentation, controls.lang, controls.units],
        [large, large_choice],
        api_visibility="private",
    )

    def reopen(lng, sess, choice, knd, pres, unt):
        """The head opened large, redrawn in the new language, look, units or kind."""
        return redrawn(open_head, sess, choice, knd, pres, lng, unt, width=2)[0]  # one output: its value

    drawn_as = [controls.presentation, controls.units]
    reopen_event = Event(reopen, [controls.lang, controls.session, large_choice, kind, *drawn_as], [large])
    reopen_event.on(controls.layer.input, controls.presentation.input, controls.units.input, kind.input)
    # a new translation: the head opened on the old one no longer applies
    closed = emptied(controls.session, {large: shown(None), large_choice: ""})
    return AttentionGroup(plots=plots, kind=kind, pick=pick, on_new_session=[closed], on_language=[reopen_event])
