"""The query–key geometry tab: one head's queries and keys in their PCA plane, and the source pieces' neighbours.

The plane follows the page's layer and head (head 0 while the page shows the mean) and the tab's own choice of
attention; it is drawn here on each of those changes. The neighbours are a registered plot (registry.py).
"""

from __future__ import annotations

import gradio as gr

from ... import figures
from ..common import Words, plot, slides
from ..handlers import KINDS, layer_and_head
from ..models import get_translator
from . import Controls, Event, Plots, TabGroup, explain, kind_radio, opened_view, shown, tab

WIDTH_PX = 1000  # the plane's width on a 1280 px page: the tab's full width


def draw_plane(lng, sess, knd, lay, hd, pres):
    """The plane of the chosen head, or nothing while there is no translation."""
    if sess is None:
        return gr.skip()
    config = get_translator(sess.model).config
    layer, head = layer_and_head(config, lay, hd)
    head = 0 if head == "mean" else int(head)
    with figures.language(lng):
        fig = figures.query_key_figure(
            sess.trace, KINDS.get(knd, knd), int(layer), head, presentation=slides(pres), width=WIDTH_PX
        )
    return shown(plot(fig, pres))


def build(words: Words, controls: Controls, plots: Plots) -> TabGroup:
    """The "Queries, keys, neighbours" tab, laid out and wired."""
    with tab(words, "tab-geometry"):
        explain(words, "geometry")
        kind = kind_radio(words, "geometry-kind", "cross")
        plane = opened_view("plot-geometry")
        plots.place("plot-neighbours")
    s, lang, layer, head, look = controls.session, controls.lang, controls.layer, controls.head, controls.presentation
    plane_in = [lang, s, kind, layer, head, look]
    Event(draw_plane, plane_in, [plane]).on(kind.input, layer.input, head.input, look.input)
    redraw = Event(draw_plane, plane_in, [plane])
    return TabGroup(plots=plots, on_new_session=[redraw], on_language=[redraw])
