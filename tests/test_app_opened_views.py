"""The views a click opens (a head large, a head-summary cell, a beam node): hidden until they have a figure, and the
overview's menu following a thumbnail's click; checked on the page built with a tiny model, no browser."""

from __future__ import annotations

import pytest
from gradio.components.plot import PlotData

from tests.tiny import tiny_translator
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.tabs import analysis, attention
from transformer_viz.decoding import DecodeOptions

OPENED_VIEWS = ("plot-head", "plot-heads-open", "plot-beam-node")
OPENED_VIEWS += ("plot-whatif-probs", "plot-whatif-maps", "plot-bug-probs", "plot-bug-maps")  # the labs' results
SKIP = {"__type__": "update"}


@pytest.fixture
def page(empty_registry):
    """(demo, a beam-search session) with one tiny model registered."""
    from transformer_viz.app.page import build_demo

    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    sess = sessions.translate("the dog sees the house.", "tiny-a", DecodeOptions(strategy="beam", beam_size=2))
    return build_demo(), sess


def component(demo, elem_id):
    return next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id)


def listeners(demo, trigger) -> list:
    """The page's event functions that `trigger` (a component) starts, directly."""
    return [fn for fn in demo.fns.values() if any(t[0] == trigger._id for t in fn.targets)]


def test_opened_views_wait_hidden_until_a_click_gives_them_a_figure(page):
    demo, sess = page
    for elem_id in OPENED_VIEWS:
        assert component(demo, elem_id).visible is False, elem_id  # no empty "Plot" box under the view
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
    demo, sess = page
    boxes = {component(demo, elem_id) for elem_id in OPENED_VIEWS}
    session = listeners(demo, component(demo, "overview-pick"))[0].inputs[0]  # the visitor's session State
    # what runs on a new session: the page's events that read nothing but the session and write an opened view
    closing = [fn for fn in demo.fns.values() if boxes & set(fn.outputs) and all(i is session for i in fn.inputs)]
    hidden = set()
    for fn in closing:
        first, again = fn.fn(*[sess] * len(fn.inputs)), fn.fn(*[sess] * len(fn.inputs))
        assert first == again and all(a is not b for a, b in zip(first, again) if isinstance(a, dict))  # own copies
        for out, value in zip(fn.outputs, first):
            if out in boxes:
                assert value == {"__type__": "update", "value": None, "visible": False}, out.elem_id
                hidden.add(out)
        assert fn.fn(*[None] * len(fn.inputs)) == [SKIP] * len(fn.outputs)  # no session yet: nothing changes
    assert hidden == boxes, f"never hidden again: {[b.elem_id for b in boxes - hidden]}"


def test_a_thumbnail_click_sets_the_menu_to_its_head_and_the_menu_opens_it(page):
    demo, sess = page
    assert attention.menu_choice("layer 1 head 3 (1732456789)") == "layer 1 head 3"
    assert attention.menu_choice("") == SKIP
    clicked, pick, large = (component(demo, i) for i in ("overview-click", "overview-pick", "plot-head"))
    (on_click,) = listeners(demo, clicked)
    assert on_click.outputs == [pick]  # the click goes through the menu, which then shows the head clicked
    assert on_click.fn("layer 0 head 1 (17)") == "layer 0 head 1"
    (on_pick,) = listeners(demo, pick)
    assert large in on_pick.outputs
    shown, choice = on_pick.fn(
        sess, "layer 0 head 1", "cross", "screen", "en", "pieces"
    )  # session, menu, kind, look, language
    expected, _ = attention.open_head(sess, "layer 0 head 1", "cross", "screen", "en", "pieces")
    assert on_pick.inputs[1] is pick and choice == "layer 0 head 1" and shown["value"] == expected["value"]
