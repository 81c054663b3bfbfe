"""Cross-attention as lines: source tokens on the left, target tokens on the right, one line per weight."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace
from .attention import check_step, head_label, head_matrix, step_suffix
from .style import CATEGORICAL, HIGHLIGHT, Style, download_name, esc, finish, style
from .units import MapAxes, map_axes
from .words import t


def alignment(
    trace: Trace,
    layer: int,
    head: int | str = "mean",
    step: int | None = None,
    presentation: bool = False,
    threshold: float = 0.05,
    units: str = "pieces",
) -> go.Figure:
    """Source tokens on the left, target tokens on the right, a line for every cross-attention weight ≥ threshold.

    Line width and opacity grow with the weight; the current step's lines are drawn in the highlight colour.
    Weights are binned into ten levels so a figure has at most twenty line traces, whatever the lengths.
    units="words": source and target words, as attention_grid merges them (figures/units.py); the step's
    lines are those of the target word that holds token `step`.
    """
    check_step(trace, step)
    st = style(presentation)
    ax = map_axes(trace.target_tokens, trace.source_tokens, units)
    weights = ax.weights(head_matrix(trace, "cross", layer, head))  # (T, S), or (target words, source words)
    row = ax.row(step)
    span, y_src, y_tgt = token_heights(*weights.shape)
    data = weight_lines(weights, y_src, y_tgt, row, threshold, st) + token_columns(ax, y_src, y_tgt, row, st)
    title = t("alignment-title", layer=layer, head=head_label(head, trace.n_heads)) + ax.suffix()
    title += step_suffix(trace, "cross", step)
    height = max(400, st.row_px * 1.4 * (span + 1)) + 150
    name = download_name(ax.named("cross-attention-alignment"), layer, head, step)
    return finish(data, alignment_layout(), st, title, height, name)


def token_heights(n_tgt: int, n_src: int) -> tuple[int, list[float], list[float]]:
    """The span of the y axis and the source and target tokens' heights, both columns spread over all of it."""
    span = max(n_tgt, n_src) - 1 or 1
    y_src = np.linspace(0, span, n_src) if n_src > 1 else np.array([span / 2])
    y_tgt = np.linspace(0, span, n_tgt) if n_tgt > 1 else np.array([span / 2])
    return span, np.round(y_src, 3).tolist(), np.round(y_tgt, 3).tolist()  # plain floats, short in the JSON


def weight_lines(
    weights: np.ndarray, y_src: list[float], y_tgt: list[float], step: int | None, threshold: float, st: Style
) -> list[dict]:
    """The line traces: a segment per weight ≥ threshold, one trace per weight level, the current step's last."""
    data = []
    targets, sources = np.nonzero(weights >= threshold)  # one line each
    levels = np.minimum((weights[targets, sources] * 10).astype(int), 9)  # 0.05–0.1 → level 0, …, 0.9–1 → level 9
    at_step = targets == step if step is not None else np.zeros(targets.shape, bool)
    for current in (False, True):
        for level in range(10):
            chosen = np.flatnonzero((levels == level) & (at_step == current))
            if not chosen.size:
                continue
            segments_y = [  # source → target, then a gap
                y
                for tgt, src in zip(targets[chosen].tolist(), sources[chosen].tolist())
                for y in (y_src[src], y_tgt[tgt], None)
            ]
            colour, width, opacity = line_look(level, current, step)
            data.append(
                dict(
                    type="scatter",
                    x=[0, 1, None] * chosen.size,
                    y=segments_y,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    name=line_name(level, current, step, threshold),
                    line=dict(color=colour, width=st.line_width * width),
                    opacity=opacity,
                )
            )
    return data


def line_look(level: int, current: bool, step: int | None) -> tuple[str, float, float]:
    """A weight level's colour, width (before the look's line width) and opacity."""
    strength = (level + 1) / 10
    if current:  # the step being produced: strong colour, never faint
        return HIGHLIGHT, 0.8 + 3.0 * strength, 0.55 + 0.45 * strength
    faint = 0.4 if step is not None else 1.0  # the other steps: fainter still while a step is selected
    return CATEGORICAL[0], 0.3 + 2.5 * strength, (0.15 + 0.85 * strength) * faint


def line_name(level: int, current: bool, step: int | None, threshold: float) -> str:
    """A line trace's name: the lowest weight it draws, and the step when it draws the current one."""
    lowest = max(threshold, level / 10)
    return t("align-step", step=step, level=lowest) if current else t("align-weights", level=lowest)


def token_columns(ax: MapAxes, y_src: list[float], y_tgt: list[float], row: int | None, st: Style) -> list[dict]:
    """The two token columns as labelled markers, sources on the left, targets on the right (row `row` highlighted).

    `ax`'s queries are the target tokens (or words), its keys the source's; the hover names each as it is."""
    data = []
    for x, ys, tokens, labels, side, position in (
        (0, y_src, ax.keys, ax.key_labels, "source", "middle left"),
        (1, y_tgt, ax.queries, ax.query_labels, "target", "middle right"),
    ):
        colours = [HIGHLIGHT if side == "target" and i == row else "#222222" for i in range(len(tokens))]
        data.append(
            dict(
                type="scatter",
                x=[x] * len(tokens),
                y=ys,
                mode="markers+text",
                text=[esc(label) for label in labels],
                textposition=position,
                textfont=dict(size=st.font_size, color=colours),
                marker=dict(size=st.font_size * 0.5, color=colours),
                hovertext=[t("side-" + side, i=i, token=esc(label)) for i, label in enumerate(labels)],
                hoverinfo="text",
                showlegend=False,
                name=t(side + "-tokens"),
            )
        )
    return data


def alignment_layout() -> dict:
    """The layout: the two columns' names on top, no y axis, tokens top-down, on white."""
    return dict(
        xaxis=dict(
            range=[-0.6, 1.6],
            tickvals=[0, 1],
            ticktext=[t("source-keys"), t("target-queries")],
            side="top",
            showline=False,
        ),
        yaxis=dict(visible=False, autorange="reversed"),
        plot_bgcolor="white",
        margin=dict(b=12),  # nothing under the last token
    )
