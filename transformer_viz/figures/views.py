"""The views by name: how each is drawn from a trace and the page's controls, and what it follows.

VIEWS is the one table from a view's name to its drawing: `VIEWS[name].draw(View)` → a Plotly figure (or None when
there is nothing to show). The app's registry (app/registry.py) places each view on the page and adds its clicks; a
notebook's `show(trace, "cross", layer=0, head="mean")` draws the same entry. A view added later is one more entry
here (docs/architecture.md: "Add a view"). Plain data and figure builders: no torch, no model, no gradio. The few
views drawn from the bundled models rather than a trace (their positional tables, a beam's pieces, the neighbours)
are the app's: figures never touch a model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import plotly.graph_objects as go

from ..trace import Trace
from .alignment import alignment
from .attention import FIT_WIDTH_PX, attention_grid, attention_head
from .attribution import attribution_figure
from .heads import head_summary_figure, rollout_figure, word_attention_figure
from .lens import logit_lens_figure
from .masks import cross_mask, decoder_causal_mask, encoder_padding_mask, score_pipeline
from .overview import overview
from .positions import position_similarity, positional_curves, positional_heatmap
from .steps import TOPK_PX, topk_bar
from .style import download_name, with_download_name
from .words import current_language, language

# What a view's drawing reads besides the trace and the look. A view that follows the step or the head is redrawn on
# every step; a change of layer, overview kind, look, units or language redraws every view.
FOLLOWS = ("step", "head", "layer", "kind")
STEP, HEAD, LAYER, KIND = (frozenset({name}) for name in FOLLOWS)
# The lesson's map on screen is drawn for the height of its plot at 1280×720 (app/common.py LESSON_HEIGHT there,
# less the plot's 24 px of room in its box) where a long translation wraps its box to two lines, a projector's
# screen, and stretched to a taller box: every row's label fits at 720 px, and so on any taller screen.
LESSON_FIT_PX = 290
# Drawn for a phone's box (View.width given: figures/narrow.py), as tall as js/lesson.js's least height for the
# lesson's boxes (LESSON_MIN_PX, 300 px) less the plot's 24 px: on a phone the maps start below the first screen.
PHONE_FIT_PX = 276


@dataclass
class View:
    """What a view is drawn from: a trace and the page's controls."""

    trace: Trace | None
    step: int | None = 0  # None (a notebook's show): no step marked, or the first where a view always shows one
    layer: int = 0
    head: int | str = "mean"  # a head's number, or "mean"
    kind: str = "cross"  # the overview's attention: "cross", "decoder_self" or "encoder_self"
    presentation: bool = False  # the slides look
    # the attention maps' rows and columns: "pieces" or "words" (figures.UNITS). The masks and the score pipeline
    # stay in pieces, as the model masks and scores them; the "Rollout and words" tab shows both side by side.
    units: str = "pieces"
    width: float | None = None  # how wide a view that fills its box on screen is drawn for (None: a projector's box)
    in_box: bool = False  # drawn for its box on the page (the app); a notebook shows each figure at its own size


@dataclass(frozen=True)
class ViewSpec:
    """How one view is drawn, and what it follows."""

    draw: Callable[[View], go.Figure | None]
    follows: frozenset[str] = frozenset()  # of FOLLOWS
    from_trace: bool = True  # False: drawn from the bundled models, the same for every visitor (the app's)
    download: Callable[[View], str] | None = None  # its download's name, where its figure's own is not enough
    # the head it draws for the head menu's value ("mean", "0", …), where two values draw the same (the variants')
    head_drawn: Callable[[str], str] = str
    # on screen it fills its box, of any width: drawn for a box this wide (a projector's) and for a phone's, which
    # the page takes where its box is narrower (figures/narrow.py); its draw reads View.width
    screen_px: float | None = None

    def figure(self, view: View) -> go.Figure | None:
        """The view drawn, its download named (None when there is nothing to show)."""
        fig = self.draw(view)
        if fig is not None and self.download is not None:
            with_download_name(fig, self.download(view))
        return fig


def named(name: str, layer: bool = False) -> Callable[[View], str]:
    """A download name that is `name`, with the view's layer when the view follows it."""
    return lambda view: download_name(name, view.layer if layer else None)


def first_step(step: int | None) -> int:
    """The step a view that always shows one draws when none is asked: the first, where a translation opens."""
    return 0 if step is None else step


def one_head(head: int | str) -> int | str:
    """The score pipeline shows one head: the chosen one, or head 0 for the mean."""
    return 0 if head == "mean" else head


def lesson_fit(v: View) -> int | None:
    """The height the lesson's map is drawn for: its box's on a projector or a phone; its own in a slide or a
    notebook."""
    if v.presentation or not v.in_box:
        return None
    return LESSON_FIT_PX if v.width is None else PHONE_FIT_PX


def head_summary(kind: str) -> ViewSpec:
    """Every head's summary of `kind` attention, one cell per head."""
    return ViewSpec(
        lambda v: head_summary_figure(v.trace, kind, presentation=v.presentation),
        download=named(f"{kind.replace('_', '-')}-head-summary"),
    )


# fmt: off
VIEWS: dict[str, ViewSpec] = {
    # the lesson: the top-k and the main map, always on screen
    "topk": ViewSpec(lambda v: topk_bar(v.trace, first_step(v.step), presentation=v.presentation, width=v.width),
                     follows=STEP, screen_px=TOPK_PX),
    "cross": ViewSpec(lambda v: attention_head(
        v.trace, "cross", v.layer, v.head, step=v.step, presentation=v.presentation, units=v.units,
        fit_px=lesson_fit(v), width=v.width), follows=STEP | LAYER | HEAD, screen_px=FIT_WIDTH_PX),
    # attention
    "alignment": ViewSpec(lambda v: alignment(
        v.trace, v.layer, head=v.head, step=v.step, presentation=v.presentation, units=v.units),
        follows=STEP | LAYER | HEAD),
    "decoder_self": ViewSpec(lambda v: attention_grid(
        v.trace, "decoder_self", v.layer, step=v.step, presentation=v.presentation, units=v.units),
        follows=STEP | LAYER),
    "encoder_self": ViewSpec(lambda v: attention_grid(
        v.trace, "encoder_self", v.layer, presentation=v.presentation, units=v.units), follows=LAYER),
    "overview": ViewSpec(lambda v: overview(v.trace, v.kind, presentation=v.presentation, units=v.units),
                         follows=KIND),
    # analysis
    "heads_cross": head_summary("cross"),
    "heads_decoder_self": head_summary("decoder_self"),
    "heads_encoder_self": head_summary("encoder_self"),
    "rollout": ViewSpec(lambda v: rollout_figure(v.trace, layer=v.layer, presentation=v.presentation),
                        follows=LAYER, download=named("attention-rollout", layer=True)),
    "rollout_words": ViewSpec(lambda v: rollout_figure(
        v.trace, layer=v.layer, presentation=v.presentation, words=True),
        follows=LAYER, download=named("attention-rollout-words", layer=True)),
    "words_cross": ViewSpec(lambda v: word_attention_figure(v.trace, "cross", v.layer, presentation=v.presentation),
                            follows=LAYER, download=named("cross-attention-words", layer=True)),
    # the model: positions and masks
    "pe": ViewSpec(lambda v: positional_heatmap(
        v.trace.positional_encoding, tokens=v.trace.source_tokens, presentation=v.presentation)),
    "pe_curves": ViewSpec(lambda v: positional_curves(v.trace.positional_encoding, presentation=v.presentation)),
    "pe_similarity": ViewSpec(lambda v: position_similarity(
        v.trace.positional_encoding, presentation=v.presentation)),
    "encoder_mask": ViewSpec(lambda v: encoder_padding_mask(
        v.trace, partner_len=len(v.trace.source_ids) + 3, presentation=v.presentation)),
    "masks": ViewSpec(lambda v: decoder_causal_mask(v.trace, v.step, presentation=v.presentation), follows=STEP),
    "cross_mask": ViewSpec(lambda v: cross_mask(v.trace, presentation=v.presentation)),
    "pipeline": ViewSpec(lambda v: score_pipeline(
        v.trace, v.layer, one_head(v.head), step=first_step(v.step), presentation=v.presentation),
        follows=STEP | LAYER | HEAD, head_drawn=lambda hd: str(one_head(hd))),
    # beyond attention
    "logit_lens": ViewSpec(lambda v: None if v.trace.logit_lens is None else logit_lens_figure(
        v.trace, presentation=v.presentation)),
    "attribution": ViewSpec(lambda v: attribution_figure(v.trace, v.layer, presentation=v.presentation),
                            follows=LAYER),  # attention alone until it is computed
}
# fmt: on
assert all(spec.follows <= set(FOLLOWS) for spec in VIEWS.values())


def show(
    trace: Trace,
    view: str = "cross",
    layer: int = 0,
    head: int | str = "mean",
    step: int | None = None,
    lang: str | None = None,
    **controls,
) -> go.Figure | None:
    """The figure the app draws for `view` (one of VIEWS) of `trace`: Jupyter shows the returned figure.

    layer and head count from 0 (head="mean": the heads' mean); step marks that decoding step (None: none, or the
    first where a view always shows one); lang ("en", "de", "ja", "ko", "zh") is the language of its words; the
    other controls are View's (presentation=True, units="words", kind="decoder_self" for the overview, width).
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}: the views are {', '.join(VIEWS)}")
    head = "mean" if str(head) == "mean" else int(head)
    drawn = View(trace, step=None if step is None else int(step), layer=int(layer), head=head)
    with language(lang or current_language()):  # without one, the language of the block it is drawn in
        return VIEWS[view].figure(replace(drawn, **controls))
