"""Side by side: both models' traces of one sentence, their steps and layers held to what each has, and the note."""

from __future__ import annotations

import pytest

from tests.tiny import tiny_translator
from transformer_viz import figures, i18n
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.tabs import beyond_compare as cmp
from transformer_viz.decoding import DecodeOptions

SENTENCE = "I see the house."
OPTIONS = DecodeOptions(max_new_tokens=12)
PAIR = ["seed000", "seed004"]

pytestmark = pytest.mark.usefixtures("empty_registry")  # each test registers the models it uses, and leaves none


@pytest.fixture(scope="module")
def translators():
    """seed000 writes 12 tokens (its max_new_tokens); seed004, one layer and 7 positions, writes 6."""
    return {
        "seed000": tiny_translator("seed000", max_len=16),
        "seed004": tiny_translator("seed004", max_len=7, n_layers=1, n_heads=2),
    }


@pytest.fixture
def session(translators):
    for name, translator in translators.items():
        models.register_translator(name, translator)
    return sessions.translate(SENTENCE, "seed000", OPTIONS)


def test_the_shipped_presets_are_compared_first():
    assert cmp.compared_models(["hub/other", "seed004", "seed000"]) == ["seed000", "seed004"]
    assert cmp.compared_models(["seed004", "mine", "yours"]) == ["seed004", "mine"]
    assert cmp.compared_models(["seed000"]) == ["seed000"]


def test_both_models_translate_the_sessions_sentence_with_its_options(session, translators):
    traces = cmp.comparison_traces(session, PAIR)
    assert list(traces) == PAIR
    assert traces["seed000"] is session.trace  # the page's own translation, not traced again
    expected = translators["seed004"].trace(SENTENCE, options=OPTIONS)
    assert traces["seed004"].target_ids == expected.target_ids
    assert traces["seed004"].source_text == SENTENCE and traces["seed004"].n_layers == 1
    assert len(traces["seed000"].target_ids) != len(traces["seed004"].target_ids)  # what the clamping tests need


def test_a_branch_is_compared_as_the_translation_before_it(session):
    alternative = session.trace.steps[1]["top_k"][1]["id"]
    branched = sessions.branch(session, 1, alternative)
    assert branched.trace.target_ids != session.trace.target_ids
    traces = cmp.comparison_traces(branched, PAIR)
    assert traces["seed000"].target_ids == session.trace.target_ids


def test_the_shorter_translation_stays_at_its_last_step_and_the_view_says_so(session):
    traces = cmp.comparison_traces(session, PAIR)
    long, short = (len(traces[name].target_ids) for name in PAIR)
    step = long - 1
    parts = cmp.comparison_parts(traces, step, 0, False, "ja", "pieces")
    assert [part["step"] for part in parts] == [step, short - 1]
    for part, trace in zip(parts, traces.values()):
        with figures.language("ja"):
            grid = figures.attention_grid(trace, "cross", 0, step=part["step"], width=cmp.COLUMN_PX)
            topk = figures.topk_bar(trace, part["step"])
        assert part["grid"].to_plotly_json()["data"] == grid.to_plotly_json()["data"]
        assert part["grid"].layout.title.text == grid.layout.title.text
        assert part["topk"].layout.title.text == topk.layout.title.text
        assert figures.download_name_of(part["topk"]) == f"next-token-top-k_step-{part['step']}_{part['name']}"
        assert part["text"] == trace.target_text and part["label"] == models.model_label(part["name"], "ja")
    note = cmp.comparison_note(traces, step, 0, "ja")
    label = models.model_label("seed004", "ja")
    assert note == i18n.text("compare-clamped", "ja", model=label, n=short, last=short - 1)
    assert cmp.comparison_note(traces, short - 1, 0, "ja") == ""  # a step both have: nothing to say


def test_a_layer_the_other_model_lacks_is_held_to_its_last(session):
    traces = cmp.comparison_traces(session, PAIR)
    parts = cmp.comparison_parts(traces, 0, 1, True, "en", "words")
    assert [part["layer"] for part in parts] == [1, 0]
    assert "layer 0" in parts[1]["grid"].layout.title.text.lower()
    note = cmp.comparison_note(traces, 0, 1, "ko")
    assert note == i18n.text("compare-layer-clamped", "ko", model=models.model_label("seed004", "ko"), n=1, last=0)


def test_the_slider_reaches_the_longer_translations_last_step(session):
    traces = cmp.comparison_traces(session, PAIR)
    longest = max(len(trace.target_ids) for trace in traces.values())
    update = cmp.steps_slider(traces, step=99)
    assert update["maximum"] == longest - 1 and update["value"] == longest - 1 and update["interactive"]


def test_with_one_model_the_view_says_so_in_the_visitors_language(session):
    note, label, *rest = cmp.shown_comparison({}, ["seed000"], 0, 0, "screen", "ko", "pieces")
    assert note == i18n.text("compare-one-model", "ko", model="seed000") and "seed000" in note
    assert label["label"] == models.model_label("seed000", "ko")
    assert cmp.one_model_note(PAIR, "ko") == ""


def test_the_page_shows_both_models_figures(session):
    traces = cmp.comparison_traces(session, PAIR)
    note, *columns = cmp.shown_comparison(traces, PAIR, 3, 0, "slides-png", "en", "pieces")
    assert note == ""
    boxes, grids, topks = columns[0::3], columns[1::3], columns[2::3]
    assert [box["value"] for box in boxes] == [trace.target_text for trace in traces.values()]
    assert [box["label"] for box in boxes] == [models.model_label(name) for name in PAIR]
    assert all(update["visible"] and update["value"] is not None for update in grids + topks)
