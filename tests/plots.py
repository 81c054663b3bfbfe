"""Reading figures back in figure tests: their heatmaps and axes, the hover Plotly.js draws, every string, validity."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go

import transformer_viz.figures as F
from transformer_viz.figures.style import esc, piece_label


def heatmaps(fig) -> list:
    """The figure's heatmap traces, in order."""
    return [t for t in fig.data if t.type == "heatmap"]


def axes_of(fig, panel):
    """The layout x and y axes a trace is drawn on."""
    x, y = panel.xaxis or "x", panel.yaxis or "y"  # a single-plot figure leaves them unset
    return fig.layout["xaxis" + x[1:]], fig.layout["yaxis" + y[1:]]


def hover_at(fig, panel, row, col) -> str:
    """The hover label Plotly.js draws over a heatmap cell: %{x} and %{y} show the axes' tick text at that
    position (tickmode "array"; checked in Chromium), %{hovertext} the cell's own hover text."""
    x, y = axes_of(fig, panel)
    label = panel.hovertemplate
    if panel.hovertext is not None:
        label = label.replace("%{hovertext}", np.asarray(panel.hovertext)[row, col])
    return label.replace("%{x}", x.ticktext[list(x.tickvals).index(col)]).replace(
        "%{y}", y.ticktext[list(y.tickvals).index(row)]
    )


def strings(obj):
    """Every string inside a figure's JSON-ready form (fig.to_plotly_json())."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from strings(value)
    elif isinstance(obj, (list, tuple, np.ndarray)):
        for value in obj:
            yield from strings(value)


def tick_labels(tokens) -> list[str]:
    """The tick text of axes labelled with these pieces: as piece_label shows them, escaped."""
    return [esc(piece_label(t)) for t in tokens]


def assert_valid_plotly(fig, name: str = "") -> None:
    """Builders skip Plotly's validation for speed: validating their output afterwards must accept it unchanged,
    and figure_json (which writes the JSON itself) must read back as Plotly's own, with the default config."""
    validated = go.Figure(fig.to_plotly_json())  # raises ValueError on any unknown or ill-typed property
    ours = json.loads(F.figure_json(fig))
    assert ours.pop("config") == F.plot_config(filename=F.download_name_of(fig)), name
    assert ours == json.loads(validated.to_json()), name
