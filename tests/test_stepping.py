"""The frames that let the browser step without the server: every step drawn by the handlers, once."""

from __future__ import annotations

import json

import pytest

from tests.tiny import tiny_translator
from transformer_viz.app.common import LOOKS
from transformer_viz.app.frames import LESSON_PLOTS, N_OUT, draw_step, lesson_frame, step_frames
from transformer_viz.app.models import model_label
from transformer_viz.app.registry import STEP_PLOTS
from transformer_viz.app.session import Session


@pytest.fixture(scope="module")
def session():
    return Session(tiny_translator(max_len=8).trace("I see the house."), "tiny-seed000", {})


@pytest.mark.parametrize(
    "look, lang, head, units", [(LOOKS[0], "en", "mean", "pieces"), (LOOKS[2], "ja", "1", "words")]
)
def test_every_frame_is_what_the_server_draws_at_that_step(session, look, lang, head, units):
    frames = step_frames(session, 0, 1, head, look, lang, units)
    steps = len(session.trace.target_ids)
    assert frames["steps"] == steps and len(frames["plots"]) == len(STEP_PLOTS) == N_OUT - 4
    for t in range(steps):
        drawn = draw_step(session, t, 1, head, look, lang, units)
        for i, plot in enumerate(STEP_PLOTS):
            served, frame = drawn[i], frames["plots"][i][t]
            if served is None:
                assert frame is None, (plot.id, t)
                continue
            figure = json.loads(frame)
            assert figure["layout"].pop("datarevision")
            assert figure == json.loads(served.plot), (plot.id, t)
        label, alternatives, strip, alt = drawn[len(STEP_PLOTS) :]
        assert frames["label"][t] == label and frames["strip"][t] == strip and frames["alt"][t] == alt
        assert frames["alternatives"][t] == [list(choice) for choice in alternatives["choices"]]
    assert frames["plots"][0][0] != frames["plots"][0][steps - 1]  # the steps differ


def test_the_frames_know_what_they_were_drawn_for(session):
    frames = step_frames(session, 0, 1, "mean", LOOKS[1], "ko", "words")
    assert json.loads(frames["key"]) == [1, "mean", LOOKS[1], "ko", "words"]
    assert frames["key"] == '[1,"mean","slides-png","ko","words"]'  # as the browser's JSON.stringify
    assert frames["play"] != step_frames(session, 0, 1, "mean", LOOKS[1], "en")["play"]  # in Korean
    # and which translation: its text and the model's name, which ends the menu's label (js/page.js: shownKey reads
    # both; tests/js/plots.test.js),
    # the same in every language: a new language's frames are painted before the menu is relabelled
    name = json.loads(frames["shown"])[1]
    assert json.loads(frames["shown"])[0] == session.trace.target_text
    assert all(model_label(session.model, lng).endswith(f"({name})") or name == session.model for lng in ("en", "ko"))
    assert frames["shown"] == step_frames(session, 0, 1, "mean", LOOKS[1], "ja", "words")["shown"]


def test_the_lesson_frame_is_the_lessons_plots_at_one_step(session):
    """What a translation or a new look, layer, units or language paints first: the lesson's two plots, the label,
    alternatives and strip at the page's step alone, as every step's frames have them; the other plots are left."""
    every = step_frames(session, 0, 1, "0", LOOKS[0], "en")
    last = every["steps"] - 1
    lesson = lesson_frame(session, last + 5, 1, "0", LOOKS[0], "en")  # clamped to the last step
    assert lesson["only"] == last and every["only"] is None and lesson["key"] == every["key"]
    assert lesson["steps"] == every["steps"] and lesson["ids"] == every["ids"]
    for plot_id, plots, all_plots in zip(lesson["ids"], lesson["plots"], every["plots"]):
        if plot_id in {p.id for p in LESSON_PLOTS}:
            assert plots[last] == all_plots[last] and plots[:last] == [None] * last
        else:
            assert plots is None, plot_id
    for field in ("label", "alternatives", "strip", "alt"):
        assert lesson[field][last] == every[field][last] and lesson[field][:last] == [None] * last
    assert lesson_frame(None, 0, 0, "mean", LOOKS[0], "en") is None


def test_the_data_revision_changes_only_with_the_data(session):
    """Cross-attention keeps its weights from step to step (only the outline moves); decoder self-attention
    hides the rows not produced yet, so its data change with the step."""
    frames = step_frames(session, 0, 0, "mean", LOOKS[0], "en")
    ids = [plot.id for plot in STEP_PLOTS]

    def revisions(plot_id):
        return [json.loads(x)["layout"]["datarevision"] for x in frames["plots"][ids.index(plot_id)] if x]

    assert len(set(revisions("plot-cross"))) == 1
    assert len(set(revisions("plot-dec-self"))) == len(session.trace.target_ids)


def test_the_lessons_plots_are_drawn_first_and_every_set_of_frames_is_new(session):
    """The lesson's plots (always on the page) are marked to be drawn at once, the tabs' plots after; frames of the
    same figures are still new frames, so that their arrival repaints a page stepped away from them."""
    frames = step_frames(session, 0, 0, "mean", LOOKS[0], "en")
    assert frames["ids"] == [plot.id for plot in STEP_PLOTS]
    lesson = {plot_id for plot_id, first in zip(frames["ids"], frames["lesson"]) if first}
    assert lesson == {"plot-cross", "plot-topk"} == {p.id for p in STEP_PLOTS if p.group == "page"}
    again = step_frames(session, 0, 0, "mean", LOOKS[0], "en")
    assert again["plots"] == frames["plots"] and again["serial"] != frames["serial"]


def test_no_session_no_frames():
    assert step_frames(None, 0, 0, "mean", LOOKS[0], "en") is None
