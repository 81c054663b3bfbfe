"""Shared look of every figure: palettes, fonts, the presentation mode, safe labels and the modebar config.

Figures never import torch, the model or gradio: they take a Trace or numpy arrays and return a go.Figure.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import plotly.graph_objects as go

# Okabe & Ito (2008): eight colours that stay distinct for the common colour-vision deficiencies.
OKABE_ITO = {
    "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73", "yellow": "#F0E442",
    "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7", "black": "#000000",
}
CATEGORICAL = [OKABE_ITO[k] for k in ("blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "yellow", "black")]
HIGHLIGHT = OKABE_ITO["vermillion"]   # the current step / the chosen token / the chosen beam path
WEIGHTS_SCALE = "Viridis"             # attention weights in [0, 1]: perceptually uniform, colour-blind safe
DIVERGING_SCALE = "RdBu"              # signed values (positional encodings, raw scores), centred on 0
MASKED_GREY = "#D9D9D9"               # "masked" cells, "not produced yet" rows, pruned beams
FUTURE_SHADE = "rgba(120, 120, 120, 0.35)"

# The modebar's camera button downloads a PNG at 3x the on-screen size: sharp on a projector.
# A vector SVG is available too: plot_config("svg") (Plotly's toImageButtonOptions format "svg").
PLOT_CONFIG = {
    "toImageButtonOptions": {"format": "png", "scale": 3, "filename": "transformer-viz"},
    "displaylogo": False,
}


def plot_config(fmt: str = "png", filename: str = "transformer-viz") -> dict:
    """The Plotly config for showing a figure; fmt is the modebar download format: "png", "svg", "jpeg" or "webp"."""
    if fmt not in ("png", "svg", "jpeg", "webp"):
        raise ValueError(f"fmt must be 'png', 'svg', 'jpeg' or 'webp', got {fmt!r}")
    scale = 1 if fmt == "svg" else 3  # SVG is vector: scaling it only changes its nominal size
    return {**PLOT_CONFIG, "toImageButtonOptions": {"format": fmt, "scale": scale, "filename": filename}}


def figure_json(fig: go.Figure, fmt: str = "png") -> str:
    """The figure's JSON with a "config" key: Gradio's gr.Plot front end passes that key to Plotly.

    In the UI: `gr.Plot(value=PlotData(type="plotly", plot=figure_json(fig)))`, where PlotData
    comes from gradio.components.plot; a bare go.Figure is shown without our modebar config.
    """
    body = fig.to_json()  # keeps Plotly's own encoding (it escapes <, > and / for embedding in HTML)
    return body[:-1] + ',"config":' + json.dumps(plot_config(fmt)) + "}"


def esc(text: object) -> str:
    """Text from user input, shown literally: Plotly renders some HTML tags (and $…$ as LaTeX) in any label."""
    # Plotly turns &lt; &gt; &amp; and numeric entities back into characters; quotes need no escaping.
    return html.escape(str(text), quote=False).replace("$", "&#36;")


@dataclass(frozen=True)
class Style:
    """Sizes and colours of one mode: the everyday light look or the presentation (slides) look."""

    font_size: int
    title_size: int
    line_width: float
    plot_bg: str
    paper_bg: str
    panel_px: int        # nominal height of one heatmap panel, before scaling with the number of rows
    row_px: int          # pixels per token row


LIGHT = Style(font_size=12, title_size=16, line_width=2.0, plot_bg="#F7F7F7", paper_bg="white", panel_px=260, row_px=16)
PRESENTATION = Style(font_size=20, title_size=26, line_width=4.0, plot_bg="white", paper_bg="white", panel_px=380, row_px=26)


def style(presentation: bool) -> Style:
    return PRESENTATION if presentation else LIGHT


def finish(fig: go.Figure, st: Style, title: str, height: int, **layout) -> go.Figure:
    """Apply the shared layout: fonts, backgrounds, title, margins. `title` must already be escaped."""
    fig.update_layout(
        template="none",  # no 7 kB default template in every figure's JSON; everything is set here
        title=dict(text=title, font=dict(size=st.title_size), x=0.5, xanchor="center"),
        font=dict(size=st.font_size, color="#222222"),
        **{"paper_bgcolor": st.paper_bg, "plot_bgcolor": st.plot_bg,
           "margin": dict(l=40, r=40, t=70 + 2 * st.title_size, b=40), **layout},
        height=int(height), hoverlabel=dict(font=dict(size=st.font_size)),
    )
    fig.update_annotations(font=dict(size=st.font_size + 1))  # subplot titles
    fig.update_xaxes(showgrid=False, zeroline=False, automargin=True, linecolor="#888888", ticks="")
    fig.update_yaxes(showgrid=False, zeroline=False, automargin=True, linecolor="#888888", ticks="")
    return fig


def token_ticks(tokens: Sequence[str]) -> dict:
    """Axis settings labelling positions 0..n-1 with tokens: integer positions keep duplicates apart
    (Plotly merges equal category labels), the tick text shows each token literally."""
    return dict(tickmode="array", tickvals=list(range(len(tokens))), ticktext=[esc(t) for t in tokens])


def pair_hover(query_tokens: Sequence[str], key_tokens: Sequence[str], query_name: str, key_name: str) -> list[list[str]]:
    """Hover text for every (query, key) cell; the value itself comes from the hovertemplate (%{z})."""
    q = [f"{query_name} {i}: {esc(t)}" for i, t in enumerate(query_tokens)]
    k = [f"{key_name} {j}: {esc(t)}" for j, t in enumerate(key_tokens)]
    return [[f"{qi}<br>{kj}" for kj in k] for qi in q]


def symmetric_range(values: np.ndarray) -> float:
    """Half-width of a colour range centred on 0 that covers every finite value."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0
