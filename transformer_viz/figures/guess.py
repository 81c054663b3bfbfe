"""Guess first's data: what the browser needs to hide a step's answer, offer the choices and score the guesses.

The page's frames (app/frames.py) and the lesson file (lesson.py) carry it; js/guess.js decides from it. Per step:
the piece produced and the step's top 5 as the axes show pieces, the main map's title line that names the piece
(and the same line with "?" for it), the step's row on the main map in pieces and in words, and, for every layer
and head (and their mean), the strongest key of that row: the source pieces a head guess counts as right.
"""

from __future__ import annotations

import html

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


def guess_keys(trace: Trace) -> dict:
    """The part of the guess-first data that no language changes, and the costly one: the pieces, each step's top 5,
    the step's row on the map in each units, and every layer's and head's strongest keys."""
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
    return dict(
        forced=trace.forced_prefix,
        piece=[piece_label(token) for token in trace.target_tokens],
        top=[[piece_label(option["token"]) for option in record["top_k"][:TOP]] for record in trace.steps],
        rows={units: [ax.row(step) for step in range(total)] for units, ax in axes.items()},
        strongest=strongest,
    )


def guess_data(trace: Trace, lang: str = "en", keys: dict | None = None) -> dict:
    """The guess-first data of one translation, in `lang` (the title's step line is the map's own), with the words
    the switch, the choices and the score say; `keys`: guess_keys(trace), where it was made already."""
    with language(lang):
        title = [
            dict(
                line=step_suffix(trace, "cross", step).removeprefix("<br>"), hidden=t("producing", step=step, token="?")
            )
            for step in range(len(trace.target_tokens))
        ]
    return dict(
        keys if keys is not None else guess_keys(trace),
        title=title,
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


def guess_switch(lang: str = "en") -> str:
    """HTML: guess first's switch, beside the step controls."""
    label = html.escape(i18n.text("guess-first", lang))
    return (
        '<label class="tv-guess-switch"><input type="checkbox" id="guess-first" role="switch">'
        f' <span id="guess-first-label">{label}</span></label>'
    )


# Guess first's question, choices, verdict and score, filled at each step by js/guess-panel.js; shown while guess
# first is on (GUESS_CSS), so that the lesson's first screen is as it was while it is off.
GUESS_PANEL = (
    '<div class="tv-guess"><span id="guess-ask"></span><span id="guess-choices"></span>'
    '<span id="guess-said" aria-live="polite"></span><span id="guess-score"></span></div>'
)


HIDDEN = "html.tv-guess-hidden"  # the page's root while a step's answer is hidden (js/guess.js: HIDDEN_CLASS)
# What shows the piece at the step or later, hidden while it is: the translation, its tokens, the branch menu and
# its words, the tab groups' views, the step line's piece, the step's text alternative and the title's translation.
HIDDEN_PARTS = (
    "#translation, #tokens, #alternative, #branch-info, #views [role=tabpanel], #step-label :is(b, strong), #step-alt,"
    " #lesson-target"
)
# The panel's look and what it hides, in the page's CSS and the lesson file's alike.
GUESS_CSS = (
    " .tv-guess {display: flex; flex-wrap: wrap; align-items: center; gap: .2em .6em; min-height: 1.6em}"
    " html:not(.tv-guess-on) #guess-panel {display: none !important}"
    " .tv-guess-switch {display: flex; align-items: center; gap: .3em; cursor: pointer; font-weight: bold}"
    " #guess-choices {display: flex; flex-wrap: wrap; gap: .4em} #guess-score {margin-left: auto}"
    " .tv-choice {font: inherit; padding: 0 .6em; border: 1px solid #999; border-radius: 6px; background: white;"
    " color: inherit; cursor: pointer} .tv-choice b {margin-right: .4em}"
    " .tv-choice.tv-right {background: #d1fae5; border-color: #059669}"
    " .tv-choice.tv-wrong {background: #fee2e2; border-color: #dc2626} .tv-choice:disabled {cursor: default}"
    f" {HIDDEN} :is({HIDDEN_PARTS}) {{visibility: hidden !important}}"
    f" {HIDDEN} #token-strip .tv-later {{display: none}}"
    # the source pieces are the head guess's buttons
    f" {HIDDEN} #token-strip [data-key] {{cursor: pointer; border-color: #999}}"
    # a slide look: large letters for a show of hands
    " html.tv-slide-look #guess-choices .tv-choice {font-size: 1.8em; padding: .1em .7em}"
    " html.tv-slide-look #guess-choices .tv-choice b {font-size: 1.4em}"
)
