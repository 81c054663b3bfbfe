"""Attention beside attribution: what the step attended to, and what its chosen token's probability depends on.

The numbers come from lab.agreement (which says how each is computed); these builders only draw them. Rows are
the target steps (row t: the query that produced y_t), columns the source words. Layers and heads count from 0.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..lab.agreement import METHODS, Agreement, agreement, attention_words
from ..trace import Trace
from .attention import axis_title, weights_axis
from .lens import colour_axis
from .style import (
    DIVERGING_SCALE,
    colorbar,
    colorscale,
    download_name,
    esc,
    finish,
    piece_label,
    style,
    subplot_grid,
    tick_font,
    tick_label_px,
    token_ticks,
    x_token_ticks,
)
from .units import readable
from .words import t

MAPS_PX = 1100  # about how wide the page draws the maps: a whole tab
AGREEMENT_PX = 700
ATTENTION_PANELS = ("attention", "best_head", "rollout")
ATTRIBUTION_PANELS = ("integrated_gradients", "gradient_x_input")


def panel_title(name: str, layer: int, best: tuple[int, int], steps: int | None = None) -> str:
    """A panel's title: what it shows, with its layer or head."""
    return t(f"attr-panel-{name}", layer=layer, best_layer=best[0], best_head=best[1], steps=steps)


def row_normalised(z: np.ndarray) -> np.ndarray:
    """Each row divided by its largest |value|, so that every step shows its own pattern in [-1, 1]."""
    scale = np.abs(z).max(axis=-1, keepdims=True)
    return np.divide(z, scale, out=np.zeros_like(z), where=scale > 0)


def attribution_figure(trace: Trace, layer: int | None = None, presentation: bool = False) -> go.Figure:
    """Head-mean cross-attention of `layer`, the best alignment head and rollout; under them, when the trace carries
    an attribution, integrated gradients and gradient × input (signed, each row scaled to its largest value)."""
    layer, best, words, weights = attention_words(trace, layer)
    found = agreement(trace, layer) if trace.attribution is not None else None
    st = style(presentation)
    names = list(ATTENTION_PANELS) + (list(ATTRIBUTION_PANELS) if found else [])
    n_rows = 2 if found else 1
    steps = found and trace.attribution["ig_steps"]
    titles = [panel_title(name, layer, best, steps) for name in names]
    labels = readable(words)
    queries = [piece_label(tok) for tok in trace.target_tokens]
    key_ticks = x_token_ticks(labels, MAPS_PX / 3 - 90, st.font_size, pieces=False)
    label_px = 14 + tick_label_px(labels, key_ticks["tickangle"], st.font_size) + 3 * st.font_size
    panel_px = max(0.8 * st.panel_px, st.row_px * len(queries))
    height = n_rows * panel_px + (n_rows - 1) * label_px + label_px + 120 + 4 * st.title_size
    spacing = min(0.3, (label_px + 2 * st.font_size) / height)
    refs, layout = subplot_grid(n_rows, 3, len(names), titles, 0.12 if presentation else 0.08, spacing)
    query_ticks = dict(**token_ticks(queries, pieces=False), autorange="reversed")
    query_ticks.update(tick_font(len(queries), panel_px, st.font_size))
    data = []
    for i, (name, (x, y)) in enumerate(zip(names, refs)):
        signed = name in ATTRIBUTION_PANELS
        z = row_normalised(found.signed[name]) if signed else weights[name]
        data.append(map_panel(z, name, "coloraxis2" if signed else "coloraxis", (x, y), signed))
        layout["xaxis" + x[1:]].update(key_ticks, **({"title": dict(text=t("attr-source-axis"))} if i % 3 == 0 else {}))
        layout["yaxis" + y[1:]].update(
            query_ticks, **({"title": dict(text=t("attr-target-axis"))} if i % 3 == 0 else {})
        )
    layout["coloraxis"] = dict(weights_axis(presentation), colorbar=bar(t("weight"), presentation, layout["yaxis"]))
    if found:
        layout["coloraxis2"] = colour_axis(DIVERGING_SCALE, -1, 1, t("attr-share"), presentation, layout["yaxis4"])
    title = t("attr-title", layer=layer) + ("" if found else "<br>" + t("attr-not-yet"))
    return finish(data, layout, st, title, height, download_name("attention-vs-attribution", layer), width=MAPS_PX)


def bar(title: str, presentation: bool, yaxis: dict) -> dict:
    """A colour bar beside the panels of `yaxis`'s row."""
    y0, y1 = yaxis["domain"]
    return dict(colorbar(title, presentation), y=(y0 + y1) / 2, len=y1 - y0, yanchor="middle")


def map_panel(z: np.ndarray, name: str, axis: str, ref: tuple[str, str], signed: bool) -> dict:
    """One (steps × source words) heatmap; the hover names the pair through the axes' tick text."""
    value = t("attr-share-hover") if signed else t("weight-hover")
    return dict(
        type="heatmap",
        z=np.asarray(z, dtype=np.float32),
        coloraxis=axis,
        name=t(f"attr-method-{name}"),
        hovertemplate=t("attr-pair-hover") + "<br>" + value + "<extra>%{fullData.name}</extra>",
        xaxis=ref[0],
        yaxis=ref[1],
    )


def agreement_cells(found: Agreement) -> tuple[np.ndarray, list[list[str]]]:
    """(ρ per step and method, with the sentence's mean as a last row; each cell's text: ρ and a top-1 mark)."""
    rho = np.stack([found.rho[m] for m in METHODS], axis=-1)  # (T, M)
    means = np.array([found.mean_rho(m) for m in METHODS])
    texts = [
        [f"{number(r)} {'✓' if same else '✗'}" for r, same in zip(row, marks)]
        for row, marks in zip(rho, np.stack([found.top1[m] for m in METHODS], axis=-1))
    ]
    hits = [int(found.top1[m].sum()) for m in METHODS]
    texts.append([f"{number(r)} · {k}/{len(rho)}" for r, k in zip(means, hits)])
    return np.vstack([rho, means[None]]).astype(np.float32), texts


def number(value: float) -> str:
    return "–" if not np.isfinite(value) else f"{value:.2f}"


def agreement_figure(trace: Trace, layer: int | None = None, presentation: bool = False) -> go.Figure:
    """Per step (rows) and method (columns): Spearman ρ with |integrated gradients| over the source words and
    whether the top word agrees (✓); the last row is the sentence: mean ρ and how many steps agree."""
    found = agreement(trace, layer)
    st = style(presentation)
    z, texts = agreement_cells(found)
    rows = [esc(piece_label(tok)) for tok in trace.target_tokens] + [t("attr-sentence")]
    columns = [t(f"attr-method-{m}", layer=found.layer) for m in METHODS]
    cells = dict(type="heatmap", z=z, coloraxis="coloraxis", text=texts, texttemplate="%{text}", xgap=2, ygap=2)
    cells["hovertemplate"] = "%{y} · %{x}<br>ρ = %{z:.2f}<extra></extra>"
    ticks = x_token_ticks(columns, AGREEMENT_PX - 200, st.font_size, pieces=False)
    layout = dict(
        xaxis=dict(ticks, title=dict(text=t("attr-method-axis"))),
        yaxis=dict(
            tickvals=list(range(len(rows))),
            ticktext=rows,
            autorange="reversed",
            title=dict(text=axis_title(t("attr-target-axis"))),
        ),
        coloraxis=dict(
            colorscale=colorscale(DIVERGING_SCALE), cmin=-1, cmax=1, colorbar=colorbar(t("attr-rho"), presentation)
        ),
    )
    change = np.abs(np.asarray(trace.attribution["log_probs"]) - trace.attribution["baseline_log_probs"]).sum()
    gap = float(np.abs(found.completeness).sum() / change) if change > 0 else 0.0
    title = t("attr-agreement-title", steps=trace.attribution["ig_steps"], gap=gap)
    height = len(rows) * max(1.6 * st.row_px, 2.0 * st.font_size) + 220 + 6 * st.title_size
    name = download_name("attention-attribution-agreement", found.layer)
    return finish([cells], layout, st, title, height, name, width=AGREEMENT_PX)
