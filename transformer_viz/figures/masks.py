"""Masks (1 = may attend) and how the causal mask turns scores into weights: QKᵀ/√d → −∞ → softmax."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace
from .attention import axis_title, check_step, key_axis_title, mark_step, query_axis_title, weights_axis
from .labels import min_font
from .style import (
    CHAR_EM,
    DIVERGING_SCALE,
    FIGURE_PX,
    MASKED_GREY,
    OKABE_ITO,
    PRESENTATION,
    Style,
    colorscale,
    download_name,
    esc,
    finish,
    pair_hover,
    piece_label,
    style,
    subplot_grid,
    symmetric_range,
    tick_label_px,
    title_text,
    token_ticks,
    x_token_ticks,
)
from .words import t

ATTEND = OKABE_ITO["blue"]
BINARY_SCALE = [[0.0, MASKED_GREY], [0.5, MASKED_GREY], [0.5, ATTEND], [1.0, ATTEND]]
MINUS_INF = "−∞"


def mask_matrix(
    mask,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    title: str,
    presentation: bool = False,
    query_title: str | None = None,
    key_title: str | None = None,
    step: int | None = None,
    download: str = "mask",
) -> go.Figure:
    """A boolean mask as two colours: 1 = may attend, 0 = masked; `step` outlines that query row.

    The axis titles default to "query" and "key" in the figures' language; `download` names its download."""
    z = np.asarray(mask).astype(np.int8)  # (queries, keys)
    if z.shape != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"mask shape {z.shape} does not match {len(query_tokens)} queries × {len(key_tokens)} keys")
    st = style(presentation)
    query_title = t("query") if query_title is None else query_title
    key_title = t("key") if key_title is None else key_title
    bar_labels = [t("masked"), t("may-attend")]
    # the key axis: the figure's width less the query labels and title on its left, the colour bar on its right
    side_px = CHAR_EM * st.font_size * (max(len(piece_label(q)) for q in query_tokens) + max(map(len, bar_labels)))
    key_px = FIGURE_PX - 160 - 4 * st.font_size - side_px
    layout = dict(
        xaxis=dict(**x_token_ticks(key_tokens, key_px, st.font_size), title=dict(text=axis_title(key_title))),
        yaxis=dict(**token_ticks(query_tokens), autorange="reversed", title=dict(text=axis_title(query_title))),
        shapes=mark_step(z.astype(np.float32), "mask", step, st.line_width),
    )
    mask = dict(
        type="heatmap",
        z=z,
        zmin=0,
        zmax=1,
        colorscale=BINARY_SCALE,
        xgap=1,
        ygap=1,
        name=t("mask"),
        hovertemplate=pair_hover() + "<br>" + t("mask-hover") + "<extra></extra>",
        colorbar=dict(tickvals=[0.25, 0.75], ticktext=bar_labels, thickness=24 if presentation else 14),
    )
    height = max(1.4 * st.panel_px, 1.2 * st.row_px * len(query_tokens)) + 200 + 4 * st.font_size
    title = esc(title).replace("&lt;br&gt;", "<br>")  # line breaks stay breaks
    return finish([mask], layout, st, title, height, download)


def encoder_padding_mask(trace: Trace, partner_len: int, presentation: bool = False) -> go.Figure:
    """The encoder mask when this sentence shares a batch with a longer one: it is padded with <pad> to
    `partner_len` tokens, and no query may attend to a <pad> key (the <pad> rows' outputs are ignored)."""
    n_real = len(trace.source_tokens)
    if partner_len < 1:
        raise ValueError(f"partner_len must be a positive number of tokens, got {partner_len!r}")
    width = max(n_real, int(partner_len))
    tokens = trace.source_tokens + ["<pad>"] * (width - n_real)
    mask = np.broadcast_to(np.arange(width) < n_real, (width, width))  # (S', S'): key j is a real token
    title = t("encoder-padding-title", n=n_real, width=width)
    return mask_matrix(
        mask,
        tokens,
        tokens,
        title,
        presentation,
        query_axis_title("encoder_self"),
        key_axis_title("encoder_self"),
        download="encoder-padding-mask",
    )


def decoder_causal_mask(trace: Trace, step: int | None = None, presentation: bool = False) -> go.Figure:
    """The causal mask the decoder used: the query producing y_t sees <s>, y1 … y(t-1), never the future."""
    check_step(trace, step)
    return mask_matrix(
        trace.masks["decoder"],
        trace.target_tokens,
        trace.decoder_input_tokens,
        t("causal-title"),
        presentation,
        query_axis_title("decoder_self"),
        key_axis_title("decoder_self"),
        step,
        download_name("decoder-causal-mask", step=step),
    )


def cross_mask(trace: Trace, step: int | None = None, presentation: bool = False) -> go.Figure:
    """The cross-attention mask: every target query may see every real source token."""
    check_step(trace, step)
    return mask_matrix(
        trace.masks["cross"],
        trace.target_tokens,
        trace.source_tokens,
        t("cross-mask-title"),
        presentation,
        query_axis_title("cross"),
        key_axis_title("cross"),
        step,
        download_name("cross-attention-mask", step=step),
    )


def score_pipeline(
    trace: Trace, layer: int, head: int, step: int | None = None, presentation: bool = False
) -> go.Figure:
    """Decoder self-attention of one head in three panels: raw scores QKᵀ/√d_k, scores with the causal mask
    (−∞ cells in grey), and the softmax weights, eq. (1). Panels 1–2 share a diverging scale, 3 is 0–1."""
    check_step(trace, step)
    check_pipeline_head(trace, layer, head)
    st = style(presentation)
    queries, keys = trace.target_tokens, trace.decoder_input_tokens
    scores = trace.decoder_self_scores[layer, head].astype(np.float32)  # (T, T)
    mask = np.asarray(trace.masks["decoder"], dtype=bool)
    weights = trace.attention["decoder_self"][layer, head].astype(np.float32)
    titles = [t("pipe-scores"), t("pipe-mask", minus_inf=MINUS_INF), t("pipe-softmax")]
    refs, layout = subplot_grid(1, 3, 3, titles, 0.03 if presentation else 0.07, 0.0)
    data = pipeline_heatmaps(scores, mask, weights, len(queries))
    if presentation:  # cell texts at a slide's smallest font, not Plotly's fit to the cell
        for cells in (cells for cells in data if "texttemplate" in cells):
            cells["textfont"] = {**cells.get("textfont", {}), "size": min_font(st.font_size)}
    shapes = pipeline_axes(layout, refs, queries, keys, scores, step, st)
    angle = layout["xaxis"]["tickangle"]  # the key labels push the bottom margin down: room for them too
    label_px = tick_label_px([piece_label(k) for k in keys], angle, st.font_size)
    height = max(1.3 * st.panel_px, st.row_px * len(queries)) + 280 + 6 * st.font_size + label_px
    title, name = t("pipeline-title", layer=layer, head=head), download_name("score-pipeline", layer, head, step)
    layout.update(
        shapes=shapes,
        margin=dict(b=90 + 3 * st.font_size),  # room for the two horizontal colour bars
        **pipeline_colour_axes(scores, presentation),
    )
    return finish(data, layout, st, title, height, name)


def check_pipeline_head(trace: Trace, layer: int, head: int) -> None:
    """Raises ValueError unless the trace recorded decoder scores and has this layer and (numbered) head."""
    if trace.decoder_self_scores is None:
        raise ValueError("this trace has no decoder_self_scores; record it again with the current version")
    n_layers, n_heads = trace.decoder_self_scores.shape[:2]
    if not 0 <= layer < n_layers or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"layer must be in 0..{n_layers - 1} and head in 0..{n_heads - 1}, got {layer!r}, {head!r}")


def pipeline_heatmaps(scores: np.ndarray, mask: np.ndarray, weights: np.ndarray, n_queries: int) -> list[dict]:
    """The four heatmaps: raw scores, the scores the mask keeps, its −∞ cells over their gaps, the weights."""
    score_hover = pair_hover() + "<br>" + t("score-hover") + "<extra></extra>"
    return [
        dict(
            type="heatmap",
            z=scores,
            coloraxis="coloraxis",
            name=t("scores"),
            hovertemplate=score_hover,
            xaxis="x",
            yaxis="y",
        ),
        dict(
            type="heatmap",
            z=np.where(mask, scores, np.nan).astype(np.float32),
            coloraxis="coloraxis",
            hoverongaps=False,
            name=t("masked-scores"),
            hovertemplate=score_hover,
            xaxis="x2",
            yaxis="y2",
        ),
        minus_inf_cells(mask, n_queries),
        dict(
            type="heatmap",
            z=weights,
            coloraxis="coloraxis2",
            name=t("weights"),
            xaxis="x3",
            yaxis="y3",
            hovertemplate=pair_hover() + "<br>" + t("weight-hover") + "<extra></extra>",
        ),
    ]


def minus_inf_cells(mask: np.ndarray, n_queries: int) -> dict:
    """The masked cells of panel 2 in their own grey, marked −∞ while the rows are few enough to read."""
    cells = dict(
        type="heatmap",
        z=np.where(mask, np.nan, 0.0).astype(np.float32),
        xaxis="x2",
        yaxis="y2",
        colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]],
        showscale=False,
        hoverongaps=False,
        name=t("masked-minus-inf", minus_inf=MINUS_INF),
        textfont=dict(color="#555555"),
        hovertemplate=pair_hover() + "<br>" + t("masked-hover", minus_inf=MINUS_INF) + "<extra></extra>",
    )
    if n_queries <= 30:
        cells.update(text=np.where(mask, "", MINUS_INF).tolist(), texttemplate="%{text}")
    return cells


def pipeline_axes(
    layout: dict,
    refs: list[tuple[str, str]],
    queries: Sequence[str],
    keys: Sequence[str],
    scores: np.ndarray,
    step: int | None,
    st: Style,
) -> list[dict]:
    """Fills in the three panels' token axes; returns the outlines of the step's row in each."""
    shapes = []
    for col, (x, y) in enumerate(refs, start=1):
        shapes += mark_step(scores, "mask", step, st.line_width, (x, y))
        layout["xaxis" + x[1:]].update(
            **x_token_ticks(keys, max(1000, st.figure_px) / 3 - 80, st.font_size),  # a slide's: as wide as it
            title=dict(text=axis_title(key_axis_title("decoder_self")) if col == 2 else t("key")),
        )
        layout["yaxis" + y[1:]].update(
            **token_ticks(queries),
            autorange="reversed",
            **title_text(axis_title(query_axis_title("decoder_self")) if col == 1 else None),
            # the same rows in every panel: on a slide only the first names them, leaving the panels room
            showticklabels=col == 1 or st is not PRESENTATION,
        )
    return shapes


def pipeline_colour_axes(scores: np.ndarray, presentation: bool) -> dict:
    """The two colour axes under the panels: scores diverging around 0 (panels 1–2), weights 0–1 (panel 3)."""
    limit = symmetric_range(scores)
    bar = dict(orientation="h", yref="container", y=0.0, yanchor="bottom", thickness=16 if presentation else 10)
    weights_scale = weights_axis(presentation)
    weights_scale["colorbar"] = {**bar, "x": 0.85, "len": 0.28, "title": dict(text=t("weight"), side="top")}
    return dict(
        coloraxis=dict(
            colorscale=colorscale(DIVERGING_SCALE),
            cmid=0,
            cmin=-limit,
            cmax=limit,
            colorbar={**bar, "x": 0.32, "len": 0.6, "title": dict(text=t("score"), side="top")},
        ),
        coloraxis2=weights_scale,
    )
