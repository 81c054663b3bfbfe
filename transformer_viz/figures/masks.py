"""Masks (1 = may attend) and how the causal mask turns scores into weights: QKᵀ/√d → −∞ → softmax."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..trace import Trace
from .attention import KEY_TITLES, QUERY_TARGET, axis_title, check_step, mark_step, weights_axis
from .style import DIVERGING_SCALE, MASKED_GREY, OKABE_ITO, esc, finish, pair_hover, style, symmetric_range, token_ticks

ATTEND = OKABE_ITO["blue"]
BINARY_SCALE = [[0.0, MASKED_GREY], [0.5, MASKED_GREY], [0.5, ATTEND], [1.0, ATTEND]]
MINUS_INF = "−∞"


def mask_matrix(mask, query_tokens: Sequence[str], key_tokens: Sequence[str], title: str,
                presentation: bool = False, query_title: str = "query", key_title: str = "key",
                step: int | None = None) -> go.Figure:
    """A boolean mask as two colours: 1 = may attend, 0 = masked; `step` outlines that query row."""
    z = np.asarray(mask).astype(np.int8)  # (queries, keys)
    if z.shape != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"mask shape {z.shape} does not match {len(query_tokens)} queries × {len(key_tokens)} keys")
    st = style(presentation)
    status = np.where(z == 1, "may attend (1)", "masked (0)")
    hover = [[f"{cell}<br>{state}" for cell, state in zip(row, states)]
             for row, states in zip(pair_hover(query_tokens, key_tokens, "query", "key"), status)]
    fig = go.Figure(go.Heatmap(
        z=z, zmin=0, zmax=1, colorscale=BINARY_SCALE, xgap=1, ygap=1, hovertext=hover, name="mask",
        hovertemplate="%{hovertext}<extra></extra>",
        colorbar=dict(tickvals=[0.25, 0.75], ticktext=["masked", "may attend"], thickness=24 if presentation else 14),
    ))
    mark_step(fig, z.astype(np.float32), "mask", step, st.line_width)
    fig.update_xaxes(**token_ticks(key_tokens), tickangle=-90, title_text=axis_title(key_title))
    fig.update_yaxes(**token_ticks(query_tokens), autorange="reversed", title_text=axis_title(query_title))
    height = max(1.4 * st.panel_px, 1.2 * st.row_px * len(query_tokens)) + 200 + 4 * st.font_size
    return finish(fig, st, esc(title), height)


def encoder_padding_mask(trace: Trace, partner_len: int, presentation: bool = False) -> go.Figure:
    """The encoder mask when this sentence shares a batch with a longer one: it is padded with <pad> to
    `partner_len` tokens, and no query may attend to a <pad> key (the <pad> rows' outputs are ignored)."""
    n_real = len(trace.source_tokens)
    if partner_len < 1:
        raise ValueError(f"partner_len must be a positive number of tokens, got {partner_len!r}")
    width = max(n_real, int(partner_len))
    tokens = trace.source_tokens + ["<pad>"] * (width - n_real)
    mask = np.broadcast_to(np.arange(width) < n_real, (width, width))  # (S', S'): key j is a real token
    title = f"Encoder padding mask: {n_real} tokens padded to {width} (a longer sentence in the batch)"
    return mask_matrix(mask, tokens, tokens, title, presentation, "query (source token)", "key (source token)")


def decoder_causal_mask(trace: Trace, step: int | None = None, presentation: bool = False) -> go.Figure:
    """The causal mask the decoder used: the query producing y_t sees <s>, y1 … y(t-1), never the future."""
    check_step(trace, step)
    return mask_matrix(trace.masks["decoder"], trace.target_tokens, trace.decoder_input_tokens,
                       "Decoder causal mask: no peeking at later tokens", presentation, QUERY_TARGET,
                       KEY_TITLES["decoder_self"], step)


def cross_mask(trace: Trace, step: int | None = None, presentation: bool = False) -> go.Figure:
    """The cross-attention mask: every target query may see every real source token."""
    check_step(trace, step)
    return mask_matrix(trace.masks["cross"], trace.target_tokens, trace.source_tokens,
                       "Cross-attention mask: every source token is visible", presentation, QUERY_TARGET,
                       KEY_TITLES["cross"], step)


def score_pipeline(trace: Trace, layer: int, head: int, step: int | None = None, presentation: bool = False) -> go.Figure:
    """Decoder self-attention of one head in three panels: raw scores QKᵀ/√d_k, scores with the causal mask
    (−∞ cells in grey), and the softmax weights, eq. (1). Panels 1–2 share a diverging scale, 3 is 0–1."""
    check_step(trace, step)
    if trace.decoder_self_scores is None:
        raise ValueError("this trace has no decoder_self_scores; record it again with the current version")
    n_layers, n_heads = trace.decoder_self_scores.shape[:2]
    if not 0 <= layer < n_layers or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"layer must be in 0..{n_layers - 1} and head in 0..{n_heads - 1}, got {layer!r}, {head!r}")
    st = style(presentation)
    queries, keys = trace.target_tokens, trace.decoder_input_tokens
    scores = trace.decoder_self_scores[layer, head].astype(np.float32)  # (T, T)
    mask = np.asarray(trace.masks["decoder"], dtype=bool)
    weights = trace.attention["decoder_self"][layer, head].astype(np.float32)
    hover = pair_hover(queries, keys, "query", "key")
    titles = ["1 · scores QKᵀ/√d<sub>k</sub>", f"2 · causal mask: future keys → {MINUS_INF}", "3 · softmax → weights"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=titles, horizontal_spacing=0.1 if presentation else 0.07)
    score_hover = "%{hovertext}<br>score: %{z:.3f}<extra></extra>"
    fig.add_trace(go.Heatmap(z=scores, coloraxis="coloraxis", hovertext=hover, name="scores",
                             hovertemplate=score_hover), row=1, col=1)
    fig.add_trace(go.Heatmap(z=np.where(mask, scores, np.nan).astype(np.float32), coloraxis="coloraxis",
                             hovertext=hover, hoverongaps=False, name="masked scores", hovertemplate=score_hover),
                  row=1, col=2)
    masked = np.where(mask, np.nan, 0.0).astype(np.float32)  # the −∞ cells, drawn in their own colour
    fig.add_trace(go.Heatmap(
        z=masked, colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]], showscale=False, hoverongaps=False,
        name=f"masked ({MINUS_INF})", hovertext=hover,
        hovertemplate=f"%{{hovertext}}<br>score: {MINUS_INF} (masked) → weight 0<extra></extra>",
        text=np.where(mask, "", MINUS_INF).tolist() if len(queries) <= 30 else None, texttemplate="%{text}",
        textfont=dict(color="#555555"),
    ), row=1, col=2)
    fig.add_trace(go.Heatmap(z=weights, coloraxis="coloraxis2", hovertext=hover, name="weights",
                             hovertemplate="%{hovertext}<br>weight: %{z:.3f}<extra></extra>"), row=1, col=3)
    for col in (1, 2, 3):
        mark_step(fig, scores, "mask", step, st.line_width, row=1, col=col)
        fig.update_xaxes(**token_ticks(keys), tickangle=-90, title_text=axis_title(KEY_TITLES["decoder_self"]) if col == 2
                         else "key", row=1, col=col)
        fig.update_yaxes(**token_ticks(queries), autorange="reversed", row=1, col=col,
                         title_text=axis_title(QUERY_TARGET) if col == 1 else None)
    limit = symmetric_range(scores)
    bar = dict(orientation="h", yref="container", y=0.0, yanchor="bottom", thickness=16 if presentation else 10)
    weights_scale = weights_axis(presentation)
    weights_scale["colorbar"] = {**bar, "x": 0.85, "len": 0.28, "title": dict(text="weight", side="top")}
    height = max(1.3 * st.panel_px, st.row_px * len(queries)) + 280 + 6 * st.font_size
    title = f"Decoder self-attention, scores → weights · Layer {layer} · Head {head}"
    fig = finish(fig, st, title, height,
                 coloraxis=dict(colorscale=DIVERGING_SCALE, cmid=0, cmin=-limit, cmax=limit,
                                colorbar={**bar, "x": 0.32, "len": 0.6, "title": dict(text="score", side="top")}),
                 coloraxis2=weights_scale)
    fig.update_layout(margin=dict(b=90 + 3 * st.font_size))
    return fig
