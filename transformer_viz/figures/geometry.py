"""Where one head's queries and keys lie (the PCA plane of lab.geometry), and each source piece's nearest pieces.

The plane: queries as circles, keys as diamonds, each labelled with its token; a line runs from every query to
the key it gives the most weight. The labels are placed apart (point_labels.py): a query's above it where there is
room, a key's below it, else beside or on the other side; one with no room anywhere is left to its point's hover.
The neighbours: one row per source piece, its nearest pieces in the shared embedding from left to right, coloured
and labelled by their cosine.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..lab.geometry import Neighbours, QueryKeyPlane, query_key_plane
from ..trace import Trace
from .attention import head_label, kind_name
from .labels import min_font
from .point_labels import Canvas, Placed, PointSet, place_labels, preferences
from .style import (
    CATEGORICAL,
    CHAR_EM,
    LINE_EM,
    WEIGHTS_SCALE,
    colorbar,
    colorscale,
    download_name,
    esc,
    finish,
    piece_label,
    style,
    tick_font,
    token_ticks,
)
from .words import t

PAD = 0.15  # of the points' spread, left free around them for the labels
WIDER = 1.3  # the page may draw the plane this much wider than it was built for (a wider window, a slide's download)
AUTOMARGIN_EM = 3  # and Plotly's automargin may take this many ems of its width and height (ticks, titles, legend)


def padded_range(values: np.ndarray) -> list[float]:
    low, high = float(np.min(values)), float(np.max(values))
    room = max(high - low, 1e-6) * PAD
    return [low - room, high + room]


def marker_px(st) -> float:
    """A point's marker size (its diameter) in pixels."""
    return 2 * st.line_width + 6


def points(xy: np.ndarray, tokens: list[str], name: str, colour: str, symbol: str, st) -> dict:
    """One set of labelled points (queries or keys); where their labels go is settled by placed_labels."""
    return dict(
        type="scatter",
        mode="markers+text",
        x=xy[:, 0],
        y=xy[:, 1],
        text=[esc(piece_label(token)) for token in tokens],
        textfont=dict(size=st.font_size, color=colour),
        marker=dict(color=colour, size=marker_px(st), symbol=symbol),
        name=name,
        hovertemplate=f"{name} %{{customdata[0]}}: %{{text}}<br>(%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
    )


def shown_labels(placed: Placed, above: bool) -> dict:
    """A trace's label settings: each point's place and text (none where it has no place, "</s> ×2" where one
    label stands for two points), and in its hover the numbers of every point drawn there ("queries 4, 6: </s>")."""
    texts = []
    for place, together in zip(placed.places, placed.together):
        many = len(together) > 1
        texts.append("" if place is None else t("same-place", n=len(together)) if many else "%{text}")
    return dict(
        texttemplate=texts,
        textposition=[place or preferences(above)[0] for place in placed.places],
        customdata=[[", ".join(str(i) for i in together)] for together in placed.together],
    )


def placed_labels(fig: go.Figure, sets: list[PointSet], width: float, st) -> list[dict]:
    """Each point set's label settings (shown_labels), placed in the finished figure's plot area: `width` less its
    margins, and up to WIDER times as wide, less what automargin may take."""
    layout, font = fig.layout, st.font_size
    plot_w = width - layout.margin.l - layout.margin.r
    plot_h = layout.height - layout.margin.t - layout.margin.b
    smallest = (plot_w - AUTOMARGIN_EM * font, plot_h - AUTOMARGIN_EM * font)
    largest = (WIDER * width - layout.margin.l - layout.margin.r, plot_h)
    canvas = Canvas(tuple(layout.xaxis.range), tuple(layout.yaxis.range), (smallest, largest), font, marker_px(st))
    return [shown_labels(placed, s.above) for placed, s in zip(place_labels(sets, canvas), sets)]


def strongest_lines(plane: QueryKeyPlane, st) -> dict:
    """One line trace from each query to its strongest key (None between segments: gaps)."""
    xs, ys = [], []
    for q, key in enumerate(plane.strongest):
        xs += [plane.queries[q, 0], plane.keys[key, 0], None]
        ys += [plane.queries[q, 1], plane.keys[key, 1], None]
    return dict(
        type="scatter",
        mode="lines",
        x=xs,
        y=ys,
        line=dict(color="#999999", width=max(1.0, st.line_width / 2)),
        name=t("strongest-key"),
        hoverinfo="skip",
    )


def query_key_figure(
    trace: Trace, kind: str, layer: int, head: int, presentation: bool = False, width: float = 900
) -> go.Figure:
    """Head `head` of layer `layer`: its queries and keys in their first two principal components."""
    plane = query_key_plane(trace, kind, layer, head)
    st = style(presentation)
    data = [
        strongest_lines(plane, st),
        points(plane.keys, plane.key_tokens, t("keys"), CATEGORICAL[1], "diamond", st),
        points(plane.queries, plane.query_tokens, t("queries"), CATEGORICAL[0], "circle", st),
    ]
    everything = np.concatenate([plane.queries, plane.keys])
    axes = [
        dict(
            range=padded_range(everything[:, i]),
            zeroline=True,
            zerolinecolor="#DDDDDD",
            title=dict(text=t("pc-axis", n=i + 1, share=100 * plane.explained[i])),
        )
        for i in (0, 1)
    ]
    layout = dict(
        xaxis=axes[0],
        yaxis=axes[1],
        showlegend=True,
        legend=dict(orientation="h", x=0, xanchor="left", y=-0.18, yanchor="top"),
        margin=dict(b=80 + 3 * st.font_size),
    )
    title = t("geometry-title", kind=kind_name(kind), layer=layer, head=head_label(head, trace.n_heads))
    height = 2 * st.panel_px + 160 + 4 * st.font_size
    name = download_name(f"{kind.replace('_', '-')}-query-key-plane", layer, head)
    fig = finish(data, layout, st, title, height, name, width=width)
    keys, queries = fig.data[1:]
    sets = [  # the queries' labels placed first, above them where there is room; the keys' below them
        PointSet(plane.queries, list(queries.text), above=True),
        PointSet(plane.keys, list(keys.text), above=False),
    ]
    for points_trace, labels in zip((queries, keys), placed_labels(fig, sets, width, st)):
        points_trace.update(labels)
    return fig


def neighbours_figure(neighbours: Neighbours, presentation: bool = False, width: float = 1000) -> go.Figure:
    """Rows: the sentence's source pieces; columns: their nearest pieces, nearest first; colour: the cosine."""
    st = style(presentation)
    n_rows, k = neighbours.cosines.shape
    labels = [[esc(piece_label(p)) for p in row] for row in neighbours.pieces]
    longest = max([len(piece_label(p)) for row in neighbours.pieces for p in row] + [4])
    cell_px = (width - 260) / max(k, 1)  # less the row labels and the colour bar
    font = int(max(min_font(st.font_size), min(st.font_size, cell_px / (CHAR_EM * longest))))
    row_px = max(st.row_px * 1.6, 2 * LINE_EM * font + 8)
    rows = list(zip(labels, neighbours.cosines))
    text = [[f"{label}<br>{c:.2f}" for label, c in zip(row, cos)] for row, cos in rows]
    data = [
        dict(
            type="heatmap",
            z=neighbours.cosines.astype(np.float32),
            zmin=0,
            zmax=1,
            colorscale=colorscale(WEIGHTS_SCALE),
            colorbar=colorbar(t("cosine"), presentation),
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=font),
            hovertext=[[f"{label} · cos {c:.3f}" for label, c in zip(row, cos)] for row, cos in rows],
            hovertemplate="%{y} → %{hovertext}<extra></extra>",
            xgap=2,
            ygap=2,
        )
    ]
    layout = dict(
        xaxis=dict(
            tickvals=list(range(k)),
            ticktext=[t("neighbour-rank", n=i + 1) for i in range(k)],
            title=dict(text=t("neighbours-axis")),
        ),
        yaxis=dict(
            **token_ticks(neighbours.tokens),
            autorange="reversed",
            title=dict(text=t("source-piece")),
            **tick_font(n_rows, n_rows * row_px, st.font_size),
        ),
    )
    title = t("neighbours-title", k=k)
    height = n_rows * row_px + 200 + 5 * st.font_size
    return finish(data, layout, st, title, max(height, 300), "embedding-neighbours", width=width)
