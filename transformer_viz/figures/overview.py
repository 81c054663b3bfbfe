"""Every layer × head of one attention kind as thumbnails, to pick one to open (attention.py draws one large)."""

from __future__ import annotations

import plotly.graph_objects as go

from ..trace import Trace
from .attention import attention_axes, head_matrix, kind_name, weights_axis
from .style import KIND_NAMES, download_name, finish, style, subplot_grid
from .units import map_axes
from .words import t


def overview(trace: Trace, kind: str, presentation: bool = False, units: str = "pieces") -> go.Figure:
    """Every layer × head as a thumbnail (rows = layers, columns = heads), to pick one to open; units as
    attention_grid's (the thumbnails have no tick labels: words change their cells and their title).

    Trace number layer * n_heads + head draws thumbnail (layer, head), and carries meta=[layer, head].
    In the browser, Plotly's `plotly_click` event gives `points[0].curveNumber` (and `points[0].data.meta`);
    `overview_index(curveNumber, trace.n_heads)` turns it back into (layer, head).
    """
    ax = map_axes(*attention_axes(trace, kind), units)
    st = style(presentation)
    n_layers, n_heads = trace.n_layers, trace.n_heads
    thumb = 150 if presentation else 110
    height = n_layers * (thumb + 2 * st.font_size) + 80 + 2 * st.title_size
    titles = [f"L{layer} H{head}" for layer in range(n_layers) for head in range(n_heads)]
    refs, layout = subplot_grid(
        n_layers, n_heads, n_layers * n_heads, titles, 0.02, min(0.2, (2 * st.font_size + 8) / height)
    )
    data = []
    for i, (x, y) in enumerate(refs):
        layer, head = divmod(i, n_heads)
        name = f"L{layer} H{head}"
        data.append(
            dict(
                type="heatmap",
                z=ax.weights(head_matrix(trace, kind, layer, head)),
                coloraxis="coloraxis",
                name=name,
                meta=[layer, head],
                hovertemplate=t("overview-hover", name=name) + "<extra></extra>",
                xaxis=x,
                yaxis=y,
            )
        )
        layout["xaxis" + x[1:]]["showticklabels"] = False
        layout["yaxis" + y[1:]].update(showticklabels=False, autorange="reversed")
    hint = "" if presentation else t("overview-hint")  # a slide is not clicked
    title = t("overview-title", kind=kind_name(kind), hint=hint) + ax.suffix()
    name = download_name(ax.named(KIND_NAMES[kind]) + "-overview")
    layout["margin"] = dict(b=16)  # no axis under the thumbnails
    return finish(data, {**layout, "coloraxis": weights_axis(presentation)}, st, title, height, name)


def overview_index(curve_number: int, n_heads: int) -> tuple[int, int]:
    """(layer, head) of the overview thumbnail that Plotly reports as `curveNumber` in a click event."""
    if curve_number < 0 or n_heads < 1:
        raise ValueError(f"need curve_number >= 0 and n_heads >= 1, got {curve_number!r}, {n_heads!r}")
    layer, head = divmod(int(curve_number), int(n_heads))
    return layer, head
