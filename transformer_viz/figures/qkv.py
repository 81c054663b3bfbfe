"""One query, real numbers: x_t → q, the keys, q·k_j ÷ √Dh, the mask, the softmax, the values, z, W_O and the add.

A vector's dimensions run down a column, so that q stands beside the keys it meets: the keys (K) and the values
(V) are drawn one column per key, and a D-wide vector (x_t, W_O's output, the residual stream) is folded into H
columns of Dh (column c holds dimensions c·Dh … c·Dh + Dh − 1; for the concatenation of the heads, column c is
head c's z). Each cell shows its number where it fits; hovering shows it to four decimals. A click on a key
gives its index (customdata) to the page, which opens q ∘ k_j for it (qk_product).
"""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace
from .attention import kind_name, weights_axis
from .labels import is_wide
from .qkv_numbers import QueryNumbers, query_numbers
from .style import (
    CHAR_EM,
    DIVERGING_SCALE,
    LINE_EM,
    MASKED_GREY,
    Style,
    colorscale,
    download_name,
    esc,
    finish,
    piece_label,
    style,
    symmetric_range,
    tick_label_px,
    x_token_ticks,
)
from .words import t

QKV_PX = 1100  # about how wide the page draws the figure: a tab to itself, at 1280 px
GAP_PX = 30  # between two panels of a band
NUMBER = "{:.2f}"
MINUS_INF = "−∞"


def cell_font(st: Style) -> int:
    return round(0.85 * st.font_size)


def text_px(text: str, size: float) -> float:
    """About how wide a label is, tags and entities counted as one character, a CJK character as two."""
    plain = re.sub(r"<[^>]*>|&[#\w]+;", "x", text)
    return CHAR_EM * size * (len(plain) + sum(map(is_wide, plain)))


def numbers(z: np.ndarray) -> np.ndarray:
    return np.vectorize(NUMBER.format, otypes=[object])(np.asarray(z, dtype=np.float64))


def folded(vector: np.ndarray, d_head: int) -> np.ndarray:
    """A D-vector as a (Dh, D / Dh) matrix: column c holds dimensions c·Dh … c·Dh + Dh − 1."""
    return np.asarray(vector).reshape(-1, d_head).T


def panel(title: str, z: np.ndarray, ticks: list[str], hover: str, **trace) -> dict:
    """One panel of a band: its title, its (rows, columns) values, its column labels and its hover line."""
    return dict(title=title, z=np.asarray(z, dtype=np.float64), ticks=ticks, hover=hover, trace=trace)


def block_ticks(n_dims: int, d_head: int) -> list[str]:
    return [str(start) for start in range(0, n_dims, d_head)]


def bands(n: QueryNumbers) -> list[list[dict]]:
    """The figure's three bands of panels: x → q · K; V → z, the heads, W_O; the residual add."""
    dh, keys = n.d_head, [piece_label(k) for k in n.key_tokens]
    blocks, heads = block_ticks(n.x.shape[0], dh), [t("qkv-head-tick", head=h) for h in range(n.heads.shape[0])]
    dim_hover = t("qkv-dim-hover")
    key_hover = t("qkv-key-hover")
    first = [
        panel(t("qkv-x-pre" if n.pre_ln else "qkv-x-post"), folded(n.x, dh), blocks, dim_hover),
        panel("q", n.q[:, None], ["q"], dim_hover),
        panel(t("qkv-keys"), n.k.T, keys, key_hover, customdata=np.tile(np.arange(len(keys)), (dh, 1))),
    ]
    second = [
        panel(t("qkv-values"), n.v.T, keys, key_hover),
        panel(t("qkv-z"), n.z[:, None], ["z"], dim_hover),
        panel(t("qkv-concat"), n.heads.T, heads, dim_hover),
        panel(t("qkv-out"), folded(n.out, dh), blocks, dim_hover),
    ]
    third = [
        panel(t("qkv-before"), folded(n.before, dh), blocks, dim_hover),
        panel(t("qkv-plus-out"), folded(n.out, dh), blocks, dim_hover),
    ]
    if not n.pre_ln:
        third.append(panel(t("qkv-sum"), folded(n.total, dh), blocks, dim_hover))
    third.append(panel(t("qkv-after-pre" if n.pre_ln else "qkv-after-post"), folded(n.after, dh), blocks, dim_hover))
    return [first, second, third]


def column_px(band: list[dict], plot_px: float, st: Style) -> tuple[float, list[float]]:
    """The width of one column of the band and of each panel (at least its title's), in pixels."""
    cols = [p["z"].shape[1] for p in band]
    titles = [text_px(p["title"], st.font_size + 1) + 8 for p in band]
    room = plot_px - GAP_PX * (len(band) - 1)
    if sum(titles) > room:  # text_px errs wide: titles that seem not to fit side by side share the band instead
        titles = [title * room / sum(titles) for title in titles]
    col = min(6.0 * cell_font(st), room / sum(cols))
    for _ in range(3):  # a panel widened for its title leaves the others less room
        widths = [max(c * col, title) for c, title in zip(cols, titles)]
        spare = room - sum(w for w, c in zip(widths, cols) if w > c * col)
        narrow = sum(c for w, c in zip(widths, cols) if w <= c * col)
        if narrow:
            col = min(col, spare / narrow)
    return col, [max(c * col, title) for c, title in zip(cols, titles)]


def fits(text: np.ndarray, cell_px: float, st: Style) -> bool:
    """Whether the widest of these numbers fits in a cell `cell_px` wide."""
    return max(text_px(s, cell_font(st)) for s in np.ravel(text) if s) + 6 <= cell_px


def heat(p: dict, x: str, y: str, cell_px: float, st: Style) -> dict:
    """A panel's heatmap: diverging around 0 on its own range, its numbers in the cells where they fit."""
    z, limit = p["z"], symmetric_range(p["z"])
    text = numbers(z)
    shown = fits(text, cell_px, st)
    out = dict(
        type="heatmap",
        z=z.astype(np.float32),
        x=list(range(z.shape[1])),
        colorscale=colorscale(DIVERGING_SCALE),
        zmid=0,
        zmin=-limit,
        zmax=limit,
        showscale=False,
        xaxis=x,
        yaxis=y,
        name=re.sub(r"<[^>]*>", "", p["title"]),
        hovertemplate=p["hover"] + "<extra>" + esc(re.sub(r"<[^>]*>", "", p["title"])) + "</extra>",
        **p["trace"],
    )
    if shown:
        out.update(text=text.tolist(), texttemplate="%{text}", textfont=dict(size=cell_font(st)))
    return out


def scores_traces(n: QueryNumbers, x: str, y: str, cell_px: float, st: Style) -> list[dict]:
    """The four rows under the keys: q·k_j, ÷ √Dh, the mask (−∞ where a key is hidden), the softmax's α_j."""
    kept = np.where(n.mask, n.scaled, np.nan)
    scores = np.stack([n.dots, n.scaled, kept, np.full_like(n.dots, np.nan)])
    text = np.where(np.isnan(scores), "", numbers(np.nan_to_num(scores)))
    limit, columns = symmetric_range(scores), np.tile(np.arange(len(n.dots)), (4, 1))
    weights = np.full_like(scores, np.nan)
    weights[3] = n.weights
    common = dict(type="heatmap", x=list(range(len(n.dots))), xaxis=x, yaxis=y, showscale=False, customdata=columns)
    hover = t("qkv-score-hover") + "<extra></extra>"
    out = [
        dict(
            common,
            z=scores.astype(np.float32),
            colorscale=colorscale(DIVERGING_SCALE),
            zmid=0,
            zmin=-limit,
            zmax=limit,
            hoverongaps=False,
            name=t("qkv-scores"),
            hovertemplate=hover,
        ),
        dict(
            common,
            z=np.where(np.arange(4)[:, None] == 2, np.where(n.mask, np.nan, 0.0), np.nan).astype(np.float32),
            colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]],
            hoverongaps=False,
            name=t("qkv-masked"),
            hovertemplate=t("qkv-masked-hover", minus_inf=MINUS_INF) + "<extra></extra>",
        ),
        dict(
            common,
            z=weights.astype(np.float32),
            colorscale=weights_axis(False)["colorscale"],
            zmin=0,
            zmax=1,
            hoverongaps=False,
            name=t("weights"),
            hovertemplate=hover,
        ),
    ]
    words = [text, np.where(out[1]["z"] == 0, MINUS_INF, ""), np.where(np.isnan(weights), "", numbers(weights))]
    if fits(np.concatenate([w.ravel() for w in words]), cell_px, st):
        for trace, cells in zip(out, words):
            trace.update(text=cells.tolist(), texttemplate="%{text}", textfont=dict(size=cell_font(st)))
    return out


def score_rows(dh: int) -> list[str]:
    return [t("qkv-dot"), t("qkv-scale", dh=dh), t("qkv-mask"), t("qkv-softmax")]


def qkv_figure(trace: Trace, kind: str, layer: int, head: int, query: int, presentation: bool = False) -> go.Figure:
    """One query of one head in numbers: row `query` (the step, or a source position for encoder self-attention).

    Raises ValueError for a kind, layer, head or query the trace does not have.
    """
    n = query_numbers(trace, kind, layer, head, query)
    st = style(presentation)
    data, layout, height = qkv_layout(n, st)
    return finish(data, layout, st, qkv_title(n), height, qkv_download(n), width=QKV_PX)


def qkv_title(n: QueryNumbers, key: int | None = None) -> str:
    """'One query in numbers · cross-attention · Layer 0 · Head 3 · step 2: producing “Haus”' (and the key)."""
    where = t(
        "qkv-source-query" if n.kind == "encoder_self" else "producing",
        step=n.query,
        position=n.query,
        token=esc(piece_label(n.query_token)),
    )
    title = t("qkv-title", kind=kind_name(n.kind), layer=n.layer, head=n.head, where=where)
    if key is None:
        return title
    return t("qkv-key-title", index=key, token=esc(piece_label(n.key_tokens[key]))) + " · " + title


def qkv_download(n: QueryNumbers, key: int | None = None) -> str:
    """'qkv_cross_L0-H3_step-3', 'qkv_encoder-self_L1-H0_source-4'; with `key`, 'qkv-key_…_key-2'."""
    what = ("qkv" if key is None else "qkv-key") + "_" + n.kind.replace("_", "-")
    if n.kind == "encoder_self":
        name = download_name(what, n.layer, n.head) + f"_source-{n.query}"
    else:
        name = download_name(what, n.layer, n.head, n.query)
    return name if key is None else f"{name}_key-{key}"


def x_ticks(p: dict, panel_px: float, st: Style, shown: bool = True) -> dict:
    """A panel's column labels (keys as the token maps read them), or none."""
    if not shown:
        return dict(showticklabels=False, tickvals=[])
    return x_token_ticks(p["ticks"], panel_px, st.font_size, pieces=False)


def qkv_layout(n: QueryNumbers, st: Style) -> tuple[list[dict], dict, float]:
    """The traces, the layout (axes and panel titles) and the plot's height: three bands, the keys' scores under K."""
    margin = dict(l=40 + 4 * st.font_size, r=24 + max(text_px(r, st.font_size) for r in score_rows(n.d_head)))
    plot_px = QKV_PX - margin["l"] - margin["r"]
    title_px, row_px, dh = LINE_EM * (st.font_size + 1) + 6, st.row_px, n.d_head
    placed, data, notes, top = [], [], [], 0.0  # placed: (axis number, x0, x1 px, y0, y1 px from the top, panel)
    for b, band in enumerate(bands(n)):
        col, widths = column_px(band, plot_px, st)
        top += title_px
        left, lowest = 0.0, 0.0
        for i, (p, width) in enumerate(zip(band, widths)):
            k = len(placed) + 1
            cell = width / p["z"].shape[1]
            data.append(heat(p, f"x{k}", f"y{k}", cell, st))
            ticks = x_ticks(p, width, st, shown=not (b == 0 and i == len(band) - 1))
            label = tick_label_px(p["ticks"], ticks.get("tickangle", 0), st.font_size) if ticks.get("tickvals") else 0
            placed.append((k, left, left + width, top, top + dh * row_px, dict(ticks, first=i == 0)))
            notes.append((p["title"], left + width / 2, top))
            lowest = max(lowest, dh * row_px + 6 + label)
            if b == 0 and i == len(band) - 1:  # the scores of every key, under the keys
                k, y0 = k + 1, top + dh * row_px + 8
                data += scores_traces(n, f"x{k}", f"y{k}", cell, st)
                keys = x_ticks(p, width, st)
                label = tick_label_px(p["ticks"], keys["tickangle"], st.font_size)
                placed.append((k, left, left + width, y0, y0 + 4 * row_px, dict(keys, scores=True)))
                lowest = max(lowest, y0 - top + 4 * row_px + 6 + label)
            left += width + GAP_PX
        top += lowest + 16
    layout = dict(margin=margin, annotations=[panel_title(text, x / plot_px, y / top) for text, x, y in notes])
    for k, x0, x1, y0, y1, extra in placed:
        layout.update(panel_axes(k, (x0 / plot_px, x1 / plot_px), (1 - y1 / top, 1 - y0 / top), dh, extra, st, n))
    return data, layout, top + margin.get("b", 40) + 70 + 2 * st.title_size


def panel_title(text: str, x: float, y: float) -> dict:
    return dict(
        text=text, x=x, y=1 - y, xref="paper", yref="paper", xanchor="center", yanchor="bottom", showarrow=False
    )


def panel_axes(k: int, xs: tuple, ys: tuple, dh: int, extra: dict, st: Style, n: QueryNumbers) -> dict:
    """Layout entries of panel k's two axes: columns along x, the dimensions (or the score rows) down y."""
    first, scores = extra.pop("first", False), extra.pop("scores", False)
    suffix = "" if k == 1 else str(k)
    x = dict(anchor=f"y{k}", domain=[max(0.0, xs[0]), min(1.0, xs[1])], fixedrange=True, **extra)
    if scores:
        y = dict(tickvals=list(range(4)), ticktext=score_rows(n.d_head), side="right")
    elif first:
        y = dict(tickvals=list(range(dh)), ticktext=[str(i) for i in range(dh)], title=dict(text=t("qkv-dim")))
    else:
        y = dict(showticklabels=False, tickvals=[])
    y.update(anchor=f"x{k}", domain=[max(0.0, ys[0]), min(1.0, ys[1])], autorange="reversed", fixedrange=True)
    return {"xaxis" + suffix: x, "yaxis" + suffix: y}


def qk_product(
    trace: Trace, kind: str, layer: int, head: int, query: int, key: int, presentation: bool = False
) -> go.Figure:
    """q ∘ k_j element by element for one key: q_i, k_j,i and their product down the dimensions, and the sum, the
    scaled score and the weight they make."""
    n = query_numbers(trace, kind, layer, head, query)
    if not isinstance(key, (int, np.integer)) or not 0 <= key < len(n.key_tokens):
        raise ValueError(f"key must be in 0..{len(n.key_tokens) - 1}, got {key!r}")
    st, dh = style(presentation), n.d_head
    columns = [("q", n.q), (f"k<sub>{key}</sub>", n.k[key]), (t("qkv-product"), n.q * n.k[key])]
    hover = t("qkv-dim-hover")
    band = [panel(title, values[:, None], [re.sub(r"<[^>]*>", "", title)], hover) for title, values in columns]
    margin = dict(l=40 + 4 * st.font_size, r=40, b=8)  # nothing under the panels: their titles are over them
    plot_px = 0.6 * QKV_PX - margin["l"] - margin["r"]
    _, widths = column_px(band, plot_px, st)
    widths = [max(widths), max(widths), max(widths)]
    data, layout, left = [], dict(margin=margin, annotations=[]), 0.0
    heat_px = dh * st.row_px
    for k, (p, width) in enumerate(zip(band, widths), start=1):
        data.append(heat(p, f"x{k}", f"y{k}", width, st))
        xs, ys = (left / plot_px, (left + width) / plot_px), (0.0, 1.0)
        layout.update(panel_axes(k, xs, ys, dh, dict(showticklabels=False, tickvals=[], first=k == 1), st, n))
        layout["annotations"].append(panel_title(p["title"], (left + width / 2) / plot_px, 0.0))
        left += width + GAP_PX
    sums = t("qkv-sums", dot=n.dots[key], scaled=n.scaled[key], dh=dh, weight=n.weights[key])
    title = qkv_title(n, key) + "<br>" + sums
    height = heat_px + 70 + 2 * st.title_size + margin["b"]  # the panel titles sit in the title's gap (finish)
    return finish(data, layout, st, title, height, qkv_download(n, key), width=0.6 * QKV_PX)
