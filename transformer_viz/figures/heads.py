"""Beyond one head's heatmap: every head summarised, attention rollout beside raw attention, words instead of pieces.

The numbers come from transformer_viz.analysis; these builders only draw them. Layers and heads count from 0.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..lab.analysis import DETECTOR_THRESHOLD, DETECTORS, ROLLOUT_RESIDUAL, attention_rollout, head_summary, word_level
from ..trace import Trace
from .attention import (
    attention_axes,
    axis_title,
    head_label,
    head_matrix,
    key_axis_title,
    kind_name,
    query_axis_title,
    tick_font,
    weight_heatmap,
    weights_axis,
)
from .style import (
    CHAR_EM,
    WEIGHTS_SCALE,
    colorbar,
    colorscale,
    esc,
    finish,
    piece_label,
    style,
    subplot_grid,
    title_text,
    token_ticks,
    x_token_ticks,
)
from .words import t


def label_name(label: str) -> str:
    """A detector's label as analysis.LABEL_NAMES writes it ("previous token"), in the figures' language."""
    return t("label-" + label)


def head_summary_figure(
    trace: Trace,
    kind: str,
    presentation: bool = False,
    threshold: float = DETECTOR_THRESHOLD,
    width: float | None = None,
) -> go.Figure:
    """Layer (rows) × head (columns): colour = confidence, text = label; hover adds entropy and every score.

    Each cell's customdata is [layer, head]: in a Plotly click event, `points[0].customdata` names the head
    to open. Labels and thresholds are those of transformer_viz.analysis (DETECTORS, DETECTOR_THRESHOLD).
    """
    summary = head_summary(trace, kind, threshold)  # raises on an unknown kind
    st = style(presentation)
    n_layers, n_heads = summary.confidence.shape
    keys = attention_axes(trace, kind)[1]
    hover = [[hover_text(summary.head(layer, head), keys) for head in range(n_heads)] for layer in range(n_layers)]
    texts = [[cell_text(summary.head(layer, head)) for head in range(n_heads)] for layer in range(n_layers)]
    if width is None:  # how wide the page draws it: a third of a tab on screen, as wide as a slide in a slide look
        width = st.figure_px if presentation else SUMMARY_PX
    cell = dict(
        type="heatmap",
        z=summary.confidence.astype(np.float32),
        coloraxis="coloraxis",
        name=t("heads"),
        # the cell shows the detector's short name (as the explanations use it) over its best score, on two
        # lines so that no label runs into the next cell; the hover names it in full and lists every score
        text=texts,
        texttemplate="%{text}",
        textfont=dict(size=cell_font(texts, n_heads, st.font_size, width)),
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
        customdata=[[[layer, head] for head in range(n_heads)] for layer in range(n_layers)],
        xgap=2,
        ygap=2,
    )
    layout = dict(
        xaxis=dict(
            tickvals=list(range(n_heads)), ticktext=[f"H{h}" for h in range(n_heads)], title=dict(text=t("head-axis"))
        ),
        yaxis=dict(
            tickvals=list(range(n_layers)),
            ticktext=[f"L{i}" for i in range(n_layers)],
            autorange="reversed",
            title=dict(text=t("layer-axis")),
        ),
        coloraxis=dict(
            colorscale=colorscale(WEIGHTS_SCALE),
            cmin=0,
            cmax=1,
            colorbar=colorbar(t("confidence"), presentation),
        ),
    )
    detectors = ", ".join(label_name(name) for name in DETECTORS[kind])
    hint = "" if presentation else t("summary-hint")  # a slide is not clicked
    title = t("summary-title", kind=kind_name(kind), detectors=detectors, threshold=threshold, hint=hint)
    height = n_layers * (2.6 * st.row_px + 2 * st.font_size) + 120 + 6 * st.title_size
    return finish([cell], layout, st, title, max(260, height), width=width)


SUMMARY_PX = 400  # a head summary's width on the page: three side by side


def cell_font(texts: list[list[str]], n_heads: int, font_size: int, width: float) -> int:
    """A cell text's font: its longest line fits the cell's width (a share of the figure's `width`, SUMMARY_PX on
    screen, a slide's for slides, beside the axes)."""
    longest = max(len(line) for row in texts for text in row for line in text.split("<br>"))
    cell_px = (width - 230) / max(n_heads, 1)  # less the layer labels and title, the colour bar
    return int(max(8, min(font_size - 2, cell_px / (CHAR_EM * longest))))


def cell_text(head: dict) -> str:
    """A cell's two lines: the label's short name in the figures' language and the best detector's score, e.g.
    "self<br>0.83" ("直前<br>0.83" in Japanese)."""
    return f"{t('label-short-' + head['label'])}<br>{max(head['scores'].values(), default=0.0):.2f}"


def hover_text(head: dict, keys: list[str]) -> str:
    """One head's hover: label, confidence, entropy and each detector's score, naming the sink key."""
    scores = " · ".join(f"{label_name(name)} {score:.2f}" for name, score in head["scores"].items())
    scores += "<br>" + t("sink-key", token=esc(piece_label(keys[head["sink_key"]])), k=head["sink_key"])
    return t(
        "head-hover",
        layer=head["layer"],
        head=head["head"],
        label=label_name(head["label"]),
        confidence=head["confidence"],
        entropy=head["entropy"],
        scores=scores,
    )


def share(fraction: float) -> str:
    """A mixing weight as the title writes it: ½ for 0.5, else up to two decimals (0.3, 1)."""
    return "½" if abs(fraction - 0.5) < 1e-9 else f"{fraction:.2f}".rstrip("0").rstrip(".")


def rollout_figure(
    trace: Trace,
    layer: int | None = None,
    presentation: bool = False,
    words: bool = False,
    residual: float = ROLLOUT_RESIDUAL,
) -> go.Figure:
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
    raw = head_matrix(trace, "encoder_self", layer, "mean")  # (S, S)
    rolled = attention_rollout(trace.attention["encoder_self"], residual)[layer]  # (S, S)
    tokens = trace.source_tokens
    queries = keys = tokens
    if words:
        raw, queries, keys = word_level(raw, tokens, tokens)
        rolled = word_level(rolled, tokens, tokens)[0]
    panels = [
        (
            t("raw-attention"),
            t("rollout-raw-panel", name=t("raw-attention"), layer=layer, head=head_label("mean", trace.n_heads)),
            raw,
        ),
        (
            t("rollout"),
            t("rollout-panel", name=t("rollout"), layer=layer, attn=share(1 - residual), res=share(residual)),
            rolled,
        ),
    ]
    panel_px = max(st.panel_px, st.row_px * len(queries))
    label_px = 14 + st.font_size * 0.6 * max(len(k) for k in keys) + 3 * st.font_size
    height = panel_px + label_px + 140 + 3 * st.font_size
    refs, layout = subplot_grid(1, 2, 2, [title for _, title, _ in panels], 0.14 if presentation else 0.1, 0.1)
    key_ticks = x_token_ticks(keys, 420, st.font_size, pieces=not words)
    query_ticks = dict(
        **token_ticks(queries, pieces=not words),
        autorange="reversed",
        **tick_font(len(queries), panel_px, st.font_size),
    )
    data = []
    unit = t("unit-word") if words else t("unit-token")
    key_titles = (t("rollout-key-raw", unit=unit), t("rollout-key", unit=unit))
    query_titles = (t("rollout-query-raw", unit=unit), t("rollout-query", layer=layer))
    for i, ((name, _, z), (x, y)) in enumerate(zip(panels, refs)):
        data.append(weight_heatmap(np.asarray(z, dtype=np.float32), name, axes=(x, y)))
        layout["xaxis" + x[1:]].update(key_ticks, **title_text(axis_title(key_titles[i])))
        layout["yaxis" + y[1:]].update(query_ticks, **title_text(axis_title(query_titles[i])))
    title = t("rollout-title") + (t("words-suffix") if words else "")
    return finish(data, {**layout, "coloraxis": weights_axis(presentation)}, st, title, height)


def word_attention_figure(
    trace: Trace, kind: str, layer: int, head: int | str = "mean", presentation: bool = False
) -> go.Figure:
    """One head (or the head mean) with SentencePiece pieces merged into words on both axes.

    A key word's weight is the sum over its pieces; a query word's row is the mean of its pieces' rows,
    so every row is still a distribution over key words. Pieces starting with "▁" start a word.
    """
    queries, keys = attention_axes(trace, kind)
    st = style(presentation)
    z, query_words, key_words = word_level(head_matrix(trace, kind, layer, head), queries, keys)
    label = f"L{layer} {head_label(head, trace.n_heads)}"
    layout = dict(
        xaxis=dict(
            **x_token_ticks(key_words, 900, st.font_size, pieces=False),
            title=dict(text=axis_title(key_axis_title(kind, words=True))),
        ),
        yaxis=dict(
            **token_ticks(query_words, pieces=False),
            autorange="reversed",
            title=dict(text=axis_title(query_axis_title(kind, words=True))),
            **tick_font(len(query_words), 1.3 * st.row_px * len(query_words), st.font_size),
        ),
        coloraxis=weights_axis(presentation),
    )
    title = t("words-title", kind=kind_name(kind), layer=layer, head=head_label(head, trace.n_heads))
    height = max(1.6 * st.panel_px, 1.3 * st.row_px * len(query_words)) + 200 + 4 * st.font_size
    return finish([weight_heatmap(np.asarray(z, dtype=np.float32), label, show_values=True)], layout, st, title, height)
