"""The plots drawn from a visitor's trace, each defined once: its id, where it is, what it follows, how it is drawn.

The page's outputs, the click table in the browser and the redraws loop over PLOTS: a new plot is one entry here
and its place in its tab's layout. The views a click or a lab opens (a head large, a beam node, a comparison) are
drawn by their tab's handlers instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from .. import figures
from ..figures.attention import FIT_WIDTH_PX
from ..figures.steps import TOPK_PX
from ..figures.words import t as figure_text
from ..trace import Trace
from .models import learned_and_sinusoidal, loaded_translator
from .neighbours import draw_neighbours

# What a plot's drawing reads besides the trace and the look. A plot that follows the step or the head is redrawn
# on every step; a change of layer, overview kind, look, units or language redraws every plot.
FOLLOWS = ("step", "head", "layer", "kind")


@dataclass
class View:
    """What the plots are drawn from: the visitor's trace and the page's controls."""

    trace: Trace | None
    step: int = 0
    layer: int = 0
    head: int | str = "mean"  # a head's number, or "mean"
    kind: str = "cross"  # the overview's attention: "cross", "decoder_self" or "encoder_self"
    presentation: bool = False  # the slides look
    # the attention maps' rows and columns: "pieces" or "words" (figures.UNITS). The masks and the score pipeline
    # stay in pieces, as the model masks and scores them; the "Rollout and words" tab shows both side by side.
    units: str = "pieces"
    width: float | None = None  # how wide a plot that fills its box on screen is drawn for (None: a projector's box)

    @functools.cached_property
    def positional_tables(self) -> dict:
        """The bundled models' learned and sinusoidal tables (read once for the four plots that show them)."""
        return learned_and_sinusoidal()


@dataclass(frozen=True)
class Click:
    """A click on a point writes text into a hidden box, whose change event the server handles."""

    box: str  # the hidden box's elem_id
    reader: str  # how a Plotly point becomes the box's text (or nothing): a name in js/plots.js's READERS
    arg: str | None = None  # what the reader is handed besides the point


@dataclass(frozen=True)
class Plot:
    """One gr.Plot of the page."""

    id: str  # its elem_id
    group: str  # the module that lays it out: "page" (the lesson, under the step controls) or its tab group
    tab: str | None  # the tab it is in (elem_id)
    draw: Callable[[View], object]  # View → Plotly figure, or None when there is nothing to show
    follows: frozenset[str] = frozenset()  # of FOLLOWS
    from_trace: bool = True  # False: drawn from the bundled models, the same for every visitor
    click: Click | None = None
    download: Callable[[View], str] | None = None  # its download's name, where its figure's own is not enough
    # the head it draws for the head menu's value ("mean", "0", …), where two values draw the same (stepping.variant)
    head_drawn: Callable[[str], str] = str
    # on screen it fills its box, of any width: drawn for a box this wide (a projector's) and for a phone's, which
    # the page takes where its box is narrower (figures/narrow.py); its draw reads View.width
    screen_px: float | None = None

    def figure(self, view: View):
        """The plot drawn from `view`, its download named (None when there is nothing to show)."""
        fig = self.draw(view)
        if fig is not None and self.download is not None:
            figures.with_download_name(fig, self.download(view))
        return fig


def _named(name: str, layer: bool = False) -> Callable[[View], str]:
    """A download name that is `name`, with the view's layer when the plot follows it."""
    return lambda view: figures.download_name(name, view.layer if layer else None)


def _head_click(kind: str) -> Click:
    """A head-summary cell: 'kind layer head'."""
    return Click("heads-click", "head", kind)


def _positions(kind: str, similarity: bool) -> Callable[[View], object]:
    """The bundled `kind` table's heatmap, or its similarity matrix (None without a bundled model of that kind)."""

    def draw(view: View):
        title, table = view.positional_tables.get(kind, (None, None))
        if table is None:
            return None
        if similarity:
            title = figure_text("similarity-of", title=title)
            return figures.position_similarity(table, title=title, presentation=view.presentation)
        return figures.positional_heatmap(table, title=title, presentation=view.presentation)

    return draw


def _beam_pieces(trace: Trace) -> dict[int, str]:
    """Every beam-tree node's piece, from the tokenizer of the model that made the trace (none if it is not loaded)."""
    translator = loaded_translator(trace.model.get("name"))
    if translator is None:
        return {}
    return {node["id"]: translator.tokenizer.id_to_piece(node["id"]) for node in trace.beam_tree}


def _step_head(head: int | str) -> int | str:
    """The score pipeline shows one head: the chosen one, or head 0 for the mean."""
    return 0 if head == "mean" else head


STEP, HEAD, LAYER, KIND = (frozenset({name}) for name in FOLLOWS)
# The lesson's map on screen is drawn for the height of its plot at 1280×720 (common.LESSON_HEIGHT there, less the
# plot's 24 px of room in its box) where a long translation wraps its box to two lines, a projector's screen, and
# stretched to a taller box: every row's label fits at 720 px, and so on any taller screen.
LESSON_FIT_PX = 290
# Drawn for a phone's box (View.width given: figures/narrow.py), as tall as js/lesson.js's least height for the lesson's
# boxes (LESSON_MIN_PX, 300 px) less the plot's 24 px: on a phone the maps start below the first screen.
PHONE_FIT_PX = 276
# fmt: off
PLOTS = [
    Plot("plot-topk", "page", None, follows=STEP, screen_px=TOPK_PX,
         draw=lambda v: figures.topk_bar(v.trace, v.step, presentation=v.presentation, width=v.width)),
    Plot("plot-cross", "page", None, follows=STEP | LAYER | HEAD, screen_px=FIT_WIDTH_PX,
         draw=lambda v: figures.attention_head(
             v.trace, "cross", v.layer, v.head, step=v.step, presentation=v.presentation, units=v.units,
             fit_px=None if v.presentation else LESSON_FIT_PX if v.width is None else PHONE_FIT_PX, width=v.width)),
    Plot("plot-alignment", "attention", "tab-cross", follows=STEP | LAYER | HEAD,
         draw=lambda v: figures.alignment(
             v.trace, v.layer, head=v.head, step=v.step, presentation=v.presentation, units=v.units)),
    Plot("plot-dec-self", "attention", "tab-dec-self", follows=STEP | LAYER,
         draw=lambda v: figures.attention_grid(
             v.trace, "decoder_self", v.layer, step=v.step, presentation=v.presentation, units=v.units)),
    Plot("plot-enc-self", "attention", "tab-enc-self", follows=LAYER,
         draw=lambda v: figures.attention_grid(
             v.trace, "encoder_self", v.layer, presentation=v.presentation, units=v.units)),
    Plot("plot-overview", "attention", "tab-overview", follows=KIND,
         click=Click("overview-click", "thumbnail"),
         draw=lambda v: figures.overview(v.trace, v.kind, presentation=v.presentation, units=v.units)),
    Plot("plot-heads-cross", "analysis", "tab-heads", click=_head_click("cross"),
         download=_named("cross-head-summary"),
         draw=lambda v: figures.head_summary_figure(v.trace, "cross", presentation=v.presentation)),
    Plot("plot-heads-dec-self", "analysis", "tab-heads", click=_head_click("decoder_self"),
         download=_named("decoder-self-head-summary"),
         draw=lambda v: figures.head_summary_figure(v.trace, "decoder_self", presentation=v.presentation)),
    Plot("plot-heads-enc-self", "analysis", "tab-heads", click=_head_click("encoder_self"),
         download=_named("encoder-self-head-summary"),
         draw=lambda v: figures.head_summary_figure(v.trace, "encoder_self", presentation=v.presentation)),
    Plot("plot-rollout", "analysis", "tab-rollout", follows=LAYER, download=_named("attention-rollout", layer=True),
         draw=lambda v: figures.rollout_figure(v.trace, layer=v.layer, presentation=v.presentation)),
    Plot("plot-rollout-words", "analysis", "tab-rollout", follows=LAYER,
         download=_named("attention-rollout-words", layer=True),
         draw=lambda v: figures.rollout_figure(v.trace, layer=v.layer, presentation=v.presentation, words=True)),
    Plot("plot-words-cross", "analysis", "tab-rollout", follows=LAYER,
         download=_named("cross-attention-words", layer=True),
         draw=lambda v: figures.word_attention_figure(v.trace, "cross", v.layer, presentation=v.presentation)),
    Plot("plot-beam", "analysis", "tab-beam",
         click=Click("beam-click", "customdata"),
         draw=lambda v: figures.beam_tree_figure(
             v.trace, id_to_token=_beam_pieces(v.trace), presentation=v.presentation)),
    Plot("plot-pe", "model", "tab-pe",
         draw=lambda v: figures.positional_heatmap(
             v.trace.positional_encoding, tokens=v.trace.source_tokens, presentation=v.presentation)),
    Plot("plot-pe-curves", "model", "tab-pe",
         draw=lambda v: figures.positional_curves(v.trace.positional_encoding, presentation=v.presentation)),
    Plot("plot-pe-similarity", "model", "tab-pe",
         draw=lambda v: figures.position_similarity(v.trace.positional_encoding, presentation=v.presentation)),
    Plot("plot-pe-sinusoidal", "model", "tab-pe", from_trace=False, draw=_positions("sinusoidal", similarity=False),
         download=_named("positional-encodings-sinusoidal")),
    Plot("plot-pe-learned", "model", "tab-pe", from_trace=False, draw=_positions("learned", similarity=False),
         download=_named("positional-encodings-learned")),
    Plot("plot-pe-sinusoidal-similarity", "model", "tab-pe", from_trace=False,
         draw=_positions("sinusoidal", similarity=True), download=_named("positional-encoding-similarity-sinusoidal")),
    Plot("plot-pe-learned-similarity", "model", "tab-pe", from_trace=False,
         draw=_positions("learned", similarity=True), download=_named("positional-encoding-similarity-learned")),
    Plot("plot-enc-mask", "model", "tab-masks",
         draw=lambda v: figures.encoder_padding_mask(
             v.trace, partner_len=len(v.trace.source_ids) + 3, presentation=v.presentation)),
    Plot("plot-masks", "model", "tab-masks", follows=STEP,
         draw=lambda v: figures.decoder_causal_mask(v.trace, v.step, presentation=v.presentation)),
    Plot("plot-cross-mask", "model", "tab-masks",
         draw=lambda v: figures.cross_mask(v.trace, presentation=v.presentation)),
    Plot("plot-pipeline", "model", "tab-masks", follows=STEP | LAYER | HEAD, head_drawn=lambda hd: str(_step_head(hd)),
         draw=lambda v: figures.score_pipeline(
             v.trace, v.layer, _step_head(v.head), step=v.step, presentation=v.presentation)),
    Plot("plot-logit-lens", "beyond", "tab-logit-lens",
         draw=lambda v: None if v.trace.logit_lens is None else figures.logit_lens_figure(
             v.trace, presentation=v.presentation)),
    Plot("plot-attribution", "beyond", "tab-attribution", follows=LAYER,  # attention alone until it is computed
         draw=lambda v: figures.attribution_figure(v.trace, v.layer, presentation=v.presentation)),
    # the "Beyond attention" views' plots
    Plot("plot-neighbours", "beyond", "tab-geometry", draw=lambda v: draw_neighbours(v.trace, v.presentation)),
]
# fmt: on
assert len({plot.id for plot in PLOTS}) == len(PLOTS), "a plot id is defined twice"
assert all(plot.follows <= set(FOLLOWS) for plot in PLOTS)

# Clicks on views that a tab draws itself (not registered plots): (the view's elem_id, its Click), for stepping.start_js
VIEW_CLICKS = [
    ("plot-qkv", Click("qkv-click", "customdata")),
]

STEP_PLOTS = [plot for plot in PLOTS if plot.follows & (STEP | HEAD)]  # redrawn on every step and head change
OTHER_PLOTS = [plot for plot in PLOTS if not plot.follows & (STEP | HEAD)]  # redrawn with the layer, kind, look
CLICKABLE = [plot for plot in PLOTS if plot.click is not None]
