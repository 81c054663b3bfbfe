"""Cross-attention as lines: source tokens on the left, target tokens on the right, one line per weight."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace
from .attention import check_step, head_label, head_matrix, step_suffix
from .style import CATEGORICAL, HIGHLIGHT, download_name, esc, finish, piece_label, style
from .words import t


def alignment(
    trace: Trace,
    layer: int,
    head: int | str = "mean",
    step: int | None = None,
    presentation: bool = False,
    threshold: float = 0.05,
) -> go.Figure:
    """Source tokens on the left, target tokens on the right, a line for every cross-attention weight ≥ threshold.

    Line width and opacity grow with the weight; the current step's lines are drawn in the highlight colour.
    Weights are binned into ten levels so a figure has at most twenty line traces, whatever the lengths.
    """
    check_step(trace, step)
    st = style(presentation)
    weights = head_matrix(trace, "cross", layer, head)  # (T, S)
    n_tgt, n_src = weights.shape
    span = max(n_tgt, n_src) - 1 or 1
    y_src = np.linspace(0, span, n_src) if n_src > 1 else np.array([span / 2])
    y_tgt = np.linspace(0, span, n_tgt) if n_tgt > 1 else np.array([span / 2])
    y_src, y_tgt = np.round(y_src, 3).tolist(), np.round(y_tgt, 3).tolist()  # plain floats, short in the JSON
    data = []
    targets, sources = np.nonzero(weights >= threshold)  # one line each
    levels = np.minimum((weights[targets, sources] * 10).astype(int), 9)  # 0.05–0.1 → level 0, …, 0.9–1 → level 9
    at_step = targets == step if step is not None else np.zeros(targets.shape, bool)
    for current in (False, True):
        for level in range(10):
            chosen = np.flatnonzero((levels == level) & (at_step == current))
            if not chosen.size:
                continue
            segments_x = [0, 1, None] * chosen.size  # source → target, then a gap
            segments_y = [
                y
                for t, s in zip(targets[chosen].tolist(), sources[chosen].tolist())
                for y in (y_src[s], y_tgt[t], None)
            ]
            strength = (level + 1) / 10
            if current:  # the step being produced: strong colour, never faint
                colour, width, opacity = HIGHLIGHT, 0.8 + 3.0 * strength, 0.55 + 0.45 * strength
            else:  # the other steps: fainter still while a step is selected
                colour, width, opacity = CATEGORICAL[0], 0.3 + 2.5 * strength, 0.15 + 0.85 * strength
                opacity *= 0.4 if step is not None else 1.0
            data.append(
                dict(
                    type="scatter",
                    x=segments_x,
                    y=segments_y,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    name=(
                        t("align-step", step=step, level=max(threshold, level / 10))
                        if current
                        else t("align-weights", level=max(threshold, level / 10))
                    ),
                    line=dict(color=colour, width=st.line_width * width),
                    opacity=opacity,
                )
            )
    for x, ys, tokens, side, position in (
        (0, y_src, trace.source_tokens, "source", "middle left"),
        (1, y_tgt, trace.target_tokens, "target", "middle right"),
    ):
        colours = [HIGHLIGHT if side == "target" and i == step else "#222222" for i in range(len(tokens))]
        data.append(
            dict(
                type="scatter",
                x=[x] * len(tokens),
                y=ys,
                mode="markers+text",
                text=[esc(piece_label(token)) for token in tokens],
                textposition=position,
                textfont=dict(size=st.font_size, color=colours),
                marker=dict(size=st.font_size * 0.5, color=colours),
                hovertext=[t("side-" + side, i=i, token=esc(token)) for i, token in enumerate(tokens)],
                hoverinfo="text",
                showlegend=False,
                name=t(side + "-tokens"),
            )
        )
    layout = dict(
        xaxis=dict(
            range=[-0.6, 1.6],
            tickvals=[0, 1],
            ticktext=[t("source-keys"), t("target-queries")],
            side="top",
            showline=False,
        ),
        yaxis=dict(visible=False, autorange="reversed"),
        plot_bgcolor="white",
    )
    title = t("alignment-title", layer=layer, head=head_label(head, trace.n_heads)) + step_suffix(trace, "cross", step)
    height = max(400, st.row_px * 1.4 * (span + 1)) + 150
    return finish(data, layout, st, title, height, download_name("cross-attention-alignment", layer, head, step))
