"""Share links: the query string that reopens the page on a sentence and its options, and reading it back."""

from __future__ import annotations

import math
from urllib.parse import urlencode

from ..decoding import STRATEGIES, DecodeOptions
from .session import SLIDER_RANGES


def share_query(sentence: str, model: str, options: DecodeOptions) -> str:
    """The query string that reopens the app on this sentence with these options."""
    return "?" + urlencode(
        dict(
            sentence=sentence,
            model=model,
            strategy=options.strategy,
            beam=options.beam_size,
            temperature=options.temperature,
            top_k=options.top_k,
            top_p=options.top_p,
            seed=options.seed,
            max_len=options.max_new_tokens,
        )
    )


def parse_query(params: dict) -> dict:
    """Query parameters → UI values, ignoring anything unknown or malformed; numbers held to the sliders' ranges."""
    out: dict = {}
    casts = dict(
        lang=str,
        sentence=str,
        model=str,
        strategy=str,
        beam=int,
        temperature=float,
        top_k=int,
        top_p=float,
        seed=int,
        max_len=int,
    )
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
        out["sentence"] = out["sentence"][:2000]
    if "strategy" in out:  # a hand-edited ?strategy=Beam would make the radio refuse every later event
        strategy = out.pop("strategy").strip().lower()
        if strategy in STRATEGIES:
            out["strategy"] = strategy
    return out
