"""A German sentence scored piece by piece (score.Score): how likely the model found each piece, its rank, and
where the model would have written something else, and what.

One row per German piece, its </s> included, top to bottom. Left: a bar of p(y_t | source, y_<t), green where the
piece was the model's first choice, vermillion where another piece was more likely, with a diamond at that piece's
probability. Right: the piece's rank in the whole vocabulary and, where it is not 1, the model's own piece there.
An <unk> piece has no bar: it is flagged, not scored. Pieces are user text: every label is escaped.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ..score import PieceScore, Score
from .attention import axis_title
from .labels import CHAR_EM, title_chars
from .style import OKABE_ITO, esc, finish, piece_label, style, token_ticks
from .words import t

SCORE_PX = 1100  # about how wide the page draws the score: a whole tab
FIRST_CHOICE = OKABE_ITO["bluish_green"]  # the model's first choice
OTHER_CHOICE = OKABE_ITO["vermillion"]  # another piece was more likely
MODEL_CHOICE = OKABE_ITO["black"]  # the diamond: what the model would have written
DOWNLOAD = "your-german-scored"
BAR_WIDTH = 0.7  # of a row


def piece(token: str) -> str:
    """A piece as the figure shows it: as the tick labels read it, escaped."""
    return esc(piece_label(token))


def rank_text(p: PieceScore) -> str:
    """The right-hand column's text for a piece: its rank, and the model's own piece where it differs."""
    if p.unknown:
        return esc(t("german-unknown"))
    if not p.differs:
        return t("german-rank", rank=p.rank)
    first = p.model_choice
    return t("german-instead", rank=p.rank, token=piece(first["token"]), prob=first["prob"])


def piece_hover(p: PieceScore, vocab_size: int) -> str:
    """A row's hover: the piece's numbers and the model's top pieces there."""
    top = ", ".join(f"{piece(o['token'])} {o['prob']:.1%}" for o in p.top_k)
    if p.unknown:
        numbers = esc(t("german-unknown"))
    else:
        numbers = t("german-hover", prob=p.prob, log_prob=p.log_prob, rank=p.rank, vocab=vocab_size)
    return f"{p.index}: {piece(p.token)}<br>{numbers}<br>{t('german-top', k=len(p.top_k), pieces=top)}"


def score_figure(score: Score, presentation: bool = False, width: float = SCORE_PX) -> go.Figure:
    """Each German piece's probability (bars) and rank, the model's own piece where it would have written another."""
    st = style(presentation)
    hovers = [piece_hover(p, score.vocab_size) for p in score.pieces]
    texts = [rank_text(p) for p in score.pieces]
    data = [*probability_bars(score.pieces, hovers), *model_choices(score.pieces, hovers, st.font_size)]
    data.append(rank_column(texts, hovers))
    plot_px = width - 80 - CHAR_EM * st.font_size * max(len(piece_label(p.token)) for p in score.pieces)  # less ticks
    column = max(sum(title_chars(text)) for text in texts) * CHAR_EM * st.font_size + 16  # the widest text, in px
    split = min(0.6, max(0.3, 1 - column / plot_px))  # where the bars end and the column starts
    n = len(score.pieces)
    layout = dict(
        xaxis=dict(
            domain=[0, split - 0.07],  # room between the two for the last tick label and the titles,
            range=[0, 1],
            tickformat=".0%",
            showgrid=True,
            gridcolor="#E0E0E0",
            title=dict(text=axis_title(t("german-prob-axis"))),
        ),
        xaxis2=dict(
            domain=[split, 1],
            range=[0, 1],
            anchor="y",
            showline=False,
            showticklabels=False,
            title=dict(text=axis_title(t("german-rank-axis"))),
        ),
        # the first piece on top; a range of its own, as Plotly's would pad the diamonds' rows
        yaxis=dict(
            **token_ticks([p.token for p in score.pieces]),
            range=[n - 0.5, -0.5],
            title=dict(text=axis_title(t("german-piece-axis") + "\n" + t("pieces-note"))),
        ),
        barmode="overlay",
        bargap=0.25,
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
    )
    german, greedy = score.german, score.greedy
    title = t("german-title", total=german.total, mean=german.mean, greedy_total=greedy.total, greedy_mean=greedy.mean)
    height = max(300, 1.6 * st.row_px * n) + 160 + 4 * st.font_size
    return finish(data, layout, st, title, height, DOWNLOAD, width=width)


def probability_bars(pieces: list[PieceScore], hovers: list[str]) -> list[dict]:
    """A bar of each scored piece's probability: one trace for the model's first choices, one for the others."""
    bars = []
    for differs, name, colour in ((False, t("german-first"), FIRST_CHOICE), (True, t("german-other"), OTHER_CHOICE)):
        rows = [r for r, p in enumerate(pieces) if not p.unknown and p.differs == differs]
        if rows:
            bars.append(
                dict(
                    type="bar",
                    x=[pieces[r].prob for r in rows],
                    y=rows,
                    orientation="h",
                    width=BAR_WIDTH,  # Plotly would size a bar by the gap to its trace's next row: rows skip
                    name=name,
                    marker=dict(color=colour),
                    hovertext=[hovers[r] for r in rows],
                    hovertemplate="%{hovertext}<extra></extra>",
                )
            )
    return bars


def model_choices(pieces: list[PieceScore], hovers: list[str], font_size: int) -> list[dict]:
    """A diamond at the probability of the model's own piece, on each row where it would have written another."""
    rows = [r for r, p in enumerate(pieces) if p.differs]
    if not rows:
        return []
    marker = dict(symbol="diamond", size=font_size, color=MODEL_CHOICE)
    return [
        dict(
            type="scatter",
            mode="markers",
            x=[pieces[r].model_choice["prob"] for r in rows],
            y=rows,
            name=t("german-model-choice"),
            marker=marker,
            hovertext=[hovers[r] for r in rows],
            hovertemplate="%{hovertext}<extra></extra>",
        )
    ]


def rank_column(texts: list[str], hovers: list[str]) -> dict:
    """The right-hand column: each piece's rank, and the model's own piece where it differs."""
    return dict(
        type="scatter",
        mode="text",
        x=[0] * len(texts),
        y=list(range(len(texts))),
        text=texts,
        textposition="middle right",
        cliponaxis=False,
        showlegend=False,
        xaxis="x2",
        hovertext=hovers,
        hovertemplate="%{hovertext}<extra></extra>",
    )
