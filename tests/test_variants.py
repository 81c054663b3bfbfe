"""The variants: a new layer or head drawn in the browser from the frames and the changes the server sent for it.

The Python side (frames.variants, json_changes) runs here; the browser's side (js/stepping.js: framesFor, step) runs
under Node on fixtures drawn by the server (tests/test_js.py, tests/js/stepping.test.js), where every frame it makes
is compared with the frame the server draws for that layer and head.
"""

from __future__ import annotations

import pytest

from tests.tiny import tiny_translator
from transformer_viz.app import stepping
from transformer_viz.app.common import LOOKS
from transformer_viz.app.frames import (
    SWITCHED,
    lesson_frame,
    step_frames,
    variants,
)
from transformer_viz.app.registry import HEAD, STEP_PLOTS
from transformer_viz.app.session import Session
from transformer_viz.figures.changes import json_changes

CONTROLS = (1, "2", LOOKS[0], "en", "pieces")  # the layer, head, look, language and units the frames are drawn at
IDS = [p.id for p in STEP_PLOTS]


@pytest.fixture(scope="module")
def session():
    return Session(tiny_translator(max_len=8).trace("I see the house."), "tiny-seed000", {})


@pytest.fixture(scope="module")
def drawn(session):
    """The complete frames at CONTROLS and their variants."""
    lay, hd, pres, lng, unt = CONTROLS
    return step_frames(session, 0, *CONTROLS), variants(session, 0, lay, hd, pres, lng, unt)


def every_layer_and_head(session):
    trace = session.trace
    return [(layer, head) for layer in range(trace.n_layers) for head in ["mean", *map(str, range(trace.n_heads))]]


# ------------------------------------------------------------------------------------------------ no browser
def test_the_variants_name_the_complete_frames_they_change(session, drawn):
    frames, v = drawn
    assert frames["base"] and v["base"] == frames["base"]
    assert lesson_frame(session, 0, *CONTROLS)["base"] is None  # one step's frame cannot be changed into every step's
    other = step_frames(session, 0, 0, "mean", *CONTROLS[2:])
    assert other["base"] != frames["base"]  # another layer's frames are not the ones these variants change
    assert variants(None, 0, *CONTROLS) is None


def test_a_translation_too_large_to_draw_in_advance_has_no_variants(session, monkeypatch):
    """Beyond VARIANTS_MAX_CELLS the server draws a new layer or head when it is chosen: no variants are drawn (a
    long paste's held up the next translation), and the page falls back to asking (framesFor keeps its frames)."""
    from transformer_viz.app import frames

    cells = frames.variant_cells(session.trace)
    assert cells == len(session.trace.target_ids) * 2 * 5 * len(session.trace.source_tokens)  # 2 layers, 4 heads
    monkeypatch.setattr(frames, "VARIANTS_MAX_CELLS", cells)
    assert variants(session, 0, *CONTROLS) is not None
    monkeypatch.setattr(frames, "VARIANTS_MAX_CELLS", cells - 1)
    assert variants(session, 0, *CONTROLS) is None


def test_every_layer_and_head_has_a_drawing_and_alike_drawings_are_sent_once(session, drawn):
    _, v = drawn
    combos = {f"{layer}/{head}" for layer, head in every_layer_and_head(session)}
    for i, p in enumerate(STEP_PLOTS):
        if p not in SWITCHED:  # a plot no layer or head changes has no variants
            assert v["keys"][i] is None and v["patches"][i] is None, p.id
            continue
        assert set(v["keys"][i]) == combos, p.id
        names = set(v["keys"][i].values())
        assert v["own"][i] in names and v["own"][i] not in v["patches"][i], p.id  # the frames' own is not resent
        assert set(v["patches"][i]) == names - {v["own"][i]}, p.id
        for changes in v["patches"][i].values():
            assert len(changes) == len(session.trace.target_ids), p.id
    keys = dict(zip(IDS, v["keys"]))
    # decoder self-attention shows every head of a layer: one drawing per layer
    assert keys["plot-dec-self"]["0/1"] == keys["plot-dec-self"]["0/mean"] != keys["plot-dec-self"]["1/1"]
    # the score pipeline shows head 0 for the mean: the two share one drawing; cross-attention draws the mean itself
    assert keys["plot-pipeline"]["0/mean"] == keys["plot-pipeline"]["0/0"]
    assert keys["plot-cross"]["0/mean"] != keys["plot-cross"]["0/0"]
    assert {p.id for p in SWITCHED if p.follows & HEAD} >= {"plot-cross", "plot-pipeline"}


@pytest.mark.parametrize(
    "a, b, change",
    [
        ({"x": 1}, {"x": 1}, None),
        ({"x": 1, "y": 2}, {"x": 3}, {"x": ["=", 3], "y": ["-"]}),
        ({"x": {"y": [1, 2]}}, {"x": {"y": [1, 3], "z": None}}, {"x": {"y": ["=", [1, 3]], "z": ["=", None]}}),
        ([{"a": 1}, {"a": 2}], [{"a": 1}], ["[", {}, 1]),
        ([{"a": 1}], [{"a": 2}, {"b": 1}], ["[", {"0": {"a": ["=", 2]}, "1": ["=", {"b": 1}]}, 2]),
        ([1, 2], "text", ["=", "text"]),
    ],
)
def test_json_changes_says_only_what_differs(a, b, change):
    assert json_changes(a, b) == change


def test_the_server_draws_a_layer_only_where_the_page_has_not(session):
    assert stepping.frames_unless_drawn(session, 0, *CONTROLS, "drawn") == stepping.gr.skip()
    served = stepping.frames_unless_drawn(session, 0, *CONTROLS, "")
    assert served["plots"] == step_frames(session, 0, *CONTROLS)["plots"]
