"""The variants: a new layer or head drawn in the browser from the frames and the changes the server sent for it.

The Python side (frames.variants, json_changes) runs alone; the browser's side (stepping.FRAMES_FOR_JS, step_js)
runs in Chromium on a blank page that holds only what the scripts read from the app's page (the translation shown
and the model's name), and every frame it makes is compared with the frame the server draws for that layer and head.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tests.tiny import tiny_translator
from transformer_viz.app import stepping
from transformer_viz.app.common import LOOKS
from transformer_viz.app.frames import (
    N_OUT,
    SWITCHED,
    json_changes,
    lesson_frame,
    step_frames,
    variants,
)
from transformer_viz.app.models import model_label
from transformer_viz.app.registry import HEAD, STEP_PLOTS

CONTROLS = (1, "2", LOOKS[0], "en", "pieces")  # the layer, head, look, language and units the frames are drawn at
IDS = [p.id for p in STEP_PLOTS]


@pytest.fixture(scope="module")
def session():
    return SimpleNamespace(trace=tiny_translator(max_len=8).trace("I see the house."), model="tiny-seed000")


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


# ------------------------------------------------------------------------------------------------ in Chromium
@pytest.fixture(scope="module")
def blank(browser, session):
    """A page holding the translation the frames were drawn from, as the app's page shows it."""
    page = browser.new_page()
    page.set_content('<div id="translation"><textarea></textarea></div><div id="model"><input></div>')
    page.evaluate(
        "([text, label]) => { document.querySelector('#translation textarea').value = text; "
        "document.querySelector('#model input').value = label; }",
        [session.trace.target_text, model_label(session.model, "en")],
    )
    yield page
    page.close()


def call(page, js: str, *args):
    """The JavaScript function `js` called in the page with `args`; what it returns."""
    return page.evaluate(f"args => ({js})(...args)", list(args))


@pytest.mark.browser
def test_the_page_makes_every_layer_and_heads_frames_from_the_variants(blank, session, drawn):
    frames, v = drawn
    blank.evaluate("([f, v]) => { window.tvBases = {[f.base]: f}; window.tvVariants = v; }", [frames, v])
    for layer, head in every_layer_and_head(session):
        blank.evaluate("f => { window.tvFrames = f; }", frames)
        made = call(blank, stepping.FRAMES_FOR_JS, layer, head, *CONTROLS[2:])
        served = step_frames(session, 0, layer, head, *CONTROLS[2:])
        assert made["key"] == served["key"] and made["shown"] == served["shown"]
        for plot_id, mine, theirs in zip(IDS, made["plots"], served["plots"]):
            assert [json.loads(x) for x in mine] == [json.loads(x) for x in theirs], (plot_id, layer, head)
        assert blank.evaluate("() => window.tvFrames.key") == served["key"]  # they are the page's frames now


@pytest.mark.browser
def test_variants_for_another_translation_or_look_make_nothing(blank, session, drawn):
    frames, v = drawn
    blank.evaluate(
        "([f, v]) => { window.tvFrames = f; window.tvBases = {[f.base]: f}; window.tvVariants = v; }",
        [
            frames,
            v,
        ],
    )
    # another look: the frames the page holds come back (step_js then paints nothing)
    assert call(blank, stepping.FRAMES_FOR_JS, 0, "0", LOOKS[1], "en", "pieces")["key"] == frames["key"]
    blank.evaluate("() => { document.querySelector('#translation textarea').value = 'Ein anderer Satz.'; }")
    try:
        assert call(blank, stepping.FRAMES_FOR_JS, 0, "0", *CONTROLS[2:])["key"] == frames["key"]
    finally:
        blank.evaluate("t => { document.querySelector('#translation textarea').value = t; }", session.trace.target_text)


@pytest.mark.browser
def test_a_step_asked_for_before_the_frames_arrive_wins_over_the_lessons(blank, session):
    """The slider moved just after the translation shows, before its frames: the lesson's frame (drawn at step 0)
    does not move it back, and every step's frames paint the step asked for."""
    lay, hd, pres, lng, unt = CONTROLS
    lesson, every = lesson_frame(session, 0, *CONTROLS), step_frames(session, 0, *CONTROLS)
    stay, arrive = stepping.step_js(stepping.MOVES["stay"]), stepping.step_js(stepping.MOVES["stay"], "frames")
    blank.evaluate("() => { delete window.tvFrames; delete window.tvBases; delete window.tvVariants; }")
    assert call(blank, stay, 2, lay, hd, pres, lng, unt, None) == [{"__type__": "update"}] * (N_OUT + 1)
    skip = {"__type__": "update"}
    out = call(blank, arrive, lesson, 2, lay, hd, pres, lng, unt, None)
    assert out == [skip] * (N_OUT + 1)  # the slider stays at 2 (not set), nothing painted
    out = call(blank, arrive, every, 2, lay, hd, pres, lng, unt, None)
    assert out[0] == skip and out[1 + len(STEP_PLOTS)] == every["label"][2]  # step 2 painted, the slider left
    # asked for once: a later translation's lesson opens at its own step
    out = call(blank, arrive, lesson, 2, lay, hd, pres, lng, unt, None)
    assert out[0] == 0 and out[1 + len(STEP_PLOTS)] == lesson["label"][0]
    # The lesson's frame arriving while the slider was at its step paints it and leaves the slider alone: Gradio
    # applies the outputs a little later, and a 0 set then undid a step typed meanwhile.
    blank.evaluate("() => { delete window.tvFrames; delete window.tvWanted; }")
    out = call(blank, arrive, lesson, 0, lay, hd, pres, lng, unt, None)
    assert out[0] == skip and out[1 + len(STEP_PLOTS)] == lesson["label"][0]
