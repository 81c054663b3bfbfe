"""The views a click opens (a head large, a head-summary cell, a beam node): hidden until they have a figure, and the
overview's menu following a thumbnail's click; checked on the page built with a tiny model, no browser."""

from __future__ import annotations

import pytest
from gradio.components.plot import PlotData

from tests.tiny import tiny_translator
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.tabs import analysis, attention, beyond, beyond_qkv, experiments, inside
from transformer_viz.decoding import DecodeOptions

OPENED_VIEWS = ("plot-head", "plot-heads-open", "plot-beam-node")
OPENED_VIEWS += ("plot-whatif-probs", "plot-whatif-maps", "plot-bug-probs", "plot-bug-maps")  # the labs' results
SKIP = {"__type__": "update"}


@pytest.fixture
def page(empty_registry):
    """(the page's header, its tab groups, a beam-search session) laid out with one tiny model registered."""
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out

    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    sess = sessions.translate("the dog sees the house.", "tiny-a", DecodeOptions(strategy="beam", beam_size=2))
    words = Words()
    with gr.Blocks():
        top = lay_out(words, ["tiny-a"])
        groups = [group.build(words, top.controls) for group in (attention, analysis, experiments, inside, beyond)]
    return top, groups, sess


def closing_events(top, groups) -> list:
    """What a new session runs that writes an opened view: the tab groups' events that close them, each reading the
    session first (and, for the labs, what they ran)."""
    return [
        event
        for group in groups
        for event in group.on_new_session
        if event.inputs[:1] == [top.session] and {out.elem_id for out in event.outputs} & set(OPENED_VIEWS)
    ]


def after_nothing(event, sess) -> list:
    """`event` run on a new session `sess`, before any view was opened or any lab run."""
    return event.fn(sess, *[None] * (len(event.inputs) - 1))


def opened_views(top, groups) -> dict:
    """{elem_id: component} of OPENED_VIEWS, as the closing events write them."""
    found = {out.elem_id: out for event in closing_events(top, groups) for out in event.outputs}
    return {elem_id: found[elem_id] for elem_id in OPENED_VIEWS if elem_id in found}


def test_opened_views_wait_hidden_until_a_click_gives_them_a_figure(page):
    top, groups, sess = page
    views = opened_views(top, groups)
    assert set(views) == set(OPENED_VIEWS), f"never closed: {set(OPENED_VIEWS) - set(views)}"
    for elem_id, view in views.items():
        assert view.visible is False, elem_id  # no empty "Plot" box under the view
    large, choice = attention.open_head(sess, "layer 1 head 2", "cross", "screen", "en", "pieces")
    assert large["visible"] is True and isinstance(large["value"], PlotData) and choice == "layer 1 head 2"
    cell = analysis.open_summary_head(sess, "decoder_self 0 1 (1732)", "screen", "en", "pieces")
    assert cell["visible"] is True and isinstance(cell["value"], PlotData)
    info, node = analysis.open_beam_node("en", sess, "1 (1732)", 0, "screen", "pieces")
    assert node["visible"] is True and isinstance(node["value"], PlotData) and "Node 1" in info
    assert attention.open_head(sess, "", "cross", "screen", "en", "pieces") == (
        SKIP,
        SKIP,
    )  # nothing chosen: nothing opens


def test_a_new_translation_hides_the_opened_views_again(page):
    top, groups, sess = page
    boxes = set(opened_views(top, groups).values())
    hidden = set()
    for event in closing_events(top, groups):
        first, again = after_nothing(event, sess), after_nothing(event, sess)
        assert first == again and all(a is not b for a, b in zip(first, again) if isinstance(a, dict))  # own copies
        for out, value in zip(event.outputs, first):
            if out in boxes:
                assert value == {"__type__": "update", "value": None, "visible": False}, out.elem_id
                hidden.add(out)
        assert after_nothing(event, None) == [SKIP] * len(event.outputs)  # no session yet: nothing changes
    assert hidden == boxes, f"never hidden again: {[b.elem_id for b in boxes - hidden]}"


def test_a_thumbnail_click_names_the_head_the_menu_opens(page):
    """The click's text (written by js/plots.js) becomes the menu's choice, and the menu's choice opens that head
    (tests/test_app_views.py clicks a thumbnail in the browser)."""
    _, _, sess = page
    assert attention.menu_choice("plot-overview layer 1 head 3 (1732456789)") == "layer 1 head 3"
    assert attention.menu_choice("") == SKIP
    assert attention.menu_choice("plot-overview layer 0 head 1 (17)") == "layer 0 head 1"
    assert attention.menu_choice("plot-beam 1 (17)") == SKIP  # the one click box: another plot's click
    shown, choice = attention.open_head(sess, "layer 0 head 1", "cross", "screen", "en", "pieces")
    assert choice == "layer 0 head 1" and shown["visible"] is True and isinstance(shown["value"], PlotData)


def test_each_view_opens_only_for_a_click_on_its_own_plot(page):
    """Every click on a server-drawn plot goes to one box: the head summaries', the beam tree's and the one-query
    view's handlers each open their view for their own plot's click, and leave everything as it is for another's."""
    _, _, sess = page
    opened, choice = analysis.summary_clicked(
        sess, "plot-heads-dec-self decoder_self 0 1 (17)", "screen", "en", "pieces"
    )
    assert opened["visible"] is True and choice == "decoder_self 0 1 (17)"
    assert analysis.summary_clicked(sess, "plot-beam 1 (17)", "screen", "en", "pieces") == (SKIP, SKIP)
    info, node, choice = analysis.beam_clicked("en", sess, "plot-beam 1 (17)", 0, "screen", "pieces")
    assert "Node 1" in info and node["visible"] is True and choice == "1 (17)"
    assert analysis.beam_clicked("en", sess, "plot-overview layer 0 head 1 (17)", 0, "screen", "pieces") == (SKIP,) * 3
    view = ("en", sess, "cross", "auto", 0, 0, 0, "screen")
    *figs, key = beyond_qkv.key_clicked("plot-qkv 0 (17)", *view, None)
    assert key == 0 and figs[1]["visible"] is True  # the key's q ∘ k is drawn
    assert beyond_qkv.key_clicked("plot-heads-cross cross 0 1 (17)", *view, None) == [SKIP] * 4
