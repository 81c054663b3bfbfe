"""The query–key plane's point labels: none on another, all inside the plot area, in both looks; points of one set
on the same spot with the same token share one label, and every point's hover still names it.

Each label's box is estimated from the figure's own data, as plotly.js places a scatter point's text
(drawing.textPointPosition): the axes' ranges and the plot area its margins leave, each trace's text positions,
font and marker size, and CHAR_EM of the font per character. The Chromium check of the drawn labels is in
test_app_beyond_browser.py.
"""

from __future__ import annotations

import html
import itertools

import numpy as np
import pytest

from transformer_viz.figures import geometry as G
from transformer_viz.figures.style import CHAR_EM
from transformer_viz.lab.geometry import QueryKeyPlane
from transformer_viz.trace import ATTENTION_KINDS

OVERLAP_PX = 1.0  # two boxes may share a strip this deep (rounding)
WIDTHS = (900, 1000)  # the builder's default, and the tab's


def drawn_labels(fig, width: float) -> list[tuple[str, list[float]]]:
    """(text, box) of every label the figure writes beside a point, the box (left, top, right, bottom) in pixels
    from the plot area's top left corner, the figure drawn `width` px wide."""
    layout = fig.layout
    plot_w = width - layout.margin.l - layout.margin.r
    plot_h = layout.height - layout.margin.t - layout.margin.b
    (x0, x1), (y0, y1) = layout.xaxis.range, layout.yaxis.range
    found = []
    for trace in (d for d in fig.data if d.mode == "markers+text"):
        n = len(trace.x)
        places = [trace.textposition] * n if isinstance(trace.textposition, str) else trace.textposition
        templates = trace.texttemplate or "%{text}"
        templates = [templates] * n if isinstance(templates, str) else templates
        font, gap = trace.textfont.size, trace.marker.size / 2 / 0.8 + 1  # the text's gap from the point
        for x, y, text, place, template in zip(trace.x, trace.y, trace.text, places, templates):
            shown = template.replace("%{text}", text)
            if not shown:
                continue
            vertical, horizontal = place.split()
            v = {"top": -1, "middle": 0, "bottom": 1}[vertical]
            h = {"left": -1, "center": 0, "right": 1}[horizontal]
            baseline = (y1 - y) / (y1 - y0) * plot_h + 0.75 * font + v * gap + (v - 1) * font / 2
            wide = CHAR_EM * font * len(html.unescape(shown))
            left = (x - x0) / (x1 - x0) * plot_w + h * gap - (1 - h) * wide / 2
            found.append((shown, [left, baseline - 0.95 * font, left + wide, baseline + 0.25 * font]))
    return found


def overlapping(labels: list[tuple[str, list[float]]]) -> list[str]:
    """Every pair of labels whose boxes overlap by more than OVERLAP_PX both across and down."""
    found = []
    for (a, p), (b, q) in itertools.combinations(labels, 2):
        across, down = min(p[2], q[2]) - max(p[0], q[0]), min(p[3], q[3]) - max(p[1], q[1])
        if across > OVERLAP_PX and down > OVERLAP_PX:
            found.append(f"{a!r} on {b!r}")
    return found


def outside(labels: list[tuple[str, list[float]]], fig, width: float) -> list[str]:
    """The labels that reach past the plot area, where Plotly clips them."""
    plot_w = width - fig.layout.margin.l - fig.layout.margin.r
    plot_h = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    return [
        text
        for text, (left, top, right, bottom) in labels
        if left < -1 or top < -1 or right > plot_w + 1 or bottom > plot_h + 1
    ]


def hover_names(trace) -> list[str]:
    """What each point's hover says, as Plotly fills the trace's hovertemplate (%{customdata[0]}, %{text})."""
    template = trace.hovertemplate.split("<br>")[0]
    return [
        template.replace("%{customdata[0]}", str(c[0])).replace("%{text}", t)
        for c, t in zip(trace.customdata, trace.text)
    ]


@pytest.mark.parametrize("presentation", [False, True], ids=["screen", "slides"])
def test_no_label_covers_another_in_any_head(trace, presentation):
    """Every head of every kind in the fixture's translation (before: 5 to 9 overlapping pairs in some heads)."""
    found = {}
    for kind, layer, head in itertools.product(ATTENTION_KINDS, range(trace.n_layers), range(trace.n_heads)):
        for width in WIDTHS:
            fig = G.query_key_figure(trace, kind, layer, head, presentation=presentation, width=width)
            labels = drawn_labels(fig, width)
            if problems := overlapping(labels) + outside(labels, fig, width):
                found[(kind, layer, head, width)] = problems
            assert len(labels) >= 0.9 * sum(len(d.x) for d in fig.data[1:]), "most points keep their label"
    assert not found, found


def crowded_plane(kind: str = "cross") -> QueryKeyPlane:
    """A plane as a teacher met it: 'der' and '·chen' a hair apart, two '</s>' queries on one spot with a '</s>' key
    beside them, and nine pieces in a heap where not every label can find room."""
    query_tokens = ["▁der", "chen", "▁Hund", "</s>", "</s>", "▁sieht"] + [f"▁w{i}" for i in range(9)]
    queries = [(5.0, 5.0), (5.08, 5.01), (0.0, 0.0), (2.0, 8.0), (2.0005, 8.0005), (10.0, 10.0)]
    queries += [(7.0 + 0.02 * (i % 3), 2.0 + 0.02 * (i // 3)) for i in range(9)]
    key_tokens = ["▁the", "</s>", "▁dog", "▁sees"]
    keys = [(5.02, 4.97), (2.03, 8.0), (10.0, 0.0), (0.0, 10.0)]
    return QueryKeyPlane(
        kind=kind,
        layer=0,
        head=0,
        queries=np.array(queries),
        keys=np.array(keys),
        components=np.eye(2, 4),
        mean=np.zeros(4),
        explained=np.array([0.6, 0.3]),
        strongest=np.zeros(len(queries), dtype=int),
        query_tokens=query_tokens,
        key_tokens=key_tokens,
    )


@pytest.mark.parametrize("presentation", [False, True], ids=["screen", "slides"])
def test_a_crowded_plane_labels_apart_and_hovers_name_every_point(trace, monkeypatch, presentation):
    plane = crowded_plane()
    monkeypatch.setattr(G, "query_key_plane", lambda *args: plane)
    for width in WIDTHS:
        fig = G.query_key_figure(trace, "cross", 0, 0, presentation=presentation, width=width)
        labels = drawn_labels(fig, width)
        assert overlapping(labels) == [] and outside(labels, fig, width) == []
        keys, queries = fig.data[1], fig.data[2]
        shown = [text for text, _ in labels]
        assert shown.count("&lt;/s&gt; ×2") == 1 and shown.count("&lt;/s&gt;") == 1  # the queries' two, the key
        assert "der" in shown and "·chen" in shown and "the" in shown
        assert len(labels) < len(plane.queries) + len(plane.keys) - 1, "the heap leaves some labels to the hover"
        # every point's hover names it, the two on one spot both of them
        said = hover_names(queries)
        assert said[3] == said[4] == "queries 3, 4: &lt;/s&gt;"
        assert [s.split(": ")[1] for s in said] == list(queries.text)
        numbers = [name.split(": ")[0].removeprefix("queries ").split(", ") for name in said]
        assert all(str(i) in points for i, points in enumerate(numbers))
        assert hover_names(keys) == [f"keys {i}: {text}" for i, text in enumerate(keys.text)]
