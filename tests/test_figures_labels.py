"""Token labels a slide can show: pieces without the stray "▁", ticks never on end, the beam tree in pieces."""

from __future__ import annotations

import dataclasses

import pytest

import transformer_viz.figures as F
from tests.plots import assert_valid_plotly, tick_labels
from tests.test_figures_output import builders
from transformer_viz.figures.labels import min_font, title_chars
from transformer_viz.figures.style import (
    LINE_EM,
    TITLE_EM,
    piece_label,
    tick_angle,
    wrap_title,
    x_token_ticks,
)
from transformer_viz.tokenizer import Tokenizer


@pytest.mark.parametrize(
    "piece, label",
    [("▁Hund", "Hund"), ("ung", "·ung"), ("▁", "␣"), ("</s>", "</s>"), ("<unk>", "<unk>"), (".", "·.")],
)
def test_pieces_read_without_the_word_start_mark(piece, label):
    assert piece_label(piece) == label


def test_ticks_lie_flat_when_they_fit_and_at_45_degrees_when_not():
    assert tick_angle(["Der", "Hund", "bellt"], 900, 12) == 0
    assert tick_angle(["Donaudampfschifffahrt"] * 30, 900, 12) == -45
    assert tick_angle([], 900, 12) == 0
    short = x_token_ticks(["▁a", "b"], 900, 12)
    assert short["tickangle"] == 0 and short["ticktext"] == ["a", "·b"]
    crowded = x_token_ticks(["▁Verantwortung"] * 40, 400, 20)
    assert crowded["tickangle"] == -45 and crowded["tickfont"]["size"] < 20  # smaller, and tilted, not on end


def test_no_figure_stands_its_tick_labels_on_end(trace, beam_trace):
    for name, build in builders(trace, beam_trace).items():
        for presentation in (False, True):
            layout = build(presentation).layout.to_plotly_json()
            angles = {layout[k].get("tickangle") for k in layout if k.startswith(("xaxis", "yaxis"))}
            assert angles <= {None, 0, -45}, name


def test_every_map_labels_its_ticks_as_pieces_read(trace):
    word_start = [i for i, piece in enumerate(trace.source_tokens) if piece.startswith("▁")]
    assert word_start, "the test sentence has word starts"
    fig = F.attention_head(trace, "cross", 0, 0, step=1)
    x = fig.layout.xaxis
    assert list(x.ticktext) == tick_labels(trace.source_tokens)
    assert not any("▁" in label for label in x.ticktext)
    assert "·xy continues a word" in x.title.text  # the convention, said on the figure
    for build in (
        lambda: F.attention_grid(trace, "decoder_self", 0, step=1),
        lambda: F.decoder_causal_mask(trace, step=1),
        lambda: F.score_pipeline(trace, 0, 0, step=1),
        lambda: F.topk_bar(trace, 1),
        lambda: F.positional_heatmap(trace.positional_encoding, tokens=trace.source_tokens),
        lambda: F.attention_side_by_side(trace, trace, "cross", 0, 0),
    ):
        layout = build().layout.to_plotly_json()
        texts = [t for k in layout if k.startswith(("xaxis", "yaxis")) for t in layout[k].get("ticktext") or []]
        assert texts and not any("▁" in text for text in texts)


def test_alignment_labels_and_hovers_show_pieces_as_the_axes_do(trace):
    fig = F.alignment(trace, 0, step=1)
    source = next(d for d in fig.data if d.name == "source tokens")
    assert list(source.text) == tick_labels(trace.source_tokens)
    assert all(label in hover for label, hover in zip(source.text, source.hovertext))
    assert not any("▁" in hover for hover in source.hovertext)


def test_beam_tree_labels_each_node_with_its_piece_and_keeps_its_id(beam_trace, translator):
    tokenizer: Tokenizer = translator.tokenizer
    pieces = {n["id"]: tokenizer.id_to_piece(n["id"]) for n in beam_trace.beam_tree}
    fig = F.beam_tree_figure(beam_trace, id_to_token=pieces)
    assert_valid_plotly(fig, "beam")
    nodes = [d for d in fig.data if d.customdata is not None]
    for d in nodes:
        for node, text, hover in zip(d.customdata, d.text, d.hovertext):
            n = beam_trace.beam_tree[node]
            assert text == F.esc(piece_label(pieces[n["id"]])) and not text.startswith("#")
            assert f"(id {n['id']})" in hover and F.esc(piece_label(pieces[n["id"]])) in hover and "▁" not in hover
    assert sorted(i for d in nodes for i in d.customdata) == list(range(len(beam_trace.beam_tree)))
    unknown = F.beam_tree_figure(dataclasses.replace(beam_trace, steps=[], target_ids=[], target_tokens=[]))
    assert any(text.startswith("#") for d in unknown.data if d.customdata is not None for text in d.text)


def test_tilted_labels_fit_between_their_neighbours():
    """At -45° each label's line must fit across the slanted strip between two ticks (spacing × sin 45°)."""
    words = ["▁Verantwortung", "▁Hund", "▁bellt"] * 6
    for axis_px, font in ((400, 20), (300, 12), (700, 20)):
        ticks = x_token_ticks(words, axis_px, font)
        assert ticks["tickangle"] == -45
        size = ticks.get("tickfont", {}).get("size", font)
        assert size * LINE_EM <= 0.71 * axis_px / len(words) + 1 or size == 8  # apart, down to the least font
    assert min_font(20) == 14 and min_font(12) == 8  # a slide's untilted labels never shrink under 14 px
    assert "tickfont" not in x_token_ticks(["▁a", "b"], 900, 12)  # room to spare: the figure's own font


def test_long_titles_wrap_at_their_separators_for_the_width(trace):
    title = "Cross-attention (decoder → encoder) · Layer 0 · Heads 0–3 and their mean<br>step 0: producing “Die”"
    wrapped, added = wrap_title(title, 380, 26)
    lines = wrapped.split("<br>")
    assert added == len(lines) - 2 > 0
    assert all(len(line) * TITLE_EM * 26 <= 380 for line in lines)
    assert " ".join(lines).replace("  ", " ") == title.replace("<br>", " ")  # only line breaks were added
    assert wrap_title(title, 2000, 16) == (title, 0)  # wide enough: unchanged
    # a slide look's figure is drawn as wide as a slide: its title keeps the two lines a narrow column would break
    fig = F.topk_bar(trace, 0, presentation=True)
    assert fig.layout.title.text.count("<br>") == 1
    assert wrap_title(fig.layout.title.text, 300, 26)[1] > 0


def test_japanese_and_korean_titles_wrap_by_their_wider_characters():
    """A CJK or Hangul character is about an em wide, twice an average Latin one: a title of them wraps sooner."""
    title = "クロスアテンション (デコーダ → エンコーダ) · 層 0 · ヘッド 0–3 とその平均 · ステップ 0: 「Die」を出力中"
    room = 900 / (TITLE_EM * 20)
    assert len(title) < room < sum(title_chars(title))  # counted as Latin letters it would fit on one line
    wrapped, added = wrap_title(title, 900, 20)
    assert added >= 1 and wrapped.replace("<br>", " ") == title
    assert all(sum(title_chars(line)) <= room for line in wrapped.split("<br>"))
    korean = "교차 어텐션 (디코더 → 인코더) · 층 0 · 헤드 0–3 과 그 평균 · 단계 0: 「Die」를 출력 중"
    assert (
        title_chars("층") == [2] and title_chars("a") == [1] and title_chars("<b>&amp;</b>") == [0, 0, 0, 1] + [0] * 8
    )
    assert all(sum(title_chars(line)) <= room for line in wrap_title(korean, 900, 20)[0].split("<br>"))


@pytest.mark.parametrize("panel_height", [200, 420])
def test_attention_grid_rows_are_as_tall_as_asked(trace, panel_height):
    """Each row of panels gets panel_height pixels: a taller grid grows (and scrolls in its box), never squeezes."""
    fig = F.attention_grid(trace, "cross", 0, step=1, panel_height=panel_height)
    layout = fig.layout
    plot_px = layout.height - layout.margin.t - layout.margin.b
    for name in ("yaxis", "yaxis2", "yaxis3", "yaxis4", "yaxis5"):
        low, high = layout[name].domain
        assert panel_height <= (high - low) * plot_px < 1.15 * panel_height, name  # at least as asked
    rows = len({layout[n].domain for n in ("yaxis", "yaxis2", "yaxis3", "yaxis4", "yaxis5")})
    shorter = F.attention_grid(trace, "cross", 0, step=1, panel_height=panel_height - 100)
    assert layout.height - shorter.layout.height == pytest.approx(rows * 100, abs=2)
    assert_valid_plotly(fig)


def test_the_query_panel_measures_wide_characters_as_titles_do():
    """One rule for how wide a CJK character is: the qkv panel's labels and the titles both count it twice."""
    from transformer_viz.figures.qkv import text_px

    assert text_px("층層", 10) == text_px("abcd", 10) == 2 * text_px("層", 10)
    assert sum(title_chars("층層")) == sum(title_chars("abcd"))
    assert text_px("<b>a</b>", 10) == text_px("xax", 10)  # a tag takes one character's room there
