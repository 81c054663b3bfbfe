"""Inside the model: the positional encodings, the masks and the score pipeline, and the model card."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ..common import PLOT_ROW, Words
from . import Controls, Plots, TabGroup, explain, tab


@dataclass(kw_only=True)
class InsideGroup(TabGroup):
    card: gr.Markdown  # a new translation fills it with its model's card


def build(words: Words, controls: Controls) -> InsideGroup:
    """The "Inside the model" tab group, laid out: its plots follow the page's redraws, it has no events of its own."""
    plots = Plots()
    with tab(words, "group-model"), gr.Tabs(elem_id="views-model"):
        with tab(words, "tab-pe"):
            explain(words, "pe")
            plots.place("plot-pe")
            with gr.Row(elem_classes=[PLOT_ROW]):
                plots.place("plot-pe-curves")
                plots.place("plot-pe-similarity")
            explain(words, "pe-compare")
            with gr.Row(elem_classes=[PLOT_ROW]):
                plots.place("plot-pe-sinusoidal")
                plots.place("plot-pe-learned")
            with gr.Row(elem_classes=[PLOT_ROW]):
                plots.place("plot-pe-sinusoidal-similarity")
                plots.place("plot-pe-learned-similarity")
        with tab(words, "tab-masks"):
            explain(words, "masks")
            with gr.Row(elem_classes=[PLOT_ROW]):  # two to a row on screen
                plots.place("plot-enc-mask")
                plots.place("plot-masks")
            plots.place("plot-cross-mask")
            plots.place("plot-pipeline")
        with tab(words, "tab-card"):
            card = gr.Markdown(elem_id="model-card")
    return InsideGroup(plots=plots, card=card)
