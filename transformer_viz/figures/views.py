"""The app's views by name, for a notebook: `show(trace, "cross", layer=0, head="mean")` is the page's figure
(the lesson's map at its own size: the page draws that one for its box, fit_px).

VIEWS is the one table from a view's name to how the page draws it: `draw(trace, layer, head, step, **kw)` →
a Plotly figure, where kw are the builder's own options (presentation=True for the slides look, units="words",
width, overview's kind). A view added later is one more entry here. Plain data and figure builders: no torch, no
model, no gradio; tests/test_show.py holds each entry equal to the figure of the app's registry.
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from ..trace import Trace
from .alignment import alignment
from .attention import attention_grid, attention_head
from .masks import decoder_causal_mask
from .overview import overview
from .positions import positional_heatmap
from .steps import topk_bar
from .words import current_language, language


def first_step(step: int | None) -> int:
    """The step a view that always shows one draws when none is asked: the first, where a translation opens."""
    return 0 if step is None else step


# fmt: off
VIEWS: dict[str, Callable[..., go.Figure]] = {
    "cross": lambda trace, layer, head, step, **kw: attention_head(trace, "cross", layer, head, step=step, **kw),
    "decoder_self": lambda trace, layer, head, step, **kw: attention_grid(
        trace, "decoder_self", layer, step=step, **kw),
    "encoder_self": lambda trace, layer, head, step, **kw: attention_grid(trace, "encoder_self", layer, **kw),
    "topk": lambda trace, layer, head, step, **kw: topk_bar(trace, first_step(step), **kw),
    "alignment": lambda trace, layer, head, step, **kw: alignment(trace, layer, head=head, step=step, **kw),
    "masks": lambda trace, layer, head, step, **kw: decoder_causal_mask(trace, step, **kw),
    "pe": lambda trace, layer, head, step, **kw: positional_heatmap(
        trace.positional_encoding, tokens=trace.source_tokens, **kw),
    "overview": lambda trace, layer, head, step, kind="cross", **kw: overview(trace, kind, **kw),
}
# fmt: on


def show(
    trace: Trace,
    view: str = "cross",
    layer: int = 0,
    head: int | str = "mean",
    step: int | None = None,
    lang: str | None = None,
    **kw,
) -> go.Figure:
    """The figure the app draws for `view` (one of VIEWS) of `trace`: Jupyter shows the returned figure.

    layer and head count from 0 (head="mean": the heads' mean); step marks that decoding step (None: none, or the
    first where a view always shows one); lang ("en", "de", "ja", "ko", "zh") is the language of its words; kw go to the
    view's builder (presentation=True, units="words", kind="decoder_self" for the overview, ...).
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}: the views are {', '.join(VIEWS)}")
    head = "mean" if str(head) == "mean" else int(head)
    with language(lang or current_language()):  # without one, the language of the block it is drawn in
        return VIEWS[view](trace, int(layer), head, None if step is None else int(step), **kw)
