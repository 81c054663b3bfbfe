"""Positional encodings: any (P, D) table, the sinusoidal one of sec. 3.5 or a learned nn.Embedding's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .style import (
    CATEGORICAL,
    DIVERGING_SCALE,
    colorbar,
    colorscale,
    esc,
    finish,
    piece_label,
    style,
    symmetric_range,
    token_ticks,
    x_token_ticks,
)
from .words import t


def as_table(pe) -> np.ndarray:
    """The table as a float (P, D) numpy array (anything with __array__, e.g. a CPU tensor, works)."""
    table = np.asarray(pe, dtype=np.float32)
    if table.ndim != 2 or 0 in table.shape:
        raise ValueError(f"a positional encoding table must be (positions, dimensions), got shape {table.shape}")
    return table


def position_labels(n: int, tokens: Sequence[str] | None) -> list[str] | None:
    """ "p token" for each position when the tokens at those positions are given (as piece_label shows them)."""
    if tokens is None:
        return None
    if len(tokens) != n:
        raise ValueError(f"got {len(tokens)} tokens for {n} positions")
    return [f"{p} {piece_label(token)}" for p, token in enumerate(tokens)]


def position_ticks(n: int, tokens: Sequence[str] | None) -> dict:
    """Position numbers, or "p token" when the tokens at those positions are given."""
    labels = position_labels(n, tokens)
    return dict(tickmode="auto") if labels is None else token_ticks(labels, pieces=False)


def positional_heatmap(
    pe, tokens: Sequence[str] | None = None, title: str | None = None, presentation: bool = False
) -> go.Figure:
    """Positions (rows, 0 at the top) × dimensions (columns), blue > 0 > red, centred on 0.

    `title` defaults to "Positional encoding" in the figures' language."""
    table, st = as_table(pe), style(presentation)
    title = t("pe-title") if title is None else title
    limit = symmetric_range(table)
    heatmap = dict(
        type="heatmap",
        z=table,
        colorscale=colorscale(DIVERGING_SCALE),
        zmid=0,
        zmin=-limit,
        zmax=limit,
        name="PE",
        colorbar=colorbar(t("value"), presentation),
        hovertemplate=t("pe-hover") + "<extra></extra>",
    )
    layout = dict(
        xaxis=dict(title=dict(text=t("dimension-i"))),
        yaxis=dict(title=dict(text=t("position")), autorange="reversed", **position_ticks(len(table), tokens)),
    )
    height = max(1.4 * st.panel_px, st.row_px * len(table)) + 160 + 3 * st.font_size
    return finish([heatmap], layout, st, esc(title), height, "positional-encodings")


def default_dims(n_dims: int) -> list[int]:
    """Two fast pairs and the slowest pair: sin/cos at dims 2k, 2k+1 share frequency 1/10000^(2k/D)."""
    return sorted({d for d in (0, 1, 4, 5, n_dims - 2, n_dims - 1) if 0 <= d < n_dims})


def positional_curves(
    pe, dims: Sequence[int] | None = None, presentation: bool = False, title: str | None = None
) -> go.Figure:
    """The value of chosen dimensions along the positions, one line per dimension ("dim i").

    `title` defaults to "Positional encoding: value against position" in the figures' language."""
    table, st = as_table(pe), style(presentation)
    title = t("curves-title") if title is None else title
    dims = default_dims(table.shape[1]) if dims is None else list(dims)
    bad = [d for d in dims if not 0 <= d < table.shape[1]]
    if bad:
        raise ValueError(f"dims must be in 0..{table.shape[1] - 1}, got {bad}")
    positions = np.arange(len(table))
    data = []
    for n, d in enumerate(dims):
        data.append(
            dict(
                type="scatter",
                x=positions,
                y=table[:, d],
                mode="lines+markers",
                name=t("dim", d=d),
                line=dict(
                    color=CATEGORICAL[n % len(CATEGORICAL)],
                    width=st.line_width,
                    dash=("solid", "dash", "dot", "dashdot")[(n // len(CATEGORICAL)) % 4],
                ),
                marker=dict(size=2 + 2 * st.line_width),
                hovertemplate=t("curve-hover", d=d) + "<extra></extra>",
            )
        )
    layout = dict(
        xaxis=dict(title=dict(text=t("position")), showgrid=True, gridcolor="#E0E0E0"),
        yaxis=dict(
            title=dict(text=t("value")), showgrid=True, gridcolor="#E0E0E0", zeroline=True, zerolinecolor="#999999"
        ),
        legend=dict(title=dict(text=t("dimension"))),
    )
    return finish(data, layout, st, esc(title), 380 + 8 * st.font_size, "positional-encoding-curves")


def cosine_similarity(table: np.ndarray) -> np.ndarray:
    """(P, P) cosine similarity between the rows; an all-zero row is similar to nothing (0)."""
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    unit = np.divide(table, norms, out=np.zeros_like(table), where=norms > 0)
    return np.clip(unit @ unit.T, -1.0, 1.0)


def position_similarity(
    pe, tokens: Sequence[str] | None = None, presentation: bool = False, title: str | None = None
) -> go.Figure:
    """cos(PE_i, PE_j) for every pair of positions: near positions look alike, the diagonal is 1.

    `title` defaults to "Cosine similarity between positional encodings" in the figures' language."""
    table, st = as_table(pe), style(presentation)
    title = t("similarity-title") if title is None else title
    heatmap = dict(
        type="heatmap",
        z=cosine_similarity(table),
        colorscale=colorscale(DIVERGING_SCALE),
        zmid=0,
        zmin=-1,
        zmax=1,
        name=t("cosine"),
        colorbar=colorbar(t("cosine"), presentation),
        hovertemplate=t("cosine-hover") + "<extra></extra>",
    )
    ticks, labels = position_ticks(len(table), tokens), position_labels(len(table), tokens)
    x_ticks = ticks if labels is None else x_token_ticks(labels, 900, st.font_size, pieces=False)
    layout = dict(
        xaxis=dict(title=dict(text=t("position")), **x_ticks),
        yaxis=dict(title=dict(text=t("position")), autorange="reversed", scaleanchor="x", **ticks),
    )
    height = max(1.6 * st.panel_px, st.row_px * len(table)) + 160 + 3 * st.font_size
    return finish([heatmap], layout, st, esc(title), height, "positional-encoding-similarity")
