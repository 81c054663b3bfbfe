"""Guess first's data (figures/guess.py): the pieces, the top 5, the title's step line, the rows and the strongest
keys, checked against the trace's own records and weights."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from transformer_viz import i18n
from transformer_viz.app.frames import lesson_frame, step_frames
from transformer_viz.app.session import Session
from transformer_viz.figures import attention
from transformer_viz.figures.guess import TOP, guess_data, guess_keys
from transformer_viz.figures.lesson import lesson_data
from transformer_viz.figures.strip import token_strip
from transformer_viz.figures.style import piece_label
from transformer_viz.figures.units import map_axes
from transformer_viz.figures.words import language


def test_each_step_carries_its_piece_and_its_top_5_as_the_axes_show_them(trace):
    data = guess_data(trace)
    assert data["piece"] == [piece_label(token) for token in trace.target_tokens]
    assert len(data["top"]) == len(trace.target_tokens)
    for record, top in zip(trace.steps, data["top"]):
        assert len(top) == min(TOP, len(record["top_k"])) == 5
        assert top == [piece_label(option["token"]) for option in record["top_k"][:5]]
    assert data["forced"] == 0


def test_a_branch_marks_its_forced_steps(translator):
    trace = translator.trace("I see the house.", max_new_tokens=5, forced_prefix=[7, 9])
    assert guess_data(trace)["forced"] == trace.forced_prefix == 2


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_title_line_is_the_maps_own_and_its_hidden_twin_drops_the_piece(trace, lang):
    data = guess_data(trace, lang)
    for step, title in enumerate(data["title"]):
        with language(lang):
            shown = attention.attention_head(trace, "cross", 0, "mean", step=step).layout.title.text
        assert title["line"] in shown and f"{step}" in title["hidden"] and "?" in title["hidden"]
        assert data["piece"][step] not in title["hidden"].replace(f"{step}", "")


def test_the_rows_are_the_maps_rows_in_pieces_and_in_words(trace):
    data = guess_data(trace)
    steps = range(len(trace.target_tokens))
    assert data["rows"]["pieces"] == list(steps)
    words = map_axes(trace.target_tokens, trace.source_tokens, "words")
    assert data["rows"]["words"] == [words.row(step) for step in steps]


def test_the_strongest_key_is_the_rows_largest_weight_in_every_layer_and_head(trace):
    data = guess_data(trace)
    weights = trace.attention["cross"]  # (L, H, T, S)
    for layer in range(trace.n_layers):
        for head in ["mean", *range(trace.n_heads)]:
            matrix = weights[layer].mean(axis=0) if head == "mean" else weights[layer, head]
            for step, keys in enumerate(data["strongest"]["pieces"][f"{layer}/{head}"]):
                row = matrix[step]
                assert keys and all(np.isclose(row[k], row.max(), atol=1e-6) for k in keys)
                assert all(row[k] < row.max() - 1e-6 for k in range(len(row)) if k not in keys)


def test_every_tied_key_counts(trace):
    tied = copy.deepcopy(trace)
    tied.attention["cross"][0, 1, 2] = 0.0
    tied.attention["cross"][0, 1, 2, [0, 3]] = 0.5  # head 1 of layer 0 reads keys 0 and 3 alike at step 2
    data = guess_data(tied)
    assert data["strongest"]["pieces"]["0/1"][2] == [0, 3]
    assert data["strongest"]["pieces"]["0/0"] == guess_data(trace)["strongest"]["pieces"]["0/0"]


def test_in_words_the_strongest_words_pieces_count(trace):
    data = guess_data(trace)
    words = map_axes(trace.target_tokens, trace.source_tokens, "words")
    merged = words.weights(trace.attention["cross"][1].mean(axis=0))  # layer 1's mean, in words
    for step, pieces in enumerate(data["strongest"]["words"]["1/mean"]):
        row = merged[words.row(step)]
        best = [w for w in range(len(row)) if np.isclose(row[w], np.nanmax(row), atol=1e-6)]
        assert pieces == [piece for w in best for piece in words.key_spans[w]]


def test_the_pages_frames_and_the_lesson_file_carry_it_in_their_language(trace):
    sess = Session(trace, "tiny-seed000", {})
    for frames in (step_frames(sess, 0, 0, "mean", "screen", "ko"), lesson_frame(sess, 2, 0, "mean", "screen", "ko")):
        assert frames["guess"] == guess_data(trace, "ko")
    data = lesson_data(trace, "de")
    assert data["frames"]["guess"] == guess_data(trace, "de")
    assert (
        data["frames"]["guess"]["words"]["guess-score"]
        == i18n.text("guess-score", "de")
        != i18n.text("guess-score", "en")
    )


def test_the_strip_marks_the_target_tokens_from_the_step_on_and_names_each_source_key(trace):
    strip = token_strip(trace, 2)
    later = [int(step) for step in re.findall(r'class="[^"]*tv-later[^"]*" data-step="(\d+)"', strip)]
    assert later == list(range(2, len(trace.target_tokens)))
    keys = [int(key) for key in re.findall(r'data-key="(\d+)"', strip)]
    assert keys == list(range(len(trace.source_tokens)))


def test_a_session_makes_the_language_free_part_once_for_all_its_frames(trace, monkeypatch):
    """The lesson's frame, every step's frames and a new look or language after them share the session's keys: the
    strongest keys of every layer and head are computed once per translation, not on the lesson's first paint and
    again for each frame."""
    from transformer_viz.app import session as sessions

    made = []
    monkeypatch.setattr(sessions, "guess_keys", lambda t: made.append(t) or guess_keys(t))
    sess = Session(trace, "tiny-seed000", {})
    lesson_frame(sess, 0, 0, "mean", "screen", "en")
    step_frames(sess, 0, 0, "mean", "slides-png", "ja", "words")
    assert made == [trace] and step_frames(sess, 0, 1, "0", "screen", "ko")["guess"] == guess_data(trace, "ko")
