"""Attention against attribution: the maps of the page's layer, and on demand the gradients and the agreement.

The registry plot shows the attention panels from the start; the button computes gradient × input and integrated
gradients (lab.attribution) into the visitor's trace — so the trace download carries them — and opens the table
of agreement, which follows the layer, the look and the language from then on.
"""

from __future__ import annotations

from dataclasses import replace

import gradio as gr

from ... import figures, i18n
from ...lab.attribution import attribute
from ..common import Words, localised_errors, plot, slides
from ..downloads import offered
from ..models import get_translator
from ..session import Session
from . import Controls, Event, Plots, T, TabGroup, emptied, explain, opened_view, redrawn, shown, tab


def attributed(session: Session) -> Session:
    """The session with its trace's attribution computed (the model's parameters are only read)."""
    trace = session.trace
    if trace.attribution is not None:
        return session
    model = get_translator(session.model).model
    found = attribute(model, trace.source_ids, trace.target_ids)
    return replace(session, trace=replace(trace, attribution=found))


def agreement_view(sess, lay, pres, lng):
    """The agreement table of the session's attribution, for the page's layer (None before it is computed)."""
    if sess is None or sess.trace.attribution is None:
        return shown(None)
    with figures.language(lng):
        fig = figures.agreement_figure(sess.trace, int(lay), presentation=slides(pres))
    return shown(plot(fig, pres))


@localised_errors
def on_attribute(lng, sess, lay, pres):
    """Compute the attribution, then redraw the maps with it, open the agreement and offer the new trace file."""
    if sess is None:
        raise gr.Error(i18n.text("err-translate-first", lng), print_exception=False)
    sess = attributed(sess)
    with figures.language(lng):
        maps = figures.attribution_figure(sess.trace, int(lay), presentation=slides(pres))
    download = offered(sess)
    return [sess, plot(maps, pres), agreement_view(sess, lay, pres, lng), download]


def build(words: Words, controls: Controls, plots: Plots) -> TabGroup:
    """The "Attention vs attribution" tab: explanation, the button, the maps and the agreement."""
    with tab(words, "tab-attribution"):
        explain(words, "attribution")
        run = words(
            gr.Button(T("attribution-run"), variant="primary", elem_id="attribution-run"), "value", "attribution-run"
        )
        maps = plots.place("plot-attribution")
        table = opened_view("plot-attribution-agreement")  # hidden until the attribution is computed

    s, lang, layer, look = controls.session, controls.lang, controls.layer, controls.presentation
    outputs = [s, maps, table] + ([controls.download] if controls.download is not None else [])
    run.click(
        lambda *values: on_attribute(*values)[: len(outputs)], [lang, s, layer, look], outputs, api_visibility="private"
    )

    def redraw(lng, sess, lay, pres):
        """The opened agreement in a new layer or look."""
        return redrawn(agreement_view, sess, lay, pres, lng)

    redraw_in = [lang, s, layer, look]
    Event(redraw, redraw_in, [table]).on(layer.input, look.input)
    # in a new language it runs merged with the other groups' events, which hand back lists of outputs
    relabel = Event(lambda *values: [redraw(*values)], redraw_in, [table])
    return TabGroup(plots=plots, on_new_session=[emptied(s, {table: shown(None)})], on_language=[relabel])
