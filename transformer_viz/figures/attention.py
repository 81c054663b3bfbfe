"""Attention patterns as heatmaps: one head, every head of a layer (every layer × head: overview.py; the lines:
alignment.py).

Rows are queries, columns are keys, row 0 at the top. For decoder self-attention and cross-attention,
row t is the query that produced target token t (trace.target_tokens[t]); decoder self-attention's keys
are the decoder's inputs <s>, y1 … y(T-1) (trace.decoder_input_tokens). Layers and heads count from 0,
as in the hook names (decoder.layers.0.cross_attn).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ..trace import ATTENTION_KINDS, Trace
from .labels import min_font, title_gap, title_room
from .style import (
    FIGURE_PX,
    FUTURE_SHADE,
    HIGHLIGHT,
    KIND_NAMES,
    LINE_EM,
    MARGIN_PX,
    MIN_TICK_PX,
    WEIGHTS_SCALE,
    colorbar,
    colorscale,
    download_name,
    esc,
    finish,
    pair_hover,
    piece_label,
    style,
    subplot_grid,
    tick_font,
    tick_label_px,
    title_text,
    token_ticks,
    wrap_title,
    x_token_ticks,
)
from .units import map_axes
from .words import t

FIT_WIDTH_PX = 700  # about how wide the page draws the lesson's map at 1280 px: three fifths of the lesson row
MAP_SIDES_PX = 160  # beside a fitted map's cells: its query labels and axis title on the left, the colour bar right

# Axis titles are plain text (escaped when used); "\n" becomes a line break so long titles fit under a panel.
# Each is said in the language of figures.language(): catalogue keys without their "fig-" prefix.
KEY_TITLES = {"encoder_self": "key-source", "cross": "key-source", "decoder_self": "key-decoder"}
QUERY_TITLES = {"encoder_self": "query-source", "cross": "query-target", "decoder_self": "query-target"}


def kind_name(kind: str) -> str:
    """'Encoder self-attention', 'Decoder self-attention (masked)' or 'Cross-attention (decoder → encoder)'."""
    return t("kind-" + kind)


def key_axis_title(kind: str, words: bool = False) -> str:
    """The key axis's title: what the columns are (tokens, or words when pieces are merged into words).

    Under tokens, a line says how piece_label shows the pieces ("·ung" continues a word)."""
    return t(KEY_TITLES[kind] + "-words") if words else t(KEY_TITLES[kind]) + "\n" + t("pieces-note")


def query_axis_title(kind: str, words: bool = False) -> str:
    """The query axis's title: what the rows are."""
    return t(QUERY_TITLES[kind] + ("-words" if words else ""))


def attention_axes(trace: Trace, kind: str) -> tuple[list[str], list[str]]:
    """(query tokens, key tokens) of one attention kind: the labels of its rows and columns."""
    check_kind(kind)
    if kind == "encoder_self":
        return trace.source_tokens, trace.source_tokens
    if kind == "cross":
        return trace.target_tokens, trace.source_tokens
    return trace.target_tokens, trace.decoder_input_tokens


def check_kind(kind: str) -> None:
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"kind must be one of {ATTENTION_KINDS}, got {kind!r}")


def head_matrix(trace: Trace, kind: str, layer: int, head: int | str) -> np.ndarray:
    """The (queries, keys) weights of one head, or of the average over heads when head == "mean"."""
    check_kind(kind)
    weights = trace.attention[kind]  # (L, H, Q, K)
    if not 0 <= layer < weights.shape[0]:
        raise ValueError(f"layer must be in 0..{weights.shape[0] - 1}, got {layer!r}")
    if head == "mean":
        return weights[layer].mean(axis=0).astype(np.float32)
    if not isinstance(head, (int, np.integer)) or not 0 <= head < weights.shape[1]:
        raise ValueError(f"head must be in 0..{weights.shape[1] - 1} or 'mean', got {head!r}")
    return weights[layer, head].astype(np.float32)


def check_step(trace: Trace, step: int | None) -> None:
    if step is not None and not 0 <= step < len(trace.target_tokens):
        raise ValueError(f"step must be in 0..{len(trace.target_tokens) - 1} (one per target token), got {step!r}")


def head_label(head: int | str, n_heads: int) -> str:
    return t("head", head=head) if head != "mean" else t("head-mean", n=n_heads)


def axis_title(text: str) -> str:
    return esc(text).replace("\n", "<br>")


def shown_step(kind: str, step: int | None) -> int | None:
    """The step a map of `kind` shows: none for encoder self-attention, which every step shares."""
    return None if kind == "encoder_self" else step


def step_suffix(trace: Trace, kind: str, step: int | None) -> str:
    if step is None or kind == "encoder_self":
        return ""
    return "<br>" + t("producing", step=step, token=esc(piece_label(trace.target_tokens[step])))


def shown(z: np.ndarray, kind: str, step: int | None, hide_future: bool | None) -> np.ndarray:
    """The weights as the learner should see them at `step`: rows not produced yet become gaps (NaN)."""
    hide = (kind == "decoder_self") if hide_future is None else hide_future
    if step is None or kind == "encoder_self" or not hide:
        return z
    z = z.copy()
    z[step + 1 :] = np.nan
    return z


def weight_heatmap(z: np.ndarray, label: str, show_values: bool = False, axes: tuple[str, str] | None = None) -> dict:
    """One attention panel on the figure's shared colour axis (x, y default to 0..n-1: integer positions).

    The hover names the query and key tokens through the axes' tick text, so no string is sent per cell.
    """
    panel = dict(
        type="heatmap",
        z=z,
        coloraxis="coloraxis",
        hoverongaps=False,
        name=label,
        hovertemplate=pair_hover() + "<br>" + t("weight-hover") + "<extra>" + label + "</extra>",
    )
    if show_values:
        panel["texttemplate"] = "%{z:.2f}"
    if axes:
        panel["xaxis"], panel["yaxis"] = axes
    return panel


def mark_step(
    z: np.ndarray, kind: str, step: int | None, line_width: float, axes: tuple[str, str] | None = None
) -> list[dict]:
    """Shapes outlining the current query row and shading the rows after it when they are hidden."""
    if step is None or kind == "encoder_self":
        return []
    n_rows, n_cols = z.shape
    where = dict(xref=axes[0], yref=axes[1]) if axes else {}
    shapes = []
    if step + 1 < n_rows and np.isnan(z[step + 1 :]).all():
        shapes.append(
            dict(
                type="rect",
                x0=-0.5,
                x1=n_cols - 0.5,
                y0=step + 0.5,
                y1=n_rows - 0.5,
                fillcolor=FUTURE_SHADE,
                line=dict(width=0),
                layer="above",
                **where,
            )
        )
    shapes.append(
        dict(
            type="rect",
            x0=-0.5,
            x1=n_cols - 0.5,
            y0=step - 0.5,
            y1=step + 0.5,
            line=dict(color=HIGHLIGHT, width=line_width),
            fillcolor="rgba(0,0,0,0)",
            layer="above",
            **where,
        )
    )
    return shapes


def weights_axis(presentation: bool) -> dict:
    """The one colour axis every attention panel of a figure shares: weights from 0 to 1."""
    return dict(
        colorscale=colorscale(WEIGHTS_SCALE),
        cmin=0,
        cmax=1,
        colorbar=colorbar(t("weight"), presentation),
    )


def attention_grid(
    trace: Trace,
    kind: str,
    layer: int,
    step: int | None = None,
    presentation: bool = False,
    hide_future: bool | None = None,
    units: str = "pieces",
    panel_height: float | None = None,
    width: float = 1000,
) -> go.Figure:
    """Every head of one layer plus their mean, on one shared 0–1 colour scale.

    `step` outlines that query row; rows after it are hidden for decoder self-attention (the state when
    token `step` was produced), and for cross-attention too when hide_future=True. units="words" merges
    pieces into words: key columns summed, query rows averaged over the pieces produced (figures/units.py).
    The figure is as tall as its rows of panels need: `panel_height` pixels each (None: enough for the query
    tokens in the look), with the key labels and titles between them, so a page shows it in a box that scrolls
    rather than squeezing it. `width` is about how wide the page draws it, for the key labels' size and angle.
    """
    ax = map_axes(*attention_axes(trace, kind), units)
    check_step(trace, step)
    row = ax.row(step)
    st, n_heads = style(presentation), trace.n_heads
    heads: list[int | str] = [*range(n_heads), "mean"]
    cols = len(heads) if len(heads) <= 3 else math.ceil(math.sqrt(len(heads)))
    # fewer, wider columns where the key labels would not fit tilted even at the smallest font (sin 45° = 0.71)
    least = min_font(st.font_size)  # the look's smallest label: a slide's are larger, so its panels are wider
    cols = max(1, min(cols, int(width // (len(ax.keys) * LINE_EM * least / 0.71 + 80))))
    rows = math.ceil(len(heads) / cols)
    panel = max(st.panel_px, st.row_px * len(ax.queries)) if panel_height is None else panel_height
    key_ticks = x_token_ticks(ax.key_labels, width / cols - 80, st.font_size, pieces=False)
    label_px = 14 + tick_label_px(ax.key_labels, key_ticks["tickangle"], st.font_size) + 3 * st.font_size
    height = rows * panel + (rows - 1) * label_px + 140 + 3 * st.font_size
    refs, layout = subplot_grid(
        rows,
        cols,
        len(heads),
        [head_label(h, n_heads) for h in heads],
        0.12 if presentation else 0.08,
        min(0.3, label_px / height),
    )
    query_ticks = dict(
        **token_ticks(ax.query_labels, pieces=False),
        autorange="reversed",
        **tick_font(len(ax.queries), panel, st.font_size),
    )
    data, shapes = [], []
    for i, (head, (x, y)) in enumerate(zip(heads, refs)):
        r, c = divmod(i, cols)
        z = ax.weights(shown(head_matrix(trace, kind, layer, head), kind, step, hide_future))
        data.append(weight_heatmap(z, f"L{layer} {head_label(head, n_heads)}", axes=(x, y)))
        shapes += mark_step(z, kind, row, st.line_width, (x, y))
        bottom_left = r == rows - 1 and c == 0  # one key title: long ones would run into the next panel's
        key_title = axis_title(key_axis_title(kind, ax.words)) if bottom_left else None
        layout["xaxis" + x[1:]].update(key_ticks, **title_text(key_title))
        layout["yaxis" + y[1:]].update(
            query_ticks, **title_text(axis_title(query_axis_title(kind, ax.words)) if c == 0 else None)
        )
    title = t("grid-title", kind=kind_name(kind), layer=layer, last=n_heads - 1) + ax.suffix()
    layout.update(shapes=shapes, coloraxis=weights_axis(presentation))
    name = download_name(ax.named(KIND_NAMES[kind]), layer, step=shown_step(kind, step))
    return finish(data, layout, st, title + step_suffix(trace, kind, step), height, name, width=width)


def attention_head(
    trace: Trace,
    kind: str,
    layer: int,
    head: int | str,
    step: int | None = None,
    presentation: bool = False,
    hide_future: bool | None = None,
    show_values: bool = False,
    units: str = "pieces",
    fit_px: float | None = None,
    width: float | None = None,
) -> go.Figure:
    """One head (or head="mean") as a large heatmap; show_values writes each weight in its cell; units as
    attention_grid's.

    fit_px: drawn for a box that tall (the lesson's map on a projector, which the page stretches to its box):
    tight margins, and the query labels' font as large as lets every row's label fit beside its row (with room
    to spare for a box up to a seventh smaller, as a notice above the maps makes it); `width`: and that wide
    (FIT_WIDTH_PX, a projector's, where not given), the title wrapped and the key labels laid out for it, every
    n-th labelled where even the smallest font's tilted labels would run into each other.
    """
    ax = map_axes(*attention_axes(trace, kind), units)
    check_step(trace, step)
    st, n_rows = style(presentation), len(ax.queries)
    z = ax.weights(shown(head_matrix(trace, kind, layer, head), kind, step, hide_future))
    label = f"L{layer} {head_label(head, trace.n_heads)}"
    width = FIGURE_PX if fit_px is None else width or FIT_WIDTH_PX
    key_ticks = x_token_ticks(
        ax.key_labels, 900 if fit_px is None else width - MAP_SIDES_PX, st.font_size, pieces=False
    )
    key_stride = 1 if fit_px is None else tilted_stride(ax.key_labels, width - MAP_SIDES_PX, key_ticks)
    if key_stride > 1:
        key_ticks.update({key: key_ticks[key][::key_stride] for key in ("tickvals", "ticktext")})
    title = t("head-title", kind=kind_name(kind), layer=layer, head=head_label(head, trace.n_heads)) + ax.suffix()
    title += step_suffix(trace, kind, step)
    query_title = axis_title(query_axis_title(kind, ax.words))
    stride = 1  # every query row labelled
    if fit_px is None:
        height = max(1.6 * st.panel_px, 1.3 * st.row_px * n_rows) + 200 + 4 * st.font_size
        query_font, margin = tick_font(n_rows, 1.3 * st.row_px * n_rows, st.font_size), {}
    else:
        height = fit_px
        margin, stride, query_font, query_title = fitted_rows(ax, kind, title, key_ticks, fit_px, width, st)
    query_ticks = token_ticks(ax.query_labels, pieces=False)
    if stride > 1:
        query_ticks = {key: values[::stride] for key, values in query_ticks.items()}
    layout = dict(
        xaxis=dict(**key_ticks, title=dict(text=axis_title(key_axis_title(kind, ax.words)))),
        yaxis=dict(
            **query_ticks,
            autorange="reversed",
            title=dict(text=query_title),
            **query_font,
        ),
        shapes=mark_step(z, kind, ax.row(step), st.line_width),
        coloraxis=weights_axis(presentation),
    )
    if margin:
        layout["margin"] = margin
    name = download_name(ax.named(KIND_NAMES[kind]), layer, head, shown_step(kind, step))
    data = [weight_heatmap(z, label, show_values)]
    if stride > 1 or key_stride > 1:  # the rows and columns without a tick label are named in the hover by the cells
        data[0]["customdata"] = [[[esc(query), esc(key)] for key in ax.key_labels] for query in ax.query_labels]
        hover = data[0]["hovertemplate"].replace("%{y}", "%{customdata[0]}").replace("%{x}", "%{customdata[1]}")
        data[0]["hovertemplate"] = hover
    return finish(data, layout, st, title, height, name, width=width, tight=fit_px is not None)


def fitted_rows(ax, kind: str, title: str, key_ticks: dict, fit_px: float, width: float, st) -> tuple:
    """A fitted map's rows in a box fit_px tall and `width` wide: (its margin, every how many rows labelled, their
    font, its query axis title). Over the rows, the title's lines; under them, the key labels and the key axis title's
    lines, both wrapped as finish wraps them; the query axis title is wrapped to the rows' height."""
    top = title_room(wrap_title(title, width, st.title_size)[0], st.title_size, title_gap({}, st.font_size))
    key_font = key_ticks.get("tickfont", {}).get("size", st.font_size)
    key_title, _ = wrap_title(axis_title(key_axis_title(kind, ax.words)), width - 2 * MARGIN_PX, st.font_size)
    key_lines = key_title.count("<br>") + 1
    bottom = tick_label_px(ax.key_labels, key_ticks["tickangle"], key_font) + key_lines * LINE_EM * st.font_size + 8
    rows_px = fit_px - top - bottom
    pitch = rows_px / max(len(ax.queries), 1)  # one row's height
    # rows too close for the smallest font's labels: every stride-th row labelled (the hover still names each)
    stride = max(1, math.ceil(1.3 * MIN_TICK_PX / pitch))
    query_font = dict(tickfont=dict(size=int(max(MIN_TICK_PX, min(st.font_size, stride * pitch / 1.3)))))
    query_title, _ = wrap_title(axis_title(query_axis_title(kind, ax.words)), rows_px, st.font_size)
    return dict(b=bottom), stride, query_font, query_title


def tilted_stride(labels: list[str], axis_px: float, ticks: dict) -> int:
    """Every how many tilted key labels one is shown, so that no two run into each other: 1 where each fits (flat,
    or tilted in a font x_token_ticks made small enough), more where even MIN_TICK_PX's lines would overlap."""
    if not labels or ticks.get("tickangle", 0) == 0:
        return 1
    size = ticks.get("tickfont", {}).get("size", MIN_TICK_PX)
    apart = 0.71 * axis_px / len(labels)  # the strip between two neighbours' lines (sin 45° = 0.71)
    return max(1, math.ceil(LINE_EM * size / apart))
