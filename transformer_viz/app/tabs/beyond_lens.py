"""The logit lens: each residual point of the decoder read through the final norm and the output projection.

Its one registry plot is drawn with the page's other plots after each translation (the lens is recorded with the
trace); it needs no events of its own.
"""

from __future__ import annotations

from ..common import Words
from . import Controls, Plots, TabGroup, explain, tab


def build(words: Words, controls: Controls, plots: Plots) -> TabGroup:
    """The "Logit lens" tab: its explanation and the lens."""
    with tab(words, "tab-logit-lens"):
        explain(words, "logit-lens")
        plots.place("plot-logit-lens")
    return TabGroup(plots=plots)
