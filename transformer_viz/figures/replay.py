"""Training replay: one translation through the snapshots of its run (the numbers come from lab.replay).

`replay` is a lab.replay.Replay or anything with its fields: steps (N,), valid_loss (N,), probs (N, T),
cross (N, L, H, T, S) and curve {step, train_loss, valid_loss}. `index` picks the snapshot shown, 0..N−1.
The cross-attention grid and the head summary are the ordinary figures, drawn on the trace with the snapshot's
patterns in place of the final model's; the probabilities and the learning curve mark the snapshot.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace
from .attention import attention_grid, axis_title, query_axis_title
from .heads import SUMMARY_PX, head_summary_figure
from .labels import title_pad, title_room
from .style import (
    CATEGORICAL,
    HIGHLIGHT,
    WEIGHTS_SCALE,
    colorbar,
    colorscale,
    download_name,
    finish,
    style,
    tick_font,
    token_ticks,
    wrap_title,
    x_token_ticks,
)
from .words import t


def check_index(replay, index: int) -> int:
    if not isinstance(index, (int, np.integer)) or not 0 <= index < len(replay.steps):
        raise ValueError(f"snapshot must be in 0..{len(replay.steps) - 1}, got {index!r}")
    return int(index)


def snapshot_trace(trace: Trace, replay, index: int) -> Trace:
    """The trace with snapshot `index`'s cross-attention in place of the final model's."""
    index = check_index(replay, index)
    cross = np.asarray(replay.cross[index], dtype=np.float32)
    if cross.shape != trace.attention["cross"].shape:
        raise ValueError("this replay was made for another translation or model")
    return replace(trace, attention={**trace.attention, "cross": cross})


def snapshot_line(replay, index: int) -> str:
    """'at training step 18 (snapshot 2 of 4, validation loss 4.31)'."""
    return t(
        "replay-at",
        step=replay.steps[index],
        n=index + 1,
        total=len(replay.steps),
        loss=float(replay.valid_loss[index]),
    )


def with_title_line(fig: go.Figure, line: str, presentation: bool, width: float) -> go.Figure:
    """`fig` (drawn about `width` px wide) with `line` under its title, wrapped to that width; the top margin and
    the height grown by the lines it takes."""
    size = style(presentation).title_size
    line, added = wrap_title(line, width, size)
    title = f"{fig.layout.title.text}<br>{line}"
    extra = int(title_room(title, size, 0) - title_room(fig.layout.title.text, size, 0) + 1)
    fig.layout.title.update(text=title, pad=dict(t=title_pad(title, size)))  # hung as finish hangs a title
    fig.layout.margin.t += extra
    fig.layout.height += extra
    return fig


def step_ticks(steps: list[int], axis_px: float, font_size: int) -> dict:
    """An x axis labelled with the snapshots' training steps at positions 0..N−1."""
    return x_token_ticks([str(s) for s in steps], axis_px, font_size, pieces=False)


def replay_probs_figure(trace: Trace, replay, index: int, presentation: bool = False, width: float = 600) -> go.Figure:
    """Rows: the final translation's tokens (steps); columns: the snapshots by training step; colour: p(token)."""
    index = check_index(replay, index)
    st = style(presentation)
    probs = np.asarray(replay.probs, dtype=np.float32).T  # (T, N)
    n_rows, n_cols = probs.shape
    panel = max(st.panel_px, st.row_px * n_rows)
    data = [
        dict(
            type="heatmap",
            z=probs,
            zmin=0,
            zmax=1,
            colorscale=colorscale(WEIGHTS_SCALE),
            colorbar=colorbar(t("probability"), presentation),
            xgap=1,
            ygap=1,
            hovertemplate=t("replay-prob-hover") + "<extra></extra>",
        )
    ]
    outline = dict(
        type="rect",
        x0=index - 0.5,
        x1=index + 0.5,
        y0=-0.5,
        y1=n_rows - 0.5,
        line=dict(color=HIGHLIGHT, width=st.line_width),
        fillcolor="rgba(0,0,0,0)",
    )
    layout = dict(
        xaxis=dict(**step_ticks(replay.steps, width - 200, st.font_size), title=dict(text=t("training-step"))),
        yaxis=dict(
            **token_ticks(trace.target_tokens),
            autorange="reversed",
            title=dict(text=axis_title(query_axis_title("cross"))),
            **tick_font(n_rows, panel, st.font_size),
        ),
        shapes=[outline],
    )
    title = t("replay-probs-title") + "<br>" + snapshot_line(replay, index)
    height = panel + 160 + 4 * st.font_size
    name = f"token-probabilities-along-training_training-step-{replay.steps[index]}"
    return finish(data, layout, st, title, height, name, width=width)


def loss_curve_figure(replay, index: int, presentation: bool = False, width: float = 600) -> go.Figure:
    """The run's training and validation loss against the step (log scale), the snapshots as points, one marked."""
    index = check_index(replay, index)
    st = style(presentation)
    curve = replay.curve
    data = []
    for name, colour in (("train_loss", CATEGORICAL[1]), ("valid_loss", CATEGORICAL[0])):
        if curve.get("step"):
            data.append(
                dict(
                    type="scatter",
                    mode="lines",
                    x=list(curve["step"]),
                    y=list(curve[name]),
                    name=t(name.replace("_", "-")),
                    line=dict(color=colour, width=st.line_width),
                    hovertemplate=t("loss-hover") + "<extra></extra>",
                )
            )
    data.append(
        dict(
            type="scatter",
            mode="markers",
            x=list(replay.steps),
            y=[float(v) for v in replay.valid_loss],
            name=t("snapshots"),
            marker=dict(color=CATEGORICAL[2], size=2.5 * st.line_width + 4, symbol="diamond"),
            hovertemplate=t("loss-hover") + "<extra></extra>",
        )
    )
    chosen = replay.steps[index]
    mark = dict(
        type="line",
        x0=chosen,
        x1=chosen,
        xref="x",
        y0=0,
        y1=1,
        yref="paper",
        line=dict(color=HIGHLIGHT, width=st.line_width, dash="dot"),
    )
    layout = dict(
        xaxis=dict(type="log", title=dict(text=t("training-step-log"))),
        yaxis=dict(title=dict(text=t("loss"))),
        shapes=[mark],
        showlegend=True,
        # the legend over the plot (finish leaves it room under the title), not under the step axis's title: there
        # it left a blank band of 10% of the figure between the two
        legend=dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom"),
        margin=dict(b=40 + 2 * st.font_size),
    )
    title = t("loss-title") + "<br>" + snapshot_line(replay, index)
    height = 1.3 * st.panel_px + 150 + 3 * st.font_size
    return finish(data, layout, st, title, height, f"learning-curve_training-step-{chosen}", width=width)


def replay_figures(
    trace: Trace, replay, index: int, layer: int = 0, presentation: bool = False, width: float = 1000
) -> dict[str, go.Figure]:
    """The replay tab's figures at snapshot `index`: "grid" (cross-attention of `layer`), "heads" (the head
    summary's labels), "probs" (p(token) per step along training) and "loss" (the learning curve)."""
    index = check_index(replay, index)
    then = snapshot_trace(trace, replay, index)
    line = snapshot_line(replay, index)
    step = replay.steps[index]
    grid = attention_grid(then, "cross", layer, presentation=presentation, width=width)
    grid = with_title_line(grid, line, presentation, width)
    grid.layout.meta = {"download": download_name("cross", layer) + f"_training-step-{step}"}
    heads = head_summary_figure(then, "cross", presentation=presentation, width=SUMMARY_PX)  # beside the probs
    heads = with_title_line(heads, line, presentation, SUMMARY_PX)
    heads.layout.meta = {"download": f"cross-head-summary_training-step-{step}"}
    return dict(
        grid=grid,
        heads=heads,
        probs=replay_probs_figure(trace, replay, index, presentation),
        loss=loss_curve_figure(replay, index, presentation),
    )
