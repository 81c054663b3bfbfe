"""Beyond one head's heatmap: every head summarised, attention rollout beside raw attention, words instead of pieces.

The numbers come from transformer_viz.analysis; these builders only draw them. Layers and heads count from 0.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..analysis import (DETECTOR_THRESHOLD, DETECTORS, LABEL_NAMES, ROLLOUT_RESIDUAL, attention_rollout,
                        head_summary, word_level)
from ..trace import Trace
from .attention import (KEY_TITLES, KIND_NAMES, QUERY_TITLES, attention_axes, axis_title, head_label, head_matrix,
                        tick_font, weight_heatmap, weights_axis)
from .style import WEIGHTS_SCALE, colorscale, esc, finish, style, subplot_grid, title_text, token_ticks


def head_summary_figure(trace: Trace, kind: str, presentation: bool = False,
                        threshold: float = DETECTOR_THRESHOLD) -> go.Figure:
    """Layer (rows) × head (columns): colour = confidence, text = label; hover adds entropy and every score.

    Each cell's customdata is [layer, head]: in a Plotly click event, `points[0].customdata` names the head
    to open. Labels and thresholds are those of transformer_viz.analysis (DETECTORS, DETECTOR_THRESHOLD).
    """
    summary = head_summary(trace, kind, threshold)  # raises on an unknown kind
    st = style(presentation)
    n_layers, n_heads = summary.confidence.shape
    keys = attention_axes(trace, kind)[1]
    hover = [[hover_text(summary.head(layer, head), keys) for head in range(n_heads)] for layer in range(n_layers)]
    cell = dict(
        type="heatmap", z=summary.confidence.astype(np.float32), coloraxis="coloraxis", name="heads",
        text=[[LABEL_NAMES[label] for label in row] for row in summary.labels], texttemplate="%{text}",
        textfont=dict(size=max(9, st.font_size - 2)), hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        customdata=[[[layer, head] for head in range(n_heads)] for layer in range(n_layers)],
        xgap=2, ygap=2,
    )
    layout = dict(
        xaxis=dict(tickvals=list(range(n_heads)), ticktext=[f"H{h}" for h in range(n_heads)], title=dict(text="head")),
        yaxis=dict(tickvals=list(range(n_layers)), ticktext=[f"L{l}" for l in range(n_layers)], autorange="reversed",
                   title=dict(text="layer")),
        coloraxis=dict(colorscale=colorscale(WEIGHTS_SCALE), cmin=0, cmax=1,
                       colorbar=dict(title=dict(text="confidence<br>(mean max weight)"),
                                     thickness=24 if presentation else 14)),
    )
    detectors = ", ".join(LABEL_NAMES[name] for name in DETECTORS[kind])
    title = (f"{KIND_NAMES[kind]} · what each Layer × Head does · click a head to open it"
             f"<br><sup>label: {detectors} when its score ≥ {threshold:.2f}, else mixed</sup>")
    height = n_layers * (2.6 * st.row_px + 2 * st.font_size) + 120 + 3 * st.title_size
    return finish([cell], layout, st, title, max(260, height))


def hover_text(head: dict, keys: list[str]) -> str:
    """One head's hover: label, confidence, entropy and each detector's score, naming the sink key."""
    scores = " · ".join(f"{LABEL_NAMES[name]} {score:.2f}" for name, score in head["scores"].items())
    scores += f"<br>sink key: {esc(keys[head['sink_key']])} (key {head['sink_key']})"
    return (f"Layer {head['layer']} · Head {head['head']}<br>label: {LABEL_NAMES[head['label']]}"
            f"<br>confidence {head['confidence']:.2f} · entropy {head['entropy']:.2f} nats"
            f"<br>scores: {scores}<br>click to open")


def rollout_figure(trace: Trace, layer: int | None = None, presentation: bool = False, words: bool = False,
                   residual: float = ROLLOUT_RESIDUAL) -> go.Figure:
    """Encoder self-attention at `layer` (mean over heads) beside its rollout through layers 0..layer.

    Rollout (Abnar & Zuidema 2020): Ã = ½ Ā + ½ I per layer (Ā the head mean, rows renormalised),
    R = Ã_layer … Ã_0; row i says how much of each input token has reached position i. words=True merges
    SentencePiece pieces into words on both panels (keys summed, queries averaged: rows still sum to 1).
    """
    n_layers = trace.n_layers
    layer = n_layers - 1 if layer is None else layer
    if not isinstance(layer, (int, np.integer)) or not 0 <= layer < n_layers:
        raise ValueError(f"layer must be in 0..{n_layers - 1}, got {layer!r}")
    st = style(presentation)
    raw = head_matrix(trace, "encoder_self", layer, "mean")                   # (S, S)
    rolled = attention_rollout(trace.attention["encoder_self"], residual)[layer]  # (S, S)
    tokens = trace.source_tokens
    queries = keys = tokens
    if words:
        raw, queries, keys = word_level(raw, tokens, tokens)
        rolled = word_level(rolled, tokens, tokens)[0]
    panels = [(f"Raw attention · Layer {layer} · {head_label('mean', trace.n_heads)}", raw),
              (f"Rollout · Layers 0–{layer} · ½ attention + ½ residual", rolled)]
    panel_px = max(st.panel_px, st.row_px * len(queries))
    label_px = 14 + st.font_size * 0.6 * max(len(k) for k in keys) + 3 * st.font_size
    height = panel_px + label_px + 140 + 3 * st.font_size
    refs, layout = subplot_grid(1, 2, 2, [title for title, _ in panels], 0.14 if presentation else 0.1, 0.1)
    key_ticks = dict(**token_ticks(keys), tickangle=-90, **tick_font(len(keys), 420, st.font_size))
    query_ticks = dict(**token_ticks(queries), autorange="reversed", **tick_font(len(queries), panel_px, st.font_size))
    data = []
    unit = "word" if words else "source token"
    key_titles = (f"key ({unit})", f"input {unit} (key)")
    query_titles = (f"query ({unit})", f"position after layer {layer} (query)")
    for i, ((name, z), (x, y)) in enumerate(zip(panels, refs)):
        data.append(weight_heatmap(np.asarray(z, dtype=np.float32), name.split(" · ")[0], axes=(x, y)))
        layout["xaxis" + x[1:]].update(key_ticks, **title_text(axis_title(key_titles[i])))
        layout["yaxis" + y[1:]].update(query_ticks, **title_text(axis_title(query_titles[i])))
    title = f"Encoder: raw attention vs. attention rollout{' · words' if words else ''}"
    return finish(data, {**layout, "coloraxis": weights_axis(presentation)}, st, title, height)


def word_attention_figure(trace: Trace, kind: str, layer: int, head: int | str = "mean",
                          presentation: bool = False) -> go.Figure:
    """One head (or the head mean) with SentencePiece pieces merged into words on both axes.

    A key word's weight is the sum over its pieces; a query word's row is the mean of its pieces' rows,
    so every row is still a distribution over key words. Pieces starting with "▁" start a word.
    """
    queries, keys = attention_axes(trace, kind)
    st = style(presentation)
    z, query_words, key_words = word_level(head_matrix(trace, kind, layer, head), queries, keys)
    label = f"L{layer} {head_label(head, trace.n_heads)}"
    layout = dict(
        xaxis=dict(**token_ticks(key_words), tickangle=-90, title=dict(text=axis_title(word_title(KEY_TITLES[kind]))),
                   **tick_font(len(key_words), 900, st.font_size)),
        yaxis=dict(**token_ticks(query_words), autorange="reversed",
                   title=dict(text=axis_title(word_title(QUERY_TITLES[kind]))),
                   **tick_font(len(query_words), 1.3 * st.row_px * len(query_words), st.font_size)),
        coloraxis=weights_axis(presentation),
    )
    title = (f"{KIND_NAMES[kind]} · Layer {layer} · {head_label(head, trace.n_heads)} · words"
             f"<br><sup>pieces merged: key weights summed, query rows averaged</sup>")
    height = max(1.6 * st.panel_px, 1.3 * st.row_px * len(query_words)) + 200 + 4 * st.font_size
    return finish([weight_heatmap(np.asarray(z, dtype=np.float32), label, show_values=True)], layout, st, title,
                  height)


def word_title(title: str) -> str:
    """An axis title about tokens, said about words: "key (source token)" → "key (source word)"."""
    return title.replace("token", "word").replace("<s>, y1, y2, …", "<s> and the target words")
