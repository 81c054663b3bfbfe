"""Every attention map in pieces (unchanged) or in words: labels are the words, rows still sum to 1, the step's
word outlined, the rows of words not written yet hidden."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import transformer_viz.figures as F
from tests.plots import assert_valid_plotly, heatmaps, tick_labels
from transformer_viz.figures.attention import (
    attention_axes,
    axis_title,
    head_matrix,
    key_axis_title,
    query_axis_title,
)

# 15 source and 6 target pieces, as many as the fixture trace has: words of one, two, three and four pieces
SOURCE = ["▁the", "▁d", "og", "▁se", "e", "s", "▁the", "▁ca", "t", "▁", "in", "side", "▁now", ".", "</s>"]
SOURCE_WORDS = ["the", "dog", "sees", "the", "cat", "inside", "now.", "&lt;/s&gt;"]
SOURCE_SPANS = [[0], [1, 2], [3, 4, 5], [6], [7, 8], [9, 10, 11], [12, 13], [14]]
TARGET = ["▁Der", "▁Hund", "e", "hütte", ".", "</s>"]
TARGET_WORDS = ["Der", "Hundehütte.", "&lt;/s&gt;"]
TARGET_SPANS = [[0], [1, 2, 3, 4], [5]]
DECODER_INPUT_WORDS = ["&lt;s&gt;", "Der", "Hundehütte."]  # <s>, y1 … y5: the last piece "</s>" is never fed


@pytest.fixture(scope="module")
def worded(trace):
    assert (len(trace.source_tokens), len(trace.target_tokens)) == (len(SOURCE), len(TARGET))
    return dataclasses.replace(trace, source_tokens=SOURCE, target_tokens=TARGET)


def by_hand(weights: np.ndarray, query_spans, key_spans) -> np.ndarray:
    """Word weights computed here: keys summed over a word's pieces, then queries averaged over theirs."""
    keys = np.stack([weights[:, span].sum(axis=1) for span in key_spans], axis=1)
    return np.stack([keys[span].mean(axis=0) for span in query_spans])


BUILDERS = {
    "grid-cross": lambda tr, **kw: F.attention_grid(tr, "cross", 1, step=3, **kw),
    "grid-decoder": lambda tr, **kw: F.attention_grid(tr, "decoder_self", 0, step=2, **kw),
    "grid-encoder": lambda tr, **kw: F.attention_grid(tr, "encoder_self", 1, **kw),
    "head": lambda tr, **kw: F.attention_head(tr, "decoder_self", 1, 2, step=4, **kw),
    "overview": lambda tr, **kw: F.overview(tr, "cross", **kw),
    "alignment": lambda tr, **kw: F.alignment(tr, 1, step=3, **kw),
}

NAMES = {"grid-cross": "cross", "grid-decoder": "decoder_self", "grid-encoder": "encoder_self", "head": "decoder_self"}


@pytest.mark.parametrize("name", BUILDERS)
def test_pieces_are_the_default_and_the_figures_stay_as_they_were(worded, name):
    build = BUILDERS[name]
    default = build(worded)
    assert F.figure_json(build(worded, units="pieces")) == F.figure_json(default)
    assert "words" not in F.download_name_of(default) and "· words" not in default.layout.title.text
    if name in NAMES:
        assert list(default.layout.xaxis.ticktext) == tick_labels(attention_axes(worded, NAMES[name])[1])


@pytest.mark.parametrize("name", BUILDERS)
def test_word_figures_are_valid_and_say_they_show_words(worded, name):
    fig = BUILDERS[name](worded, units="words")
    assert_valid_plotly(fig, name)
    assert "· words" in fig.layout.title.text
    assert "-words" in F.download_name_of(fig)


@pytest.mark.parametrize(
    "kind, queries, keys, query_spans, key_spans",
    [
        ("cross", TARGET_WORDS, SOURCE_WORDS, TARGET_SPANS, SOURCE_SPANS),
        ("encoder_self", SOURCE_WORDS, SOURCE_WORDS, SOURCE_SPANS, SOURCE_SPANS),
        ("decoder_self", TARGET_WORDS, DECODER_INPUT_WORDS, TARGET_SPANS, [[0], [1], [2, 3, 4, 5]]),
    ],
)
def test_the_grid_in_words_labels_words_and_keeps_every_row_a_distribution(
    worded, kind, queries, keys, query_spans, key_spans
):
    fig = F.attention_grid(worded, kind, 1, units="words")  # no step: every row shown
    layout = fig.layout.to_plotly_json()
    titles = {layout[k].get("title", {}).get("text") for k in layout if k.startswith(("xaxis", "yaxis"))}
    assert {axis_title(key_axis_title(kind, words=True)), axis_title(query_axis_title(kind, words=True))} <= titles
    for panel, head in zip(heatmaps(fig), [*range(worded.n_heads), "mean"]):
        x, y = fig.layout["xaxis" + (panel.xaxis or "x")[1:]], fig.layout["yaxis" + (panel.yaxis or "y")[1:]]
        assert list(x.ticktext) == keys and list(y.ticktext) == queries
        z = np.asarray(panel.z, dtype=np.float64)
        assert z.shape == (len(queries), len(keys))
        np.testing.assert_allclose(z.sum(axis=1), 1.0, rtol=1e-5)
        expected = by_hand(head_matrix(worded, kind, 1, head).astype(np.float64), query_spans, key_spans)
        np.testing.assert_allclose(z, expected, rtol=1e-5)


def test_a_word_being_written_averages_only_the_pieces_written_so_far(worded):
    """At step 2 the decoder has produced "▁Der", "▁Hund", "e": the word "Hundehütte." is two pieces old."""
    fig = F.attention_grid(worded, "decoder_self", 0, step=2, units="words")
    keys = [[0], [1], [2, 3, 4, 5]]
    for panel, head in zip(heatmaps(fig), [*range(worded.n_heads), "mean"]):
        z = np.asarray(panel.z, dtype=np.float64)
        pieces = head_matrix(worded, "decoder_self", 0, head).astype(np.float64)
        np.testing.assert_allclose(z[:2], by_hand(pieces, [[0], [1, 2]], keys), rtol=1e-5)  # not pieces 3 and 4
        np.testing.assert_allclose(z[:2].sum(axis=1), 1.0, rtol=1e-5)
        assert np.isnan(z[2]).all()  # "</s>" is not written yet: a gap
    outline = [s for s in fig.layout.shapes if s.xref == "x" and s.line.width][-1]
    assert (outline.y0, outline.y1) == (0.5, 1.5)  # row 1, the word that holds piece 2
    shade = next(s for s in fig.layout.shapes if s.xref == "x" and s.fillcolor == F.style.FUTURE_SHADE)
    assert (shade.y0, shade.y1) == (1.5, 2.5)


def test_alignment_in_words_joins_source_and_target_words(worded):
    fig = F.alignment(worded, 1, step=3, units="words")
    source = next(d for d in fig.data if d.name == "source tokens")
    target = next(d for d in fig.data if d.name == "target tokens")
    assert list(source.text) == SOURCE_WORDS and list(target.text) == TARGET_WORDS
    colours = list(target.textfont.color)
    assert colours.index(F.style.HIGHLIGHT) == 1  # piece 3 ("hütte") is in word 1
    heights = set(source.y) | set(target.y)
    lines = [d for d in fig.data if d.mode == "lines"]
    assert lines and all(y is None or y in heights for d in lines for y in d.y)  # lines join words, not pieces


def test_the_overview_merges_every_thumbnail(worded):
    fig = F.overview(worded, "encoder_self", units="words")
    assert len(fig.data) == worded.n_layers * worded.n_heads
    for panel in fig.data:
        layer, head = panel.meta
        z = np.asarray(panel.z, dtype=np.float64)
        expected = by_hand(
            head_matrix(worded, "encoder_self", layer, head).astype(np.float64), SOURCE_SPANS, SOURCE_SPANS
        )
        np.testing.assert_allclose(z, expected, rtol=1e-5)


def test_unknown_units_are_refused(worded):
    with pytest.raises(ValueError, match="units"):
        F.attention_grid(worded, "cross", 0, units="letters")
    with pytest.raises(ValueError, match="units"):
        F.alignment(worded, 0, units="characters")
