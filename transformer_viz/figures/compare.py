"""Original beside changed: each step's probability of the original token, and one head's map side by side.

The two Traces of a comparison are teacher-forced over the same target (compare.Comparison.forced_original
and .forced_changed) for the probability chart; the maps may come from any two Traces, and both panels
share one 0–1 colour scale so equal colours mean equal weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace
from .attention import (
    attention_axes,
    axis_title,
    check_kind,
    head_label,
    head_matrix,
    key_axis_title,
    kind_name,
    query_axis_title,
    tick_font,
    weight_heatmap,
    weights_axis,
)
from .labels import LINE_EM, min_font
from .style import (
    FIGURE_PX,
    KIND_NAMES,
    OKABE_ITO,
    Style,
    download_name,
    esc,
    finish,
    piece_label,
    style,
    subplot_grid,
    tick_label_px,
    title_text,
    token_ticks,
    x_token_ticks,
)
from .words import t

ORIGINAL = OKABE_ITO["blue"]
CHANGED = OKABE_ITO["orange"]
GAIN, LOSS = OKABE_ITO["bluish_green"], OKABE_ITO["vermillion"]
CAUSAL_EDGE = OKABE_ITO["reddish_purple"]
PAD_OUTLINE = "#DDDDDD"  # a dashed light frame around the pad keys' columns (a fill would change the weights' colours)


def probability_change(
    original: Trace, changed: Trace, labels: tuple[str, str] | None = None, presentation: bool = False
) -> go.Figure:
    """Top: p(y_t | prefix) of each original token, original vs changed; bottom: the change Δp = changed − original.

    Both traces must be teacher-forced over the same target ids (one bar pair per target token). `labels`
    default to ("original", "with the intervention") in the figures' language.
    """
    if original.target_ids != changed.target_ids:
        raise ValueError(
            "the two traces must be teacher-forced over the same target; "
            "use compare.teacher_forced_trace with the original target_ids"
        )
    st = style(presentation)
    labels = (t("original"), t("with-intervention")) if labels is None else labels
    tokens = original.target_tokens
    p_orig = np.array([s["prob"] for s in original.steps], dtype=np.float64)  # (T,)
    p_new = np.array([s["prob"] for s in changed.steps], dtype=np.float64)
    delta = p_new - p_orig
    refs, layout = subplot_grid(2, 1, 2, [t("prob-original"), t("prob-change")], 0.0, 0.14)
    hover = probability_hovers(tokens, p_orig, p_new, changed, labels)
    data = probability_bars(list(range(len(tokens))), (p_orig, p_new), delta, hover, labels, refs)
    probability_axes(layout, tokens, delta, st)
    mean = float(delta.mean()) if delta.size else 0.0
    title = t("prob-title", mean=mean)
    height = 2 * st.panel_px + 8 * st.font_size + 160
    return finish(data, layout, st, title, height, "probability-change", width=FIGURE_PX)  # models side by side


def probability_hovers(
    tokens: Sequence[str], p_orig: np.ndarray, p_new: np.ndarray, changed: Trace, labels: tuple[str, str]
) -> list[str]:
    """Each step's hover: its token, both probabilities, the change and the changed model's first choice."""
    top_choice = [esc(piece_label(s["top_k"][0]["token"])) if s["top_k"] else "" for s in changed.steps]
    return [
        t(
            "prob-hover",
            step=step,
            token=esc(piece_label(tok)),
            original=esc(labels[0]),
            a=a,
            changed=esc(labels[1]),
            b=b,
            delta=b - a,
            top=top,
        )
        for step, (tok, a, b, top) in enumerate(zip(tokens, p_orig, p_new, top_choice))
    ]


def probability_bars(
    steps: list[int],
    probabilities: tuple[np.ndarray, np.ndarray],
    delta: np.ndarray,
    hover: list[str],
    labels: tuple[str, str],
    refs: list[tuple[str, str]],
) -> list[dict]:
    """The bars: original and changed probabilities side by side on top, the change Δp below (gain or loss)."""
    (x1, y1), (x2, y2) = refs
    hovers = dict(hovertext=hover, hovertemplate="%{hovertext}<extra></extra>")
    pairs = [
        dict(type="bar", x=steps, y=p, name=esc(label), marker=dict(color=colour), xaxis=x1, yaxis=y1, **hovers)
        for p, label, colour in zip(probabilities, labels, (ORIGINAL, CHANGED))
    ]
    change = dict(
        type="bar",
        x=steps,
        y=delta,
        name="Δp",
        showlegend=False,
        xaxis=x2,
        yaxis=y2,
        marker=dict(color=[GAIN if d >= 0 else LOSS for d in delta]),
        **hovers,
    )
    return [*pairs, change]


def probability_axes(layout: dict, tokens: Sequence[str], delta: np.ndarray, st: Style) -> None:
    """Fills in the axes and legend: tokens under both panels, 0–100 % on top, a ±Δp range around 0 below."""
    ticks = x_token_ticks(tokens, 900, st.font_size)
    reach = max(0.05, float(np.abs(delta).max()) * 1.1) if delta.size else 0.05
    layout["xaxis"].update(ticks, showticklabels=False)
    layout["xaxis2"].update(ticks, matches="x", **title_text(t("target-teacher-forced")))
    layout["yaxis"].update(
        range=[0, 1], tickformat=".0%", showgrid=True, gridcolor="#E0E0E0", **title_text(t("probability"))
    )
    layout["yaxis2"].update(
        range=[-reach, reach],
        tickformat="+.0%",
        showgrid=True,
        gridcolor="#E0E0E0",
        zeroline=True,
        zerolinecolor="#888888",
        **title_text("Δp"),
    )
    layout.update(
        barmode="group", bargap=0.2, legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1)
    )


def causal_edge(n_rows: int, n_cols: int, offset: int, axes: tuple[str, str], line_width: float) -> dict:
    """A staircase line between the keys query i may see (j ≤ i + offset) and the future keys after them."""
    path = []
    for i in range(n_rows):
        x = min(offset + i + 0.5, n_cols - 0.5)
        path.append(f"{'M' if i == 0 else 'L'} {x} {i - 0.5} L {x} {i + 0.5}")
    return dict(
        type="path",
        path=" ".join(path),
        xref=axes[0],
        yref=axes[1],
        layer="above",
        line=dict(color=CAUSAL_EDGE, width=line_width, dash="dot"),
    )


PAIR_PX = 1200  # about how wide the page draws a pair of maps: a tab to itself (the labs' results), at 1280 px


def key_axis_px(cols: int, spacing: float, st: Style) -> float:
    """About how long each panel's key axis is drawn, `cols` panels to a row across PAIR_PX: the plot area (less
    the query labels and title on the left and the colour bar on the right, about 8 em and 80 px) shared by the
    columns and the `spacing` between them (measured at 1280 px: 478 px on screen, 426 on a slide)."""
    return (PAIR_PX - 8 * st.font_size - 80) * (1 - spacing * (cols - 1)) / cols


def pair_key_ticks(keys: Sequence[Sequence[str]], spacing: float, st: Style) -> tuple[int, list[dict]]:
    """How many panels go to a row, and each panel's key axis settings (x_token_ticks). All side by side while
    every panel's key labels fit tilted in the look's smallest label font (min_font) or larger; else one above
    the other, each as wide as the figure: a long sentence's keys keep labels that can be read from afar."""
    least = min_font(st.font_size)
    # tilted labels lie across a slanted strip a line (LINE_EM) wide each: the space between ticks × sin 45°
    side_by_side = all(len(k) * LINE_EM * least / 0.71 <= key_axis_px(len(keys), spacing, st) for k in keys)
    cols = len(keys) if side_by_side else 1
    return cols, [x_token_ticks(k, key_axis_px(cols, spacing, st), st.font_size) for k in keys]


def attention_pair(
    panels: Sequence[tuple[np.ndarray, Sequence[str], Sequence[str], str]],
    kind: str,
    title: str,
    presentation: bool = False,
    key_title: str | None = None,
    n_pad: int = 0,
    download: str = "attention-comparison",
) -> go.Figure:
    """Attention maps side by side on one shared 0–1 colour scale; each panel is (weights (Q, K), query tokens,
    key tokens, label). For decoder self-attention a dotted staircase marks where the causal mask begins; the
    first `n_pad` key columns (left padding) are framed. `title` is shown as given: escape user text in it;
    `download` names its download. Where the key labels would not fit side by side, the maps stand one above
    the other (pair_key_ticks)."""
    check_kind(kind)
    st = style(presentation)
    for z, queries, keys, label in panels:
        if np.shape(z) != (len(queries), len(keys)):
            raise ValueError(
                f"panel {label!r}: weights {np.shape(z)} do not match {len(queries)} queries × {len(keys)} keys"
            )
    n, spacing = len(panels), 0.12 if presentation else 0.08
    panel_px = max(st.panel_px, st.row_px * max(len(q) for _, q, _, _ in panels))
    cols, key_ticks = pair_key_ticks([keys for _, _, keys, _ in panels], spacing, st)
    rows = math.ceil(n / cols)
    all_keys = [piece_label(k) for _, _, keys, _ in panels for k in keys]
    ticks_px = 14 + tick_label_px(all_keys, max(tick["tickangle"] for tick in key_ticks), st.font_size)
    label_px = ticks_px + 3 * st.font_size  # under the last row: the key labels and what the keys are
    gap_px = ticks_px + 2 * st.font_size  # between stacked maps: the upper one's key labels, the lower one's title
    height = rows * panel_px + (rows - 1) * gap_px + label_px + 140 + 3 * st.font_size
    vertical = gap_px / (rows * panel_px + (rows - 1) * gap_px)  # a share of the plot area's height
    refs, layout = subplot_grid(rows, cols, n, [esc(label) for *_, label in panels], spacing, vertical)
    keys_title = key_title or key_axis_title(kind)
    data, shapes = [], []
    for c, ((z, queries, keys, label), (x, y)) in enumerate(zip(panels, refs)):
        z = np.asarray(z, dtype=np.float32)
        data.append(weight_heatmap(z, esc(label), axes=(x, y)))
        # the keys named under the last row only: maps one above the other share what their keys are
        last_row = c // cols == rows - 1
        layout["xaxis" + x[1:]].update(**key_ticks[c], **title_text(axis_title(keys_title) if last_row else None))
        layout["yaxis" + y[1:]].update(
            **token_ticks(queries),
            autorange="reversed",
            **tick_font(len(queries), panel_px, st.font_size),
            **title_text(axis_title(query_axis_title(kind)) if c % cols == 0 else None),
        )
        if n_pad:
            shapes.append(pad_frame(n_pad, len(queries), (x, y), st.line_width))
        if kind == "decoder_self":
            shapes.append(causal_edge(len(queries), len(keys), len(keys) - len(queries), (x, y), st.line_width))
    layout.update(shapes=shapes, coloraxis=weights_axis(presentation))
    return finish(data, layout, st, title, height, download, width=PAIR_PX)


def pad_frame(n_pad: int, n_rows: int, axes: tuple[str, str], line_width: float) -> dict:
    """A dashed light frame around the first `n_pad` key columns: the pad keys."""
    return dict(
        type="rect",
        x0=-0.5,
        x1=n_pad - 0.5,
        y0=-0.5,
        y1=n_rows - 0.5,
        xref=axes[0],
        yref=axes[1],
        line=dict(color=PAD_OUTLINE, width=line_width, dash="dash"),
        layer="above",
    )


def attention_side_by_side(
    original: Trace,
    changed: Trace,
    kind: str,
    layer: int,
    head: int | str,
    labels: tuple[str, str] | None = None,
    presentation: bool = False,
) -> go.Figure:
    """One head (or "mean") of the same layer in two traces, left original, right changed, same colour scale.

    `labels` default to ("original", "with the intervention") in the figures' language."""
    labels = (t("original"), t("with-intervention")) if labels is None else labels
    panels = []
    for trace, label in zip((original, changed), labels):
        queries, keys = attention_axes(trace, kind)
        panels.append((head_matrix(trace, kind, layer, head), queries, keys, label))
    title = t("head-title", kind=kind_name(kind), layer=layer, head=head_label(head, original.n_heads))
    name = download_name(KIND_NAMES[kind] + "-comparison", layer, head)
    return attention_pair(panels, kind, title, presentation, download=name)


def padding_side_by_side(
    padded_original: np.ndarray,
    padded_changed: np.ndarray,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    n_pad: int,
    layer: int,
    head: int,
    labels: tuple[str, str] | None = None,
    presentation: bool = False,
) -> go.Figure:
    """Left-padded decoder self-attention (L, H, T, k + T) of one head, correct vs buggy, the pad keys framed:
    with the bug the real tokens' rows put weight in the framed columns; with the correct mask they are exactly 0.
    `labels` default to ("padding masked (correct)", "causal mask only (seed 004 bug 3)") in the figures' language."""
    labels = (t("padding-correct"), t("padding-bug")) if labels is None else labels
    maps = []
    for padded in (padded_original, padded_changed):
        padded = np.asarray(padded)
        if not (0 <= layer < padded.shape[0] and 0 <= head < padded.shape[1]):
            raise ValueError(
                f"layer must be in 0..{padded.shape[0] - 1} and head in 0..{padded.shape[1] - 1}, "
                f"got {layer!r}, {head!r}"
            )
        maps.append(padded[layer, head])
    panels = [(z, query_tokens, key_tokens, label) for z, label in zip(maps, labels)]
    mass = [float(z[:, :n_pad].sum(axis=1).max()) if n_pad else 0.0 for z in maps]
    title = t("padding-title", n_pad=n_pad, layer=layer, head=head, a=mass[0], b=mass[1])
    name = download_name("padding-comparison", layer, head)
    key_title = t("padding-key")
    return attention_pair(panels, "decoder_self", title, presentation, key_title=key_title, n_pad=n_pad, download=name)
