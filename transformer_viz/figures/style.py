"""Shared look of every figure: palettes, fonts, the presentation mode, safe labels and the modebar config.

Figures never import torch, the model or gradio: they take a Trace or numpy arrays and return a go.Figure.
"""

from __future__ import annotations

import base64
import functools
import json
from dataclasses import dataclass

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from .labels import (  # re-exported: the builders and tests take them from here
    BREAKS as BREAKS,
)
from .labels import (
    CHAR_EM as CHAR_EM,
)
from .labels import (
    CONTINUES as CONTINUES,
)
from .labels import (
    FIGURE_PX as FIGURE_PX,
)
from .labels import (
    LINE_EM as LINE_EM,
)
from .labels import (
    LONE_SPACE as LONE_SPACE,
)
from .labels import (
    MIN_TICK_PX as MIN_TICK_PX,
)
from .labels import (
    SPECIAL_PIECES as SPECIAL_PIECES,
)
from .labels import (
    TITLE_EM as TITLE_EM,
)
from .labels import (
    WORD_START as WORD_START,
)
from .labels import default_top, title_gap, title_pad, title_room
from .labels import (
    esc as esc,
)
from .labels import (
    piece_label as piece_label,
)
from .labels import (
    tick_angle as tick_angle,
)
from .labels import (
    tick_font as tick_font,
)
from .labels import (
    tick_label_px as tick_label_px,
)
from .labels import (
    token_ticks as token_ticks,
)
from .labels import (
    wrap_title as wrap_title,
)
from .labels import (
    wrapped_axis_titles as wrapped_axis_titles,
)
from .labels import (
    x_token_ticks as x_token_ticks,
)
from .words import t

# Okabe & Ito (2008): eight colours that stay distinct for the common colour-vision deficiencies.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
CATEGORICAL = [
    OKABE_ITO[k]
    for k in ("blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "yellow", "black")
]
HIGHLIGHT = OKABE_ITO["vermillion"]  # the current step / the chosen token / the chosen beam path
WEIGHTS_SCALE = "Viridis"  # attention weights in [0, 1]: perceptually uniform, colour-blind safe
DIVERGING_SCALE = "RdBu"  # signed values (positional encodings, raw scores), centred on 0
MASKED_GREY = "#D9D9D9"  # "masked" cells, "not produced yet" rows, pruned beams
FUTURE_SHADE = "rgba(120, 120, 120, 0.35)"

# The modebar's camera button downloads a PNG at 3x the on-screen size (a slide: SLIDE_PX below), sharp on a projector.
# A vector SVG is available too: plot_config("svg") (Plotly's toImageButtonOptions format "svg").
DEFAULT_NAME = "transformer-viz"  # the download's name when a figure does not carry one
PLOT_CONFIG = {
    "toImageButtonOptions": {"format": "png", "scale": 3, "filename": DEFAULT_NAME},
    "displaylogo": False,
}
# What each attention kind is called in a download's name.
KIND_NAMES = {
    "cross": "cross-attention",
    "decoder_self": "decoder-self-attention",
    "encoder_self": "encoder-self-attention",
}


# A slide's download is laid out SLIDE_PX wide (the slide look's fonts are sized for it), at least SLIDE_PX tall (16:9;
# a taller figure keeps its own height), and a PNG of it is SLIDE_SCALE times that: 1920×1080 pixels. On screen the
# download is the size the page shows the figure (Plotly's own default would lay it out 700 px wide), 3× as a PNG.
SLIDE_PX, SLIDE_SCALE = (1280, 720), 1.5


def plot_config(fmt: str = "png", filename: str = DEFAULT_NAME, slide_height: float | None = None) -> dict:
    """The Plotly config for showing a figure: its download in format `fmt`, named `filename` (Plotly adds ".png");
    for a slide, SLIDE_PX[0] wide and `slide_height` tall (figure_json: 16:9 or the figure's own height)."""
    if fmt not in ("png", "svg", "jpeg", "webp"):
        raise ValueError(f"fmt must be 'png', 'svg', 'jpeg' or 'webp', got {fmt!r}")
    scale = 1 if fmt == "svg" else 3  # SVG is vector: scaling it only changes its nominal size
    size = {"width": None, "height": None}  # Plotly: the graph's size on the page
    if slide_height is not None:
        scale = 1 if fmt == "svg" else SLIDE_SCALE
        size = {"width": SLIDE_PX[0], "height": int(slide_height)}
    # The camera button's tooltip names the download's format in the figure's language: Plotly looks its title up
    # in the config's locale dictionary ("…as a PNG" for PNG, "…as a png" before Plotly.js 3, "Download plot" else).
    tooltip = t("download", fmt=fmt.upper())
    titles = ("Download plot as a PNG", "Download plot as a png", "Download plot")
    locale = {"dictionary": dict.fromkeys(titles, tooltip)}
    return {
        **PLOT_CONFIG,
        "toImageButtonOptions": {"format": fmt, "scale": scale, "filename": filename, **size},
        "locale": "transformer-viz",
        "locales": {"transformer-viz": locale},
    }


def download_name(what: str, layer: int | None = None, head: int | str | None = None, step: int | None = None) -> str:
    """A download's name from what a figure shows (kind or name, layer, head, step): 'cross-attention_L0-H3_step-3'."""
    parts = [KIND_NAMES.get(what, what)]
    if layer is not None:
        parts.append(f"L{layer}" + ("" if head is None else "-mean" if head == "mean" else f"-H{head}"))
    elif head is not None:
        parts.append("mean" if head == "mean" else f"H{head}")
    if step is not None:
        parts.append(f"step-{step}")
    return "_".join(parts)


def with_download_name(fig: go.Figure, name: str) -> go.Figure:
    """`fig`, carrying `name` as its download's name (in its layout's meta, where figure_json reads it)."""
    fig.layout.meta = {"download": name}
    return fig


def download_name_of(fig: go.Figure) -> str:
    """The download name a figure carries, or DEFAULT_NAME."""
    meta = fig.layout.meta
    return meta.get("download", DEFAULT_NAME) if isinstance(meta, dict) else DEFAULT_NAME


def figure_json(fig: go.Figure, fmt: str = "png", filename: str | None = None, slide: bool = False) -> str:
    """The figure's JSON with a "config" key: Gradio's gr.Plot front end passes that key to Plotly.

    In the UI: `gr.Plot(value=PlotData(type="plotly", plot=figure_json(fig)))`, where PlotData
    comes from gradio.components.plot; a bare go.Figure is shown without our modebar config.
    The same JSON as fig.to_json() (numpy arrays as base64 typed arrays; <, > and / escaped so it is
    safe inside an HTML <script>) but non-ASCII text left as UTF-8, written straight from the figure's
    properties: to_json first deep-copies them and walks every list element looking for arrays.
    The download is named `filename`, else the name the figure carries (with_download_name); a `slide` is
    downloaded at 16:9 or its own height (plot_config).
    """
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)  # the dicts fig.to_dict() copies
    if fig.frames or data is None or layout is None:  # animation frames, or a plotly that keeps them elsewhere
        body = fig.to_plotly_json()
    else:
        body = {"data": data, "layout": layout}
    slide_height = None
    if slide:  # 16:9 or taller; a note alone (nothing to plot yet) at its own size, not a blank 16:9
        own = fig.layout.height or SLIDE_PX[1]
        slide_height = own if not fig.data else max(SLIDE_PX[1], own)
    body["config"] = plot_config(fmt, filename or download_name_of(fig), slide_height)
    options = dict(separators=(",", ":"), ensure_ascii=False)  # "▁", in most tokens: 3 UTF-8 bytes, not a 6-byte escape
    text = json.dumps(body, default=json_default, **options)
    if "NaN" in text or "Infinity" in text:  # a non-finite Python float: JSON has none, Plotly reads null as a gap
        text = json.dumps(json.loads(text, parse_constant=lambda _: None), **options)
    for char, escaped in HTML_UNSAFE.items():
        text = text.replace(char, escaped)
    return text


# Escaped as plotly's to_json escapes them, so the JSON can sit inside an HTML <script>; U+2028 and U+2029
# end a line in older JavaScript.
HTML_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "/": "\\u002f", "\u2028": "\\u2028", "\u2029": "\\u2029"}


# numpy dtypes plotly.js reads from base64 ("typed arrays"); float NaN stays NaN there, a gap in a heatmap.
TYPED_ARRAYS = {
    "int8": "i1",
    "uint8": "u1",
    "int16": "i2",
    "uint16": "u2",
    "int32": "i4",
    "uint32": "u4",
    "float32": "f4",
    "float64": "f8",
}


def json_default(value: object) -> object:
    """What json cannot write itself: numpy arrays as Plotly's typed arrays ({"dtype", "bdata", "shape"}),
    as plotly's own to_json writes them, and numpy scalars and other arrays as plain numbers and lists."""
    if isinstance(value, np.ndarray) and value.size:
        if value.dtype in (np.int64, np.uint64):  # plotly.js has no 64-bit integers: the smallest type that fits
            low, high = value.min(), value.max()
            smaller = (np.int8, np.int16, np.int32) if value.dtype == np.int64 else (np.uint8, np.uint16, np.uint32)
            fits = [t for t in smaller if np.iinfo(t).min <= low and high <= np.iinfo(t).max]
            value = value.astype(fits[0]) if fits else value
        if value.dtype.name in TYPED_ARRAYS:
            typed = {
                "dtype": TYPED_ARRAYS[value.dtype.name],
                "bdata": base64.b64encode(np.ascontiguousarray(value)).decode("ascii"),
            }
            if value.ndim > 1:
                typed["shape"] = ", ".join(str(n) for n in value.shape)
            return typed
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


@functools.cache
def colorscale(name: str) -> list:
    """A named Plotly colour scale as its [position, colour] list, as Plotly's validation would expand it.

    Unvalidated figures must not send the name: plotly.js has its own scales of the same names, and its
    "RdBu" runs the other way (blue low, red high) with a grey middle.
    """
    return plotly.colors.get_colorscale(name)


@dataclass(frozen=True)
class Style:
    """Sizes and colours of one mode: the everyday light look or the presentation (slides) look."""

    font_size: int
    title_size: int
    line_width: float
    plot_bg: str
    paper_bg: str
    panel_px: int  # nominal height of one heatmap panel, before scaling with the number of rows
    row_px: int  # pixels per token row
    # how wide a figure is drawn where its builder does not say: half a tab on screen (two share a row), a slide's
    # width in a slide look (the page puts plots that share a row on screen one under the other: app.common.PLOT_ROW)
    figure_px: int


# fmt: off
LIGHT = Style(font_size=12, title_size=16, line_width=2.0, plot_bg="#F7F7F7", paper_bg="white", panel_px=260, row_px=16,
              figure_px=FIGURE_PX)
PRESENTATION = Style(font_size=20, title_size=26, line_width=4.0, plot_bg="white", paper_bg="white", panel_px=380,
                     row_px=26, figure_px=SLIDE_PX[0] - 80)
# fmt: on


def style(presentation: bool) -> Style:
    return PRESENTATION if presentation else LIGHT


MARGIN_PX = 40  # a figure's left, right and bottom margins where its builder gives none

# Every axis: a grey line, no grid, no zero line, room for long tick labels. A builder's own axis settings win.
AXIS = dict(showline=True, linecolor="#888888", showgrid=False, zeroline=False, automargin=True, ticks="")
# Plotly's template="none" (no 7 kB default template in every figure's JSON) plus AXIS: a template's
# layout.xaxis applies to every x axis (xaxis2, …) in plotly.js, so AXIS is sent once, not once per panel.
TEMPLATE = {"data": {"scatter": [{"type": "scatter"}]}, "layout": {"xaxis": AXIS, "yaxis": AXIS}}


def finish(
    data: list[dict],
    layout: dict,
    st: Style,
    title: str,
    height: float,
    download: str = DEFAULT_NAME,
    width: float | None = None,
    tight: bool = False,
) -> go.Figure:
    """The figure from plain Plotly JSON, with the shared look: fonts, backgrounds, title, margins.

    `data` and `layout` follow Plotly's JSON schema (every key nested: title=dict(text=…), never
    title_text); `title` must already be escaped. Plotly's per-property validation is skipped: it cost
    100–1000 ms a figure. test_figures.py validates every builder's output, so the dicts stay valid Plotly.
    `width`: how wide the page draws the figure, where the builder knows (else the look's figure_px).
    `download` names the modebar's download (download_name()). The title is wrapped to about `width` pixels, how
    wide the page draws the figure, and the figure grows by the room its lines need; a `tight` figure keeps its
    height and the margins `layout` gives it (a map fitted to a box that holds its title and labels).
    """
    width = st.figure_px if width is None else width
    title, _ = wrap_title(title, width, st.title_size)
    gap = title_gap(layout, st.font_size)
    # the title hangs from the top edge (so, at any height, no blank band over it); the margin holds it and `gap`
    margin = {**dict(l=MARGIN_PX, r=MARGIN_PX, b=MARGIN_PX), **layout.get("margin", {})}
    margin["t"] = title_room(title, st.title_size, gap)
    # `height` was given for default_top: the figure takes the room its title needs instead (a tight one keeps it)
    extra_px = 0.0 if tight else margin["t"] - default_top(st.title_size)
    full = {
        "template": TEMPLATE,
        "title": dict(
            text=title,
            font=dict(size=st.title_size),
            x=0.5,
            xanchor="center",
            yref="container",
            y=1,
            yanchor="top",
            pad=dict(t=title_pad(title, st.title_size)),
        ),
        "font": dict(size=st.font_size, color="#222222"),
        "paper_bgcolor": st.paper_bg,
        "plot_bgcolor": st.plot_bg,
        **wrapped_axis_titles(layout, width - margin["l"] - margin["r"], st.font_size),
        "margin": margin,
        "height": int(height + extra_px),
        "hoverlabel": dict(font=dict(size=st.font_size)),
        "meta": {"download": download},
    }
    if layout.get("annotations"):  # subplot titles and notes, a little larger than the ticks
        full["annotations"] = [{**note, "font": dict(size=st.font_size + 1)} for note in layout["annotations"]]
    for key in ("annotations", "shapes"):
        if not full.get(key, True):
            del full[key]  # as Plotly's validation does: no empty lists in the JSON
    # Plotly still validates numbered subplot axes (xaxis2, …), ~0.2 ms each; everything else is taken as it is.
    return go.Figure({"data": data, "layout": full}, _validate=False)


def subplot_grid(
    rows: int, cols: int, n_panels: int, titles: list[str], horizontal_spacing: float, vertical_spacing: float
) -> tuple[list[tuple[str, str]], dict]:
    """Panels laid out as plotly's make_subplots does it, row by row from the top left.

    Returns each panel's (xaxis, yaxis) trace references ("x", "y"), ("x2", "y2"), … and the layout
    entries: every axis with its domain and anchor, and each panel's title as an annotation above it.
    """
    width = (1.0 - horizontal_spacing * (cols - 1)) / cols
    height = (1.0 - vertical_spacing * (rows - 1)) / rows
    refs, layout, notes = [], {}, []
    for i in range(n_panels):
        r, c = divmod(i, cols)
        x0, y0 = c * (width + horizontal_spacing), (rows - 1 - r) * (height + vertical_spacing)
        x1, y1 = min(1.0, x0 + width), min(1.0, y0 + height)  # rounding must not leave the [0, 1] paper
        n = "" if i == 0 else str(i + 1)
        layout["xaxis" + n] = dict(anchor="y" + n, domain=[x0, x1])
        layout["yaxis" + n] = dict(anchor="x" + n, domain=[y0, y1])
        notes.append(
            dict(
                text=titles[i],
                x=x0 + width / 2,
                y=y1,
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
            )
        )
        refs.append(("x" + n, "y" + n))
    layout["annotations"] = notes
    return refs, layout


def title_text(text: str | None) -> dict:
    """An axis title; None (no title) gives an empty dict."""
    return {} if text is None else {"title": dict(text=text)}


def pair_hover() -> str:
    """A (query, key) cell's hover: the tokens come from the axes' tick text, not from a string per cell."""
    return t("pair-hover")


def colorbar(title: str, presentation: bool) -> dict:
    """A colour bar titled along its right side: a title on top would sit on the top tick's label."""
    return dict(title=dict(text=title, side="right"), thickness=24 if presentation else 14)


def symmetric_range(values: np.ndarray) -> float:
    """Half-width of a colour range centred on 0 that covers every finite value."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0
