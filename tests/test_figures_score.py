"""The score figure: a row per German piece with its probability and rank, the model's own piece where it would
have written another, unknown pieces unscored, pieces escaped, both looks, in the visitor's language."""

from __future__ import annotations

import dataclasses

import pytest

import transformer_viz.figures as F
from tests.plots import assert_valid_plotly, strings, tick_labels
from tests.test_figures_i18n import SCRIPTS, english_left, words_shown
from tests.tiny import EVIL, EVIL_ESCAPED
from transformer_viz import i18n
from transformer_viz.figures.score import FIRST_CHOICE, OTHER_CHOICE, score_figure
from transformer_viz.figures.style import esc, piece_label


@pytest.fixture(scope="module")
def score(translator):
    """A random tiny model's score of a German sentence with an unknown piece: most pieces are not its choice."""
    return translator.score("I see the house.", "ich sehe 😀 das Haus.")


def bars(fig) -> dict[str, dict[int, float]]:
    """{bar colour: {row: probability}}."""
    return {b.marker.color: dict(zip(b.y, b.x)) for b in fig.data if b.type == "bar"}


def column(fig) -> list[str]:
    """The right-hand column's texts, row by row."""
    return list(next(d for d in fig.data if d.type == "scatter" and d.mode == "text").text)


def test_each_piece_is_a_row_with_its_probability_and_rank(score):
    fig = score_figure(score)
    assert list(fig.layout.yaxis.ticktext) == tick_labels(score.german.tokens)  # </s> included, in order
    drawn = bars(fig)
    first = {r: p.prob for r, p in enumerate(score.pieces) if p.rank == 1}
    other = {r: p.prob for r, p in enumerate(score.pieces) if p.rank is not None and p.rank > 1}
    assert drawn.get(FIRST_CHOICE, {}) == pytest.approx(first) and drawn.get(OTHER_CHOICE, {}) == pytest.approx(other)
    for p, text in zip(score.pieces, column(fig)):
        if not p.unknown:
            assert f"{p.rank:,}" in text
    assert list(fig.layout.yaxis.range) == [len(score.pieces) - 0.5, -0.5]  # the first piece on top


def test_where_the_model_would_have_written_another_piece_it_says_which(score):
    fig = score_figure(score)
    diamonds = next(d for d in fig.data if d.type == "scatter" and d.mode == "markers")
    differing = [r for r, p in enumerate(score.pieces) if p.differs]
    assert differing and list(diamonds.y) == differing
    assert list(diamonds.x) == pytest.approx([score.pieces[r].model_choice["prob"] for r in differing])
    texts = column(fig)
    for r in differing:
        assert esc(piece_label(score.pieces[r].model_choice["token"])) in texts[r]
    assert all(texts[r] == f"rank {score.pieces[r].rank:,}" for r, p in enumerate(score.pieces) if p.rank == 1)


def test_a_sentence_the_model_agrees_with_has_green_bars_and_no_diamond(score):
    agreed = [
        dataclasses.replace(p, rank=1, top_k=[dict(token=p.token, id=p.id, prob=p.prob), *p.top_k[1:]])
        for p in score.pieces
        if not p.unknown
    ]
    fig = score_figure(dataclasses.replace(score, pieces=agreed))
    assert list(bars(fig)) == [FIRST_CHOICE] and not [
        d for d in fig.data if d.type == "scatter" and d.mode == "markers"
    ]
    assert column(fig) == ["rank 1"] * len(agreed)


def test_an_unknown_piece_has_no_bar_and_says_it_is_not_scored(score):
    fig = score_figure(score)
    unknown = [r for r, p in enumerate(score.pieces) if p.unknown]
    assert unknown
    assert not any(r in rows for rows in bars(fig).values() for r in unknown)
    assert all(column(fig)[r] == esc(i18n.text("fig-german-unknown")) for r in unknown)
    assert "&lt;unk&gt;" in column(fig)[unknown[0]]  # a tag to Plotly unescaped: it would vanish


def test_the_title_gives_both_sentences_total_and_mean(score):
    title = score_figure(score).layout.title.text
    for number in (score.german.total, score.german.mean, score.greedy.total, score.greedy.mean):
        assert f"{number:.2f}" in title


def test_pieces_are_shown_literally(score):
    evil = dataclasses.replace(score.pieces[0], token=EVIL, top_k=[{**score.pieces[0].top_k[0], "token": EVIL}])
    evil = dataclasses.replace(evil, rank=2)  # so that the model's own piece, EVIL too, is named in the column
    fig = score_figure(dataclasses.replace(score, pieces=[evil, *score.pieces[1:]]))
    found = list(strings(fig.to_plotly_json()))
    assert not any("<img" in s for s in found)
    assert fig.layout.yaxis.ticktext[0] == "·" + EVIL_ESCAPED  # a piece that continues a word
    assert EVIL_ESCAPED in column(fig)[0] and EVIL_ESCAPED in fig.data[-1].hovertext[0]


@pytest.mark.parametrize("presentation", [False, True])
def test_both_looks_are_valid_plotly_with_every_axis_titled(score, presentation):
    fig = score_figure(score, presentation=presentation)
    assert_valid_plotly(fig, f"score presentation={presentation}")
    layout = fig.layout
    assert layout.xaxis.title.text and layout.xaxis2.title.text and layout.yaxis.title.text
    assert layout.font.size == (20 if presentation else 12)
    if presentation:
        assert layout.paper_bgcolor == layout.plot_bgcolor == "white"
    assert F.download_name_of(fig) == "your-german-scored"
    assert layout.xaxis.domain[1] < layout.xaxis2.domain[0] and layout.xaxis2.domain[1] == 1


@pytest.mark.parametrize("lang", ["ja", "ko", "zh"])
def test_the_figure_speaks_the_visitors_language(score, lang):
    with F.language(lang):
        fig = score_figure(score)
    tokens = {esc(piece_label(token)) for p in score.pieces for token in [p.token, *(o["token"] for o in p.top_k)]}
    tokens |= {esc(token) for p in score.pieces for token in [p.token, *(o["token"] for o in p.top_k)]}
    shown = words_shown(fig)
    assert SCRIPTS[lang].search(fig.layout.title.text)
    for where in ("titles", "other"):
        left = [(text, english_left(text, tokens, lang)) for text in shown[where] if english_left(text, tokens, lang)]
        assert not left, (where, left)
    default = F.figure_json(score_figure(score))
    with F.language("en"):
        assert F.figure_json(score_figure(score)) == default  # English is the default


def test_the_figure_speaks_german_in_its_own_words(score):
    """German shares English's letters: the title, the axes, the legend and the right-hand column are the German
    catalogue's, not English copied across."""

    def words(fig) -> list[str]:
        layout = fig.layout
        axes = [layout.xaxis.title.text, layout.xaxis2.title.text, layout.yaxis.title.text]
        return [layout.title.text, *axes, *(d.name for d in fig.data if d.showlegend is not False), *column(fig)]

    english = score_figure(score)
    with F.language("de"):
        german = score_figure(score)
    assert [(e, g) for e, g in zip(words(english), words(german), strict=True) if e == g] == []
    assert german.layout.title.text.startswith(
        i18n.text("fig-german-title", "de", total=0, mean=0, greedy_total=0, greedy_mean=0)[:12]
    )
