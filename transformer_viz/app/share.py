"""Share links: the query string that reopens the page on a lesson, and reading it back.

The server writes what it knows (the sentence, the model, the decoding options, the forced tokens of a branch and a
visitor's German forced as the output);
the page adds what the browser holds (the step, layer, head, open tab and language: js/share.js) and shows the
whole address. Reading a link back holds every value to what the page's controls accept.
"""

from __future__ import annotations

import math
import re
from urllib.parse import urlencode

from ..cleaning import MAX_CHARS
from ..decoding import CHOSEN, STRATEGIES, DecodeOptions
from .session import SLIDER_RANGES, Session

MAX_BRANCHES = 16  # forced tokens a link may carry (each one is a decoding run on opening it)
MAX_GERMAN = MAX_CHARS  # a longer German is refused, never cut (scoring.german_pieces): a link drops it whole
TAB = re.compile(r"[a-z0-9-]{1,64}")  # a tab's id (tabs.tab: its i18n key)


def forced_tokens(session: Session) -> list[tuple[int, int]]:
    """(step, token id) of each branch on the way to the session's trace, in the order they were made."""
    return [(step, session.trace.target_ids[step]) for step, _, _ in session.branches]


def share_query(
    sentence: str, model: str, options: DecodeOptions, branches: list[tuple[int, int]] = (), german: str = ""
) -> str:
    """The query string that reopens the app on this sentence with these options (and these forced tokens, and
    this German forced as the output: Session.german)."""
    params = dict(sentence=sentence, model=model) | {o.name: getattr(options, o.field) for o in CHOSEN}
    if german:
        params["german"] = german
    if branches:
        params["branch"] = ",".join(f"{step}:{token}" for step, token in branches)
    return "?" + urlencode(params)


def parse_branches(value: str) -> list[tuple[int, int]]:
    """ "3:1234,5:87" → [(3, 1234), (5, 87)]; a malformed link's branches are all dropped, not half kept."""
    pairs = []
    for item in value.split(",")[:MAX_BRANCHES]:
        step, _, token = item.partition(":")
        if not (step.isdigit() and token.isdigit()):
            return []
        pairs.append((int(step), int(token)))
    return pairs


def parse_query(params: dict) -> dict:
    """Query parameters → UI values, ignoring anything unknown or malformed; numbers held to the controls' ranges."""
    out: dict = {}
    casts = dict(lang=str, sentence=str, model=str, german=str) | {o.name: o.kind for o in CHOSEN}
    casts |= dict(step=int, layer=int, head=str, tab=str, branch=parse_branches)
    for key, cast in casts.items():
        if key in params:
            try:
                value = cast(params[key])
            except (TypeError, ValueError, OverflowError):
                continue
            if key in SLIDER_RANGES:
                if not math.isfinite(value):
                    continue
                low, high = SLIDER_RANGES[key]
                value = min(max(value, low), high)  # a hand-edited ?beam=100 would make the slider refuse the page
            out[key] = value
    if "sentence" in out:
        out["sentence"] = out["sentence"][:MAX_CHARS]
    if not 0 < len(out.get("german", "")) <= MAX_GERMAN:  # a cut German would be another sentence
        out.pop("german", None)
    if "strategy" in out:  # a hand-edited ?strategy=Beam would make the radio refuse every later event
        strategy = out.pop("strategy").strip().lower()
        if strategy in STRATEGIES:
            out["strategy"] = strategy
    for key in ("step", "layer"):  # the page holds them to the translation and the model; here, only the sign
        if key in out and out[key] < 0:
            del out[key]
    if "head" in out and not (out["head"] == "mean" or out["head"].isdigit()):
        del out["head"]
    if "tab" in out and not TAB.fullmatch(out["tab"]):
        del out["tab"]
    if not out.get("branch"):
        out.pop("branch", None)
    return out
