"""The page's plots: each a view of figures.VIEWS (how it is drawn, what it follows) placed on the page.

The page's outputs, the click table in the browser and the redraws loop over PLOTS: a new plot is a view in
figures/views.py, one entry here (its elem_id, its tab, its click) and its place in its tab's layout. The views a
click or a lab opens (a head large, a beam node, a comparison) are drawn by their tab's handlers instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import figures
from ..figures.views import HEAD, KIND, LAYER, STEP, VIEWS, View, ViewSpec, named
from ..figures.words import t as figure_text
from ..trace import Trace
from .models import learned_and_sinusoidal, loaded_translator
from .neighbours import draw_neighbours

__all__ = [
    "CLICK_BOX",
    "CLICKABLE",
    "HEAD",
    "KIND",
    "LAYER",
    "OTHER_PLOTS",
    "PLOTS",
    "STEP",
    "STEP_PLOTS",
    "VIEW_CLICKS",
    "View",
]


# The one hidden box every click on a server-drawn plot is written into, as "<plot id> <what the point says>
# (<time>)" (js/plots.js: writeBox); each view's handler reads the clicks on its own plot (handlers.clicked_on).
CLICK_BOX = "plot-click"


@dataclass(frozen=True)
class Click:
    """A click on a point: what it says (`reader`) written into the click box after the plot's id."""

    reader: str  # how a Plotly point becomes the box's text (or nothing): a name in js/plots.js's READERS
    arg: str | None = None  # what the reader is handed besides the point


@dataclass(frozen=True)
class Plot:
    """One gr.Plot of the page: a view, where it is and what a click on it does."""

    id: str  # its elem_id
    group: str  # the module that lays it out: "page" (the lesson, under the step controls) or its tab group
    tab: str | None  # the tab it is in (elem_id)
    view: ViewSpec  # how it is drawn and what it follows (figures.VIEWS, or one of the app's own below)
    click: Click | None = None

    def figure(self, view: View):
        """The plot drawn from `view`, its download named (None when there is nothing to show)."""
        return self.view.figure(view)

    @property
    def follows(self) -> frozenset[str]:
        return self.view.follows

    @property
    def from_trace(self) -> bool:
        return self.view.from_trace

    @property
    def head_drawn(self):
        return self.view.head_drawn

    @property
    def screen_px(self) -> float | None:
        return self.view.screen_px


def _head_click(kind: str) -> Click:
    """A head-summary cell: 'kind layer head'."""
    return Click("head", kind)


# The views drawn from the bundled models or the loaded translator rather than from the trace alone: figures never
# touch a model, so the app draws these.


def _positions(kind: str, similarity: bool) -> ViewSpec:
    """The bundled `kind` table's heatmap, or its similarity matrix (None without a bundled model of that kind)."""

    def draw(view: View):
        title, table = learned_and_sinusoidal().get(kind, (None, None))
        if table is None:
            return None
        if similarity:
            title = figure_text("similarity-of", title=title)
            return figures.position_similarity(table, title=title, presentation=view.presentation)
        return figures.positional_heatmap(table, title=title, presentation=view.presentation)

    name = f"positional-encoding-similarity-{kind}" if similarity else f"positional-encodings-{kind}"
    return ViewSpec(draw, from_trace=False, download=named(name))


def _beam_pieces(trace: Trace) -> dict[int, str]:
    """Every beam-tree node's piece, from the tokenizer of the model that made the trace (none if it is not loaded)."""
    translator = loaded_translator(trace.model.get("name"))
    if translator is None:
        return {}
    return {node["id"]: translator.tokenizer.id_to_piece(node["id"]) for node in trace.beam_tree}


BEAM = ViewSpec(
    lambda v: figures.beam_tree_figure(v.trace, id_to_token=_beam_pieces(v.trace), presentation=v.presentation)
)
NEIGHBOURS = ViewSpec(lambda v: draw_neighbours(v.trace, v.presentation))

# fmt: off
PLOTS = [
    Plot("plot-topk", "page", None, VIEWS["topk"]),
    Plot("plot-cross", "page", None, VIEWS["cross"]),
    Plot("plot-alignment", "attention", "tab-cross", VIEWS["alignment"]),
    Plot("plot-dec-self", "attention", "tab-dec-self", VIEWS["decoder_self"]),
    Plot("plot-enc-self", "attention", "tab-enc-self", VIEWS["encoder_self"]),
    Plot("plot-overview", "attention", "tab-overview", VIEWS["overview"], click=Click("thumbnail")),
    Plot("plot-heads-cross", "analysis", "tab-heads", VIEWS["heads_cross"], click=_head_click("cross")),
    Plot("plot-heads-dec-self", "analysis", "tab-heads", VIEWS["heads_decoder_self"],
         click=_head_click("decoder_self")),
    Plot("plot-heads-enc-self", "analysis", "tab-heads", VIEWS["heads_encoder_self"],
         click=_head_click("encoder_self")),
    Plot("plot-rollout", "analysis", "tab-rollout", VIEWS["rollout"]),
    Plot("plot-rollout-words", "analysis", "tab-rollout", VIEWS["rollout_words"]),
    Plot("plot-words-cross", "analysis", "tab-rollout", VIEWS["words_cross"]),
    Plot("plot-beam", "analysis", "tab-beam", BEAM, click=Click("customdata")),
    Plot("plot-pe", "model", "tab-pe", VIEWS["pe"]),
    Plot("plot-pe-curves", "model", "tab-pe", VIEWS["pe_curves"]),
    Plot("plot-pe-similarity", "model", "tab-pe", VIEWS["pe_similarity"]),
    Plot("plot-pe-sinusoidal", "model", "tab-pe", _positions("sinusoidal", similarity=False)),
    Plot("plot-pe-learned", "model", "tab-pe", _positions("learned", similarity=False)),
    Plot("plot-pe-sinusoidal-similarity", "model", "tab-pe", _positions("sinusoidal", similarity=True)),
    Plot("plot-pe-learned-similarity", "model", "tab-pe", _positions("learned", similarity=True)),
    Plot("plot-enc-mask", "model", "tab-masks", VIEWS["encoder_mask"]),
    Plot("plot-masks", "model", "tab-masks", VIEWS["masks"]),
    Plot("plot-cross-mask", "model", "tab-masks", VIEWS["cross_mask"]),
    Plot("plot-pipeline", "model", "tab-masks", VIEWS["pipeline"]),
    Plot("plot-logit-lens", "beyond", "tab-logit-lens", VIEWS["logit_lens"]),
    Plot("plot-attribution", "beyond", "tab-attribution", VIEWS["attribution"]),
    # the "Beyond attention" views' plots
    Plot("plot-neighbours", "beyond", "tab-geometry", NEIGHBOURS),
]
# fmt: on
assert len({plot.id for plot in PLOTS}) == len(PLOTS), "a plot id is defined twice"

# Clicks on views that a tab draws itself (not registered plots): (the view's elem_id, its Click), for stepping.start_js
VIEW_CLICKS = [
    ("plot-qkv", Click("customdata")),
]

STEP_PLOTS = [plot for plot in PLOTS if plot.follows & (STEP | HEAD)]  # redrawn on every step and head change
OTHER_PLOTS = [plot for plot in PLOTS if not plot.follows & (STEP | HEAD)]  # redrawn with the layer, kind, look
CLICKABLE = [plot for plot in PLOTS if plot.click is not None]
