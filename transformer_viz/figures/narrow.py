"""A figure drawn for two widths, a projector's box and a phone's: the browser picks the one its box fits.

The lesson's plots fill their box on screen, whose width the server does not know. Their builders lay the title,
the labels and the legend out for a width they are told: a map drawn for a projector's 700 px runs past a phone's
box (its title wider than the screen, its key labels on top of each other). with_narrow puts into the figure's
layout.meta what turns it into the same figure drawn for a phone's box (NARROW_PX), as a change of its JSON
(changes.json_changes); the page makes that change where the box is narrower than `below` pixels (js/plots.js:
forWidth). The builders stay the one definition of both layouts.
"""

from __future__ import annotations

import json

import plotly.graph_objects as go

from .changes import json_changes
from .style import figure_json

NARROW_PX = 320  # about how wide a 390 px phone draws a lesson plot: its screen less the page's and the box's padding
NARROW_BELOW = 0.9  # a figure drawn for a width is drawn narrow in a box less wide than this share of it
PAGE_SET = ("height", "meta")  # layout keys the page sets itself (a fitted plot's height is its box's)


def drawn(fig: go.Figure) -> dict:
    """The figure's data and layout as the page receives them, without the keys the page sets (PAGE_SET)."""
    figure = json.loads(figure_json(fig))
    layout = {key: value for key, value in figure["layout"].items() if key not in PAGE_SET}
    return {"data": figure["data"], "layout": layout}


def with_narrow(fig: go.Figure, narrow: go.Figure, width: float) -> go.Figure:
    """`fig`, drawn for `width` pixels, carrying in layout.meta.narrow what makes it `narrow` (its change and the box
    width below which the page makes it: NARROW_BELOW of `width`); `fig` as it was where both draw alike."""
    change = json_changes(drawn(fig), drawn(narrow))
    if change:
        meta = dict(fig.layout.meta or {})
        fig.layout.meta = {**meta, "narrow": {"below": round(NARROW_BELOW * width), "change": change}}
    return fig
