"""Labels beside scattered points, placed so that no label covers another.

Plotly writes a point's text at the place around its marker that `textposition` names, and moves no label out of
another's way. Here each label's box is estimated in pixels before a browser draws anything: its width from its
characters (CHAR_EM of the font each, an East Asian one twice that), its height from the font's ascent and descent,
and its place as plotly.js puts it (drawing.textPointPosition). Then each label in turn takes the first place, in
its order of preference, whose box lies inside the plot area and clear of every label placed before it, and clear
of every marker too where such a place is left. A label with no free place is left out of the plot: the hover of its
point still names it. Points of one set that lie on the same pixels with the same label share one label ("</s> ×2").

The page may draw a figure wider than it was built for (a wider window; a slide's download is 1280 px wide), and
automargin may take some of its plot area. A box moves linearly with the plot area's size, so two boxes that lie on
the same side of each other (left, right, above or below) both at the smallest plot area and at the largest lie so
at every size between: every box is estimated at both sizes and every check holds at both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .labels import CHAR_EM, title_chars

ASCENT_EM, DESCENT_EM = 0.95, 0.25  # a line of text above and below its baseline, in ems (as Chromium boxes it)
SAME_PLACE_PX = 2.0  # points of one set this close with the same label share one label

# The places around a marker (Plotly's textpositions) in order of preference for a label that goes above its point:
# above, then beside (at the marker's top corner, then level with it), then below. One that goes below: mirrored.
ABOVE = (
    "top center",
    "top right",
    "top left",
    "middle right",
    "middle left",
    "bottom center",
    "bottom right",
    "bottom left",
)
MIRROR = {"top": "bottom", "middle": "middle", "bottom": "top"}


def preferences(above: bool) -> list[str]:
    """The places a label may take, best first: ABOVE, or for a label below its point, ABOVE upside down."""
    return [p if above else f"{MIRROR[p.split()[0]]} {p.split()[1]}" for p in ABOVE]


@dataclass(frozen=True)
class PointSet:
    """Points drawn as one trace: coordinates (N, 2) in data units, their labels (escaped text), and whether their
    labels prefer to sit above them (else below)."""

    xy: np.ndarray
    labels: list[str]
    above: bool


@dataclass(frozen=True)
class Canvas:
    """Where data coordinates land: the axes' ranges, the plot area's (width, height) in pixels at its smallest and at
    its largest, the labels' font size and the markers' size (diameter), in pixels."""

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    sizes: tuple[tuple[float, float], tuple[float, float]]
    font: float
    marker: float

    def pixels(self, xy: np.ndarray) -> np.ndarray:
        """(2, N, 2) each point's pixel from the plot area's top left corner, at the smallest and the largest size."""
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return np.array(
            [np.stack([(xy[:, 0] - x0) * w / (x1 - x0), (y1 - xy[:, 1]) * h / (y1 - y0)], -1) for w, h in self.sizes]
        )


def text_px(label: str, font: float) -> float:
    """A label's estimated width in pixels (an entity such as &lt; is one character, an East Asian one two)."""
    return CHAR_EM * font * sum(title_chars(label))


def label_box(at: np.ndarray, place: str, width: float, canvas: Canvas) -> np.ndarray:
    """The boxes (left, top, right, bottom) of a label `width` px wide at `place` around the point at pixels `at`
    (one per size, (2, 2) → (2, 4)), as plotly.js sets it: beside the marker, a gap a little over its radius away."""
    vertical, horizontal = place.split()
    v = {"top": -1, "middle": 0, "bottom": 1}[vertical]
    h = {"left": -1, "center": 0, "right": 1}[horizontal]
    gap, font = canvas.marker / 2 / 0.8 + 1, canvas.font
    baseline = at[:, 1] + 0.75 * font + v * gap + (v - 1) * font / 2
    left = at[:, 0] + h * gap - (1 - h) * width / 2
    return np.stack([left, baseline - ASCENT_EM * font, left + width, baseline + DESCENT_EM * font], axis=-1)


def apart(box: np.ndarray, others: np.ndarray) -> bool:
    """Whether a label's boxes (one per size, (2, 4)) and every one of `others` (N, 2, 4) lie on one same side of each
    other (left, right, above or below) at both sizes, so at every size between."""
    sides = (
        others[..., 2] <= box[:, 0],  # left of it
        others[..., 0] >= box[:, 2],  # right of it
        others[..., 3] <= box[:, 1],  # above it
        others[..., 1] >= box[:, 3],  # below it
    )
    return bool(np.any([side.all(axis=1) for side in sides], axis=0).all())


def inside(box: np.ndarray, canvas: Canvas) -> bool:
    """Whether a label's boxes lie inside the plot area at both sizes (Plotly clips a text at its edges)."""
    sizes = np.array(canvas.sizes)
    return bool(np.all(box[:, :2] >= 0) and np.all(box[:, 2:] <= sizes))


def same_places(at: np.ndarray, labels: list[str]) -> list[list[int]]:
    """For each point of a set, the points (itself first among them, lowest index first) that share its label and
    lie within SAME_PLACE_PX of it at the smallest size: they are drawn as one, under one label."""
    groups: list[list[int]] = []
    for i in range(len(labels)):
        near = [g for g in groups if labels[g[0]] == labels[i] and np.hypot(*(at[0, g[0]] - at[0, i])) <= SAME_PLACE_PX]
        if near:
            near[0].append(i)
        else:
            groups.append([i])
    return [next(g for g in groups if i in g) for i in range(len(labels))]


@dataclass(frozen=True)
class Placed:
    """Where a set's labels went: each point's place (a textposition; None where the point shows no label: left out
    for want of room, or another point's label stands for it), and the points that share its place (itself too)."""

    places: list[str | None]
    together: list[list[int]]


def best_place(
    at: np.ndarray, width: float, above: bool, canvas: Canvas, taken: np.ndarray, markers: np.ndarray
) -> tuple[str, np.ndarray] | None:
    """(place, its boxes) for a label `width` px wide of the point at pixels `at`: the first place inside the plot
    area and clear of the labels `taken` and of the `markers`, else the first clear of the labels; None if none is."""
    fallback = None
    for place in preferences(above):
        box = label_box(at, place, width, canvas)
        if inside(box, canvas) and apart(box, taken):
            if apart(box, markers):
                return place, box
            fallback = fallback or (place, box)
    return fallback


def place_labels(sets: list[PointSet], canvas: Canvas) -> list[Placed]:
    """Each set's labels placed, the sets in turn and each set's points in order (see the module's docstring)."""
    pixels = [canvas.pixels(s.xy) for s in sets]
    centres, half = np.concatenate(pixels, axis=1), canvas.marker / 2
    markers = np.swapaxes(np.concatenate([centres - half, centres + half], axis=-1), 0, 1)  # (points, sizes, 4)
    first = np.cumsum([0] + [len(s.labels) for s in sets])  # each set's first point among the markers
    taken = np.empty((0, 2, 4))
    placed = []
    for k, (s, at) in enumerate(zip(sets, pixels)):
        together = same_places(at, s.labels)
        places: list[str | None] = [None] * len(s.labels)
        for i, label in enumerate(s.labels):
            if together[i][0] != i:
                continue  # the first point of its group labels it
            others = np.delete(markers, first[k] + np.array(together[i]), axis=0)  # not its group's: under its label
            found = best_place(at[:, i], text_px(label, canvas.font), s.above, canvas, taken, others)
            if found:
                places[i] = found[0]
                taken = np.concatenate([taken, found[1][None]])
        placed.append(Placed(places, together))
    return placed
