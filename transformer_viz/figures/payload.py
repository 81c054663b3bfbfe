"""The lesson's payload: one translation's drawings at every step, in the format the browser steps through.

Two values make it. The frames: the step plots' figures at every step (or at one: the lesson's frame, sent first)
with the step's line, candidates, token strip and text alternative. The variants: what a new layer or head redraws,
in every other layer and head, as changes to the frames' own figures (changes.step_changes). The page
(app/frames.py) and the lesson file (lesson.py) both build them here, and js/stepping.js reads them in both; the
format is defined once, in these two classes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass
class Frames:
    """Every step's drawings of one translation, drawn for one layer, head, look, language and units."""

    key: str  # what they were drawn for: [layer, head, look, language, units] (changes.frame_key)
    shown: str  # the translation they were drawn from: its text and its model's name, as JSON
    ids: list[str]  # the step plots' element ids
    lesson: list[bool]  # which of them are the lesson's (the main map, the top-k): painted first
    steps: int  # the translation's steps
    plots: list[list[str | None] | None]  # per plot, its figure JSON at each step; None: the page leaves it
    label: list[str | None]  # the step line at each step (None: a step not drawn)
    alternatives: list[list | None]  # the candidates to branch on at each step: [label, token id]
    strip: list[str | None]  # the token strip's HTML at each step (strip.token_strip)
    alt: list[str | None]  # the step's text alternative at each step, for a screen reader (alt.step_alt)
    last: str  # what Next says at the last step
    play: str  # Play's label
    pause: str  # and Pause's
    layers: int  # the model's layers and heads, for the presenter's keys (js/keys.js)
    heads: int
    guess: dict  # guess first's data: each step's piece and top 5, the strongest keys (guess.guess_data, js/guess.js)
    base: str | None = None  # the variants' name for these frames, where they hold every step the variants change
    serial: int = 0  # the order the page's frames were drawn in: the page keeps none older than those it holds
    only: int | None = None  # the one step drawn, where not every step is (the lesson's frame)

    def to_json(self) -> dict:
        """The frames as the browser reads them: a plain dict of their fields (lists shared, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class Variants:
    """What a new layer or head redraws, in every layer and head, as changes to the frames named `base`."""

    base: str  # the frames they change (Frames.base)
    keys: list[dict[str, str] | None]  # per step plot, "layer/head" → the name of its drawing there; None: no change
    own: list[str | None]  # per step plot, the name of the frames' own drawing
    patches: list[dict[str, list] | None]  # per step plot, a drawing's name → its changes at each step
    alt: dict[str, list[str]]  # "layer/head" → the step's text alternative at each step

    def to_json(self) -> dict:
        """The variants as the browser reads them: a plain dict of their fields."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
