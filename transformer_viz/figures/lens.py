"""The logit lens of a translation: what the decoder would say at each residual point, step by step.

Drawn from trace.logit_lens (probes.lens says what is computed). Two panels share their columns, the steps:
above, each residual point (rows: embed, L0 self, L0 cross, L0 FFN, …) read through the final norm and W_U,
its cell the most probable piece there, coloured by the probability of the token finally chosen; below, each
point's direct contribution to that token's logit. Layers and steps count from 0.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..trace import Trace, residual_points
from .attention import axis_title
from .labels import min_font
from .style import (
    CHAR_EM,
    DIVERGING_SCALE,
    LINE_EM,
    WEIGHTS_SCALE,
    colorbar,
    colorscale,
    download_name,
    esc,
    finish,
    piece_label,
    style,
    subplot_grid,
    symmetric_range,
    tick_label_px,
    x_token_ticks,
)
from .words import t

LENS_PX = 1100  # about how wide the page draws the lens: a whole tab
SUBLAYERS = {"self": "lens-self", "cross": "lens-cross", "ffn": "lens-ffn"}


def point_label(point: str) -> str:
    """A residual point as a row reads it: 'embed' → the embedding's name, 'L0.cross' → 'L0 cross-attn'."""
    if "." not in point:
        return t("lens-embed")
    layer, sublayer = point.split(".")
    return f"{layer} {t(SUBLAYERS[sublayer])}"


def fitted_texts(labels: list[list[str]], cell_px: float, font_size: int) -> tuple[list[list[str]], int]:
    """(cell texts, their font): the largest font up to font_size at which the longest text fits its cell's width;
    at the smallest font, texts still too long are cut with "…"."""
    longest = max((len(text) for row in labels for text in row), default=1)
    font = int(max(min_font(font_size), min(font_size, (cell_px - 4) / (CHAR_EM * max(longest, 1)))))
    room = max(2, int((cell_px - 4) / (CHAR_EM * font)))
    cut = [[text if len(text) <= room else text[: room - 1] + "…" for text in row] for row in labels]
    return cut, font


def logit_lens_figure(trace: Trace, presentation: bool = False, width: float = LENS_PX) -> go.Figure:
    """The lens grid (colour p(chosen token), text the top piece) over each point's direct logit contribution."""
    lens = trace.logit_lens
    if lens is None:
        raise ValueError("the trace has no logit lens (a trace of schema 1)")
    st = style(presentation)
    rows = [point_label(p) for p in residual_points(trace.n_layers)]
    steps = [piece_label(tok) for tok in trace.target_tokens]
    plot_px = width - 140 - 0.6 * st.font_size * max(len(r) for r in rows)  # less the row labels and colour bars
    cell_px = plot_px / max(len(steps), 1)
    tops, font = fitted_texts([[esc(piece_label(p)) for p in row] for row in lens["top_tokens"]], cell_px, st.font_size)
    numbers, number_font = fitted_texts([[f"{v:+.1f}" for v in row] for row in lens["contributions"]], cell_px, font)
    key_ticks = x_token_ticks(steps, plot_px, st.font_size, pieces=False)
    label_px = 14 + tick_label_px(steps, key_ticks["tickangle"], st.font_size) + 3 * st.font_size
    panel_px = len(rows) * max(st.row_px * 1.3, LINE_EM * font + 6)
    height = 2 * panel_px + label_px + 150 + 4 * st.title_size
    titles = [t("lens-top-panel"), t("lens-contribution-panel", norm=norm_name(lens))]
    refs, layout = subplot_grid(2, 1, 2, titles, 0.1, min(0.4, (label_px + 2 * st.font_size) / height))
    hover = t("lens-hover", point="%{y}", step="%{x}") + "<br>"
    data = [
        cell_panel(lens["chosen_probs"], tops, font, "coloraxis", refs[0], hover + t("lens-top-hover")),
        cell_panel(lens["contributions"], numbers, number_font, "coloraxis2", refs[1], hover + t("lens-dla-hover")),
    ]
    data[0]["customdata"] = [
        [[esc(piece_label(p)), float(q)] for p, q in zip(row, probs)]
        for row, probs in zip(lens["top_tokens"], lens["top_probs"])
    ]
    step_ticks = dict(key_ticks, title=dict(text=axis_title(t("lens-step-axis"))))
    row_ticks = dict(tickvals=list(range(len(rows))), ticktext=rows, autorange="reversed")
    for (x, y), top in zip(refs, (True, False)):
        layout["xaxis" + x[1:]].update(step_ticks if not top else key_ticks)
        layout["yaxis" + y[1:]].update(row_ticks, title=dict(text=axis_title(t("lens-point-axis"))))
    bound = symmetric_range(lens["contributions"])
    layout["coloraxis"] = colour_axis(WEIGHTS_SCALE, 0, 1, t("lens-p-chosen"), presentation, layout["yaxis"])
    layout["coloraxis2"] = colour_axis(DIVERGING_SCALE, -bound, bound, t("lens-logit"), presentation, layout["yaxis2"])
    title = t("lens-title", norm=norm_name(lens))
    return finish(data, layout, st, title, height, download_name("logit-lens"), width=width)


def norm_name(lens: dict) -> str:
    """What the lens reads the stream through: the final LayerNorm, or nothing (a post-LN model has none)."""
    return t("lens-with-norm") if lens.get("final_norm") else t("lens-without-norm")


def cell_panel(z: np.ndarray, texts: list[list[str]], font: int, axis: str, ref: tuple[str, str], hover: str) -> dict:
    """One heatmap whose cells carry a text each, on colour axis `axis`."""
    return dict(
        type="heatmap",
        z=np.asarray(z, dtype=np.float32),
        coloraxis=axis,
        text=texts,
        texttemplate="%{text}",
        textfont=dict(size=font),
        hovertemplate=hover + "<extra></extra>",
        xgap=1,
        ygap=1,
        xaxis=ref[0],
        yaxis=ref[1],
    )


def colour_axis(scale: str, low: float, high: float, title: str, presentation: bool, yaxis: dict) -> dict:
    """A colour axis whose bar stands beside its own panel (`yaxis`'s domain)."""
    y0, y1 = yaxis["domain"]
    bar = dict(colorbar(title, presentation), y=(y0 + y1) / 2, len=y1 - y0, yanchor="middle")
    return dict(colorscale=colorscale(scale), cmin=low, cmax=high, colorbar=bar)
