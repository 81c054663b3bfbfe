"""The step's text alternative: what the lesson's map and top-k chart show at one step, said in a sentence.

A screen reader reads it where a sighted learner reads the two figures: the piece the model produced and its
probability (the top-k chart's chosen bar), and the source piece (or word) the main map's row of that step weighs
most, at the layer and head shown. The page and the lesson file say it again at every step (js/stepping.js).
"""

from __future__ import annotations

import numpy as np

from .. import i18n
from ..trace import Trace
from .attention import attention_axes, head_matrix
from .labels import piece_label
from .units import map_axes


def strongest_key(trace: Trace, step: int, layer: int, head: int | str, units: str = "pieces") -> tuple[str, float]:
    """(label, weight) of the column the main map's row of `step` weighs most: cross-attention at `layer` and `head`
    (a number, or "mean"), in `units` as the map shows them ("pieces": a piece as its tick reads it, or "words")."""
    ax = map_axes(*attention_axes(trace, "cross"), units)
    weights = ax.weights(head_matrix(trace, "cross", layer, head))[ax.row(step)]  # (K,)
    key = int(np.argmax(weights))
    return ax.key_labels[key], float(weights[key])


def step_alt(trace: Trace, step: int, layer: int, head: int | str, units: str = "pieces", lang: str = "en") -> str:
    """'Step 3: the model produced “Haus” with p = 0.82. In layer 1, head 2 weighs “house” most (0.64).' in `lang`:
    plain text (a page escapes it where it shows Markdown or HTML)."""
    s, head = trace.steps[step], "mean" if str(head) == "mean" else int(head)
    source, weight = strongest_key(trace, step, layer, head, units)
    forced = i18n.text("forced", lang) if step < trace.forced_prefix else ""
    who = i18n.text("step-alt-mean", lang) if head == "mean" else i18n.text("step-alt-head", lang, head=head)
    return i18n.text(
        "step-alt",
        lang,
        step=step,
        token=piece_label(s["token"]),
        forced=forced,
        prob=s["prob"],
        layer=layer,
        head=who,
        source=source,
        weight=weight,
    )
