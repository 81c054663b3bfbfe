"""Guess first's data: what the browser needs to hide a step's answer, offer the choices and score the guesses.

The page's frames (app/frames.py) and the lesson file (lesson.py) carry it; app/js/guess.js decides from it. Per step:
the piece produced and the step's top 5 as the axes show pieces, the main map's title line that names the piece
(and the same line with "?" for it), the step's row on the main map in pieces and in words, and, for every layer
and head (and their mean), the strongest key of that row: the source pieces a head guess counts as right.
"""

from __future__ import annotations

import numpy as np

from .. import i18n
from ..trace import Trace
from .attention import attention_axes, head_matrix, step_suffix
from .style import piece_label
from .units import UNITS, map_axes
from .words import language, t

TOP = 5  # the choices are drawn from the step's five most likely pieces
TIE = 1e-6  # weights this close to the row's largest are as strong: a guess of either is right


def strongest_keys(weights: np.ndarray, key_spans: list[list[int]] | None) -> list[int]:
    """The source pieces of a row's strongest key (every one of them where several tie): in words, the pieces of
    the strongest words."""
    best = np.flatnonzero(np.isclose(weights, np.nanmax(weights), rtol=0, atol=TIE))
    if key_spans is None:
        return [int(k) for k in best]
    return [piece for k in best for piece in key_spans[k]]


def guess_data(trace: Trace, lang: str = "en") -> dict:
    """The guess-first data of one translation, in `lang` (the title's step line is the map's own), with the words
    the switch, the choices and the score say."""
    total = len(trace.target_tokens)
    axes = {units: map_axes(*attention_axes(trace, "cross"), units) for units in UNITS}
    heads = ["mean", *range(trace.n_heads)]
    strongest: dict[str, dict[str, list]] = {units: {} for units in UNITS}
    for layer in range(trace.n_layers):
        for head in heads:
            matrix = head_matrix(trace, "cross", layer, head)  # (T, S)
            for units, ax in axes.items():
                rows = ax.weights(matrix)
                strongest[units][f"{layer}/{head}"] = [
                    strongest_keys(rows[ax.row(step)], ax.key_spans) for step in range(total)
                ]
    with language(lang):
        title = [
            dict(
                line=step_suffix(trace, "cross", step).removeprefix("<br>"), hidden=t("producing", step=step, token="?")
            )
            for step in range(total)
        ]
    return dict(
        forced=trace.forced_prefix,
        piece=[piece_label(token) for token in trace.target_tokens],
        top=[[piece_label(option["token"]) for option in record["top_k"][:TOP]] for record in trace.steps],
        title=title,
        rows={units: [ax.row(step) for step in range(total)] for units, ax in axes.items()},
        strongest=strongest,
        words={
            key: i18n.text(key, lang)
            for key in (
                "guess-first",
                "guess-ask",
                "guess-ask-head",
                "guess-score",
                "guess-right",
                "guess-wrong",
                "guess-forced",
                "guess-head-right",
                "guess-head-wrong",
            )
        },
    )
