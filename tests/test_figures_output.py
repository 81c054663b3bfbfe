"""Every figure alike: user text shown literally, a presentation look, small valid Plotly JSON, no torch or gradio."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

import transformer_viz.figures as F
from tests.plots import assert_valid_plotly, heatmaps, hover_at, strings
from tests.tiny import EVIL, EVIL_ESCAPED
from transformer_viz.figures.style import esc


def builders(trace, beam_trace) -> dict:
    """Every figure builder by name, as build(presentation)."""
    pe = trace.positional_encoding
    return {
        "grid": lambda p: F.attention_grid(trace, "cross", 0, step=2, presentation=p),
        "head": lambda p: F.attention_head(trace, "decoder_self", 1, 0, step=2, presentation=p),
        "alignment": lambda p: F.alignment(trace, 1, step=1, presentation=p),
        "overview": lambda p: F.overview(trace, "encoder_self", presentation=p),
        "topk": lambda p: F.topk_bar(trace, 1, presentation=p),
        "pe": lambda p: F.positional_heatmap(pe, tokens=trace.source_tokens, presentation=p),
        "curves": lambda p: F.positional_curves(pe, presentation=p),
        "similarity": lambda p: F.position_similarity(pe, presentation=p),
        "padding": lambda p: F.encoder_padding_mask(trace, len(trace.source_tokens) + 4, presentation=p),
        "causal": lambda p: F.decoder_causal_mask(trace, step=2, presentation=p),
        "cross_mask": lambda p: F.cross_mask(trace, presentation=p),
        "pipeline": lambda p: F.score_pipeline(trace, 0, 1, step=2, presentation=p),
        "beam": lambda p: F.beam_tree_figure(beam_trace, presentation=p),
    }


def test_user_text_is_escaped_everywhere(evil_trace, trace):
    figs = [
        F.attention_grid(evil_trace, "cross", 0, step=0),
        F.attention_head(evil_trace, "encoder_self", 0, 0),
        F.alignment(evil_trace, 0, step=0),
        F.topk_bar(evil_trace, 0),
        F.decoder_causal_mask(evil_trace),
        F.encoder_padding_mask(evil_trace, 20),
        F.score_pipeline(evil_trace, 0, 0),
        F.positional_heatmap(evil_trace.positional_encoding, evil_trace.source_tokens),
        F.positional_heatmap(trace.positional_encoding, title=EVIL),
    ]
    for fig in figs:
        found = list(strings(fig.to_plotly_json()))
        assert not any("<img" in s for s in found)
        assert any(EVIL_ESCAPED in s for s in found)
    grid = figs[0]
    assert grid.layout.xaxis.ticktext[1] == "·" + EVIL_ESCAPED  # a piece that continues a word
    assert "&lt;img" in hover_at(grid, heatmaps(grid)[0], 0, 1)
    assert "&lt;img" in grid.layout.title.text  # step 0 produces the payload
    assert esc("a & b $x$") == "a &amp; b &#36;x&#36;"


@pytest.mark.parametrize(
    "name",
    [
        "grid",
        "head",
        "alignment",
        "overview",
        "topk",
        "pe",
        "curves",
        "similarity",
        "padding",
        "causal",
        "cross_mask",
        "pipeline",
        "beam",
    ],
)
def test_presentation_mode_is_large_on_white_and_json_is_small(trace, beam_trace, name):
    build = builders(trace, beam_trace)[name]
    light, slides = build(False), build(True)
    assert light.layout.font.size == 12 and slides.layout.font.size == 20
    assert slides.layout.paper_bgcolor == "white" and slides.layout.plot_bgcolor == "white"
    assert slides.layout.title.font.size > light.layout.title.font.size
    for fig in (light, slides):
        assert len(fig.to_json()) < 200_000


def test_plot_config_and_figure_json(trace):
    assert F.PLOT_CONFIG["toImageButtonOptions"]["format"] == "png"
    assert F.PLOT_CONFIG["toImageButtonOptions"]["scale"] >= 2 and F.PLOT_CONFIG["displaylogo"] is False
    assert F.plot_config("svg")["toImageButtonOptions"]["format"] == "svg"
    data = json.loads(F.figure_json(F.topk_bar(trace, 0), fmt="svg"))
    assert data["config"]["toImageButtonOptions"]["format"] == "svg" and data["data"] and data["layout"]


def test_a_slide_downloads_at_16_9_or_its_own_height_and_the_screen_at_its_size(trace):
    """On screen the camera downloads the figure as the page shows it (no width of Plotly's own 700 px); a slide
    is laid out 1280 px wide and 720 tall or taller, a PNG of it 1920×1080 pixels or taller."""
    screen = json.loads(F.figure_json(F.topk_bar(trace, 0)))["config"]["toImageButtonOptions"]
    assert screen["width"] is None and screen["height"] is None and screen["scale"] == 3
    short = F.topk_bar(trace, 0, presentation=True)
    short.layout.height = 500
    png = json.loads(F.figure_json(short, slide=True))["config"]["toImageButtonOptions"]
    assert (png["width"] * png["scale"], png["height"] * png["scale"]) == (1920, 1080)
    tall = F.positional_heatmap(trace.positional_encoding, presentation=True)
    tall.layout.height = 900
    svg = json.loads(F.figure_json(tall, fmt="svg", slide=True))["config"]["toImageButtonOptions"]
    assert svg["width"] == 1280 and svg["height"] == tall.layout.height > 720 and svg["scale"] == 1


def test_the_camera_buttons_tooltip_names_the_format_in_the_figures_language():
    """Plotly titles the camera button from the config's locale: "…as a png" for PNG, "Download plot" otherwise."""
    for fmt, lang, expected in [
        ("svg", "en", "Download this figure as SVG"),
        ("png", "ja", "この図を PNG でダウンロード"),
    ]:
        with F.language(lang):
            config = F.plot_config(fmt)
        dictionary = config["locales"][config["locale"]]["dictionary"]
        assert dictionary["Download plot as a PNG"] == dictionary["Download plot"] == expected


def test_figures_import_neither_torch_nor_gradio():
    for path in Path(F.__file__).parent.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))
        roots = {name.lstrip(".").split(".")[0] for name in imported if not name.startswith(".")}
        assert not roots & {"torch", "gradio"}, path
        assert imported & {"..model", "..translator", "..hooks"} == set(), path


@pytest.fixture(scope="module")
def every_figure(trace, beam_trace):
    """Every builder in its light and presentation looks, with the options that add shapes or text."""
    light = {name: build(False) for name, build in builders(trace, beam_trace).items()}
    figs = {
        **light,
        "greedy beam": F.beam_tree_figure(trace),
        "grid hidden": F.attention_grid(trace, "decoder_self", 1, step=2),
        "head values": F.attention_head(trace, "cross", 0, "mean", step=1, hide_future=True, show_values=True),
        "alignment no step": F.alignment(trace, 0, head=2),
        "mask": F.mask_matrix(np.array([[1, 0], [1, 1]], bool), ["a", "a"], ["b", "c"], "tiny", step=1),
        "similarity tokens": F.position_similarity(trace.positional_encoding, tokens=trace.source_tokens),
    }
    slides = {
        "grid": F.attention_grid(trace, "decoder_self", 0, step=1, presentation=True),
        "alignment": F.alignment(trace, 1, step=1, presentation=True),
        "overview": F.overview(trace, "cross", presentation=True),
        "topk": F.topk_bar(trace, 0, presentation=True),
        "curves": F.positional_curves(trace.positional_encoding, presentation=True),
        "padding": F.encoder_padding_mask(trace, 20, presentation=True),
        "pipeline": F.score_pipeline(trace, 1, 3, step=0, presentation=True),
        "beam": F.beam_tree_figure(beam_trace, presentation=True),
    }
    return {**figs, **{f"{name} (slides)": fig for name, fig in slides.items()}}


def test_every_figure_is_valid_plotly_and_its_json_is_plotlys(every_figure):
    """Builders skip Plotly's validation for speed: validating their output afterwards must accept it unchanged."""
    for name, fig in every_figure.items():
        assert_valid_plotly(fig, name)


def test_figure_json_of_any_figure_reads_as_plotlys():
    """figure_json writes a figure's properties itself: for any figure it must read back as fig.to_json() does."""
    points = go.Scatter(
        x=np.arange(4),
        y=[1.0, float("nan"), None, 2.5],
        text=np.array(["<b>", "a/b", "▁c", "d"]),
        marker=dict(size=np.array([3.5, 4, 5, 6])),
    )
    fig = go.Figure(points, layout=dict(title=dict(text="</script>")))
    text = F.figure_json(fig)
    ours = json.loads(text)
    assert ours.pop("config") == F.plot_config()
    assert ours == json.loads(fig.to_json())
    assert "<" not in text and ">" not in text and "/" not in text  # safe inside an HTML <script>


def test_heatmap_hover_sends_no_string_per_cell(every_figure):
    """The query and key tokens reach the hover through the axes' tick text, not a string per cell."""
    for name, fig in every_figure.items():
        for panel in heatmaps(fig):
            assert panel.hovertext is None and panel.customdata is None, name
            assert "%{x}" in panel.hovertemplate and "%{y}" in panel.hovertemplate, name
