"""The page's "Tokens: pieces / words" switch, without a browser: every attention map in words, the rest as it was."""

from __future__ import annotations

import pytest

from tests.tiny import tiny_translator
from transformer_viz import figures
from transformer_viz.app import handlers as h
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.registry import PLOTS
from transformer_viz.lab.analysis import word_labels, word_spans

# The maps the switch changes, and the kind each shows (the overview's is the view's kind).
WORD_MAPS = {"plot-cross": "cross", "plot-dec-self": "decoder_self", "plot-enc-self": "encoder_self"}


@pytest.fixture
def trace(empty_registry):
    models.register_translator("tiny", tiny_translator("seed000"))
    options = sessions.decode_options("greedy", 4, 1.0, 0, 1.0, 0, 8)
    trace = sessions.translate("the dog sees the house.", "tiny", options).trace
    assert len(word_spans(trace.source_tokens)) < len(trace.source_tokens), "some source word has several pieces"
    return trace


def words_of(pieces: list[str]) -> list[str]:
    return [figures.esc(w) for w in word_labels(pieces, word_spans(pieces))]


def test_the_registry_draws_every_attention_map_in_words(trace):
    drawn = h.view_figures(PLOTS, trace, step=1, layer=1, head="2", kind="encoder self", units="words")
    for plot_id, kind in WORD_MAPS.items():
        fig = drawn[plot_id]
        queries, keys = figures.attention_axes(trace, kind)
        assert list(fig.layout.xaxis.ticktext) == words_of(keys), plot_id
        assert list(fig.layout.yaxis.ticktext) == words_of(queries), plot_id
        assert "· words" in fig.layout.title.text and "-words" in figures.download_name_of(fig)
    source = next(d for d in drawn["plot-alignment"].data if d.name == "source tokens")
    assert list(source.text) == words_of(trace.source_tokens)
    overview = drawn["plot-overview"]
    assert "· words" in overview.layout.title.text
    assert overview.data[0].z.shape == (len(word_spans(trace.source_tokens)),) * 2  # the view's kind: encoder self


def test_pieces_are_the_default_and_the_other_plots_ignore_the_switch(trace):
    view = dict(step=1, layer=1, head="2", kind="cross")
    default = h.view_figures(PLOTS, trace, **view)
    pieces = h.view_figures(PLOTS, trace, **view, units="pieces")
    words = h.view_figures(PLOTS, trace, **view, units="words")
    for plot in PLOTS:
        if default[plot.id] is None:
            continue
        assert figures.figure_json(pieces[plot.id]) == figures.figure_json(default[plot.id]), plot.id
        changed = figures.figure_json(words[plot.id]) != figures.figure_json(default[plot.id])
        assert changed == (plot.id in {*WORD_MAPS, "plot-alignment", "plot-overview"}), plot.id
    assert list(default["plot-cross"].layout.xaxis.ticktext) == [
        figures.esc(figures.style.piece_label(p)) for p in trace.source_tokens
    ]


def test_the_step_redraw_keeps_the_units(trace):
    figs = h.step_figures(trace, 1, 0, "mean", False, lang="ja", units="words")
    assert list(figs["plot-cross"].layout.xaxis.ticktext) == words_of(trace.source_tokens)
    assert "単語" in figs["plot-cross"].layout.title.text


def test_the_header_offers_the_switch_beside_the_look_in_every_language():
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out

    words = Words()
    with gr.Blocks():
        top = lay_out(words, [])
    assert top.units.elem_id == "units" and top.units.value == "pieces"
    assert top.units.choices == [("pieces", "pieces"), ("words", "words")] and top.units.label == "Tokens"
    korean = {}  # the radio is registered twice: its label, then its choices
    for component, update in zip(words.components, words.updates("ko")):
        if component is top.units:
            korean.update(update)
    assert korean["label"] == "토큰 단위" and korean["choices"] == [("조각", "pieces"), ("단어", "words")]


def test_the_heads_a_click_opens_are_drawn_in_the_pages_units(trace):
    import json

    from transformer_viz.app.session import Session
    from transformer_viz.app.tabs import analysis, attention

    sess = Session(trace=trace, model="tiny", options={})
    source_words = words_of(trace.source_tokens)
    for units, ticks in (
        ("words", source_words),
        ("pieces", [figures.esc(figures.style.piece_label(p)) for p in trace.source_tokens]),
    ):
        large, _ = attention.open_head(sess, "layer 1 head 2 (17)", "cross", "screen", "en", units)
        summary = analysis.open_summary_head(sess, "encoder_self 0 3 (17)", "screen", "en", units)
        for shown in (large, summary):
            assert json.loads(shown["value"].plot)["layout"]["xaxis"]["ticktext"] == ticks, units
