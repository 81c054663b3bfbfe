"""The step's text alternative (figures/alt.py): the produced piece, its probability and the source the main map's
row weighs most at the layer and head shown, in every language; carried in the frames and the variants."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tiny import tiny_translator
from transformer_viz import i18n
from transformer_viz.app.common import LOOKS
from transformer_viz.app.frames import alt_text, step_frames, variants
from transformer_viz.app.session import Session
from transformer_viz.figures.alt import step_alt, strongest_key
from transformer_viz.figures.labels import piece_label
from transformer_viz.figures.units import map_axes


@pytest.fixture(scope="module")
def trace():
    return tiny_translator(max_len=8).trace("I see the house.")


@pytest.mark.parametrize("head", [0, 2, "mean"])
def test_it_names_the_piece_produced_and_the_source_the_maps_row_weighs_most(trace, head):
    step, layer = 3, 1
    weights = trace.attention["cross"][layer]  # (H, T, S)
    row = weights.mean(axis=0)[step] if head == "mean" else weights[head, step]
    source = piece_label(trace.source_tokens[int(np.argmax(row))])
    said = step_alt(trace, step, layer, head)
    produced = trace.steps[step]
    assert said.startswith(f"Step {step}: the model produced “{piece_label(produced['token'])}”")
    assert f"p = {produced['prob']:.2f}" in said and f"“{source}” most ({float(row.max()):.2f})" in said
    assert ("the mean of the heads" if head == "mean" else f"In layer {layer}, head {head} ") in said
    assert step_alt(trace, step, layer, str(head)) == said  # the head menu's value, as text


def test_in_words_it_names_the_word_as_the_map_shows_it(trace):
    ax = map_axes(trace.target_tokens, trace.source_tokens, "words")
    word, weight = strongest_key(trace, 2, 0, "mean", "words")
    assert word in ax.key_labels and 0 < weight <= 1 + 1e-6
    assert f"“{word}”" in step_alt(trace, 2, 0, "mean", "words")


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_it_is_said_in_every_language(trace, lang):
    said = step_alt(trace, 1, 0, 1, lang=lang)
    assert piece_label(trace.steps[1]["token"]) in said and f"{trace.steps[1]['prob']:.2f}" in said
    assert (lang == "en") == (said == step_alt(trace, 1, 0, 1))


def test_the_frames_and_the_variants_carry_it_for_every_step_layer_and_head(trace):
    sess = Session(trace, "tiny-seed000", {})
    frames = step_frames(sess, 0, 1, "2", LOOKS[0], "ja", "pieces")
    steps = range(len(trace.target_ids))
    assert frames["alt"] == [alt_text(trace, t, 1, "2", "ja", "pieces") for t in steps]
    assert frames["alt"][0].startswith("ステップ 0")
    made = variants(sess, 0, 1, "2", LOOKS[0], "ja", "pieces")
    for layer in range(trace.n_layers):
        for head in ["mean", "0", "3"]:
            assert made["alt"][f"{layer}/{head}"] == step_frames(sess, 0, layer, head, LOOKS[0], "ja")["alt"]


def test_the_lesson_file_says_it_too(trace):
    from transformer_viz.figures.lesson import lesson, lesson_data

    data = lesson_data(trace, "ko", layer=1, head="0")
    assert data["frames"]["alt"] == [step_alt(trace, t, 1, "0", lang="ko") for t in range(len(trace.target_ids))]
    assert data["variants"]["alt"]["0/mean"][2] == step_alt(trace, 2, 0, "mean", lang="ko")
    assert '<div id="step-alt" class="sr-only" aria-live="polite" aria-atomic="true"></div>' in lesson(trace)
