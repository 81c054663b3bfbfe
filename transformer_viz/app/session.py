"""A visitor's recorded run: the decoding options from the page, the traced translation, and its branches.

A `Session` lives in gr.State; stepping and switching views redraw from it and never run the model again. Its
traces come from the server's cache (traces.py), shared read-only with every visitor who asked for the same one: what
a visitor adds to a trace goes into a copy in their own session.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

from ..decoding import CHOSEN, DecodeOptions, chosen_options
from ..errors import UserError
from ..figures.guess import guess_keys
from ..trace import Trace
from .models import get_translator
from .traces import shared_trace


@dataclass
class Session:
    """One visitor's state: the trace on screen, the original before any branch, and the inputs that made it."""

    trace: Trace
    model: str
    options: dict
    original: Trace | None = None  # set while looking at a branch
    branches: list[tuple[int, str, str]] = field(default_factory=list)  # (step, the model's piece, the forced piece)
    german: str = ""  # the visitor's German that the trace forces as the output (score.german_session); '' if none

    @functools.cached_property
    def guess_keys(self) -> dict:
        """Guess first's data that no language, look or units changes (figures.guess.guess_keys): made once for
        the lesson's frame, every step's frames and each new look, units or language after them."""
        return guess_keys(self.trace)


# The decoding sliders' ranges (the page builds the sliders from these): a shared link is held to them too.
SLIDER_RANGES = dict(beam=(1, 8), max_len=(1, 128), temperature=(0.05, 2.0), top_k=(0, 50), top_p=(0.05, 1.0))


def decode_options(*values) -> DecodeOptions:
    """The page's option controls' values, in CHOSEN's order → validated DecodeOptions."""
    return chosen_options({option.name: value for option, value in zip(CHOSEN, values, strict=True)})


def translate(sentence: str, model: str, options: DecodeOptions) -> Session:
    """The traced translation (the model runs once for every visitor who asks for it: traces.py) in a new session."""
    trace = shared_trace(get_translator(model), sentence, options)
    return Session(trace=trace, model=model, options=options.__dict__.copy())


def branch(session: Session, step: int, token_id: int) -> Session:
    """Force `token_id` at `step` (keeping the tokens before it) and let the model continue."""
    trace = session.trace
    if not 0 <= step < len(trace.target_ids):
        raise UserError("err-step-outside", step=step, last=len(trace.target_ids) - 1)
    prefix = trace.target_ids[:step] + [int(token_id)]
    options = DecodeOptions(**session.options)
    translator = get_translator(session.model)
    new = shared_trace(translator, trace.source_text, options, prefix, max(options.max_new_tokens, len(prefix)))
    label = (step, trace.target_tokens[step], translator.tokenizer.id_to_piece(int(token_id)))
    # a branch at an earlier step decodes the later ones afresh: their forced tokens are gone
    kept = [b for b in session.branches if b[0] < step]
    return replace(session, trace=new, original=session.original or session.trace, branches=kept + [label])


def unbranch(session: Session) -> Session:
    """Back to the translation before any forced token (or forced German)."""
    if session.original is None:
        return session
    return replace(session, trace=session.original, original=None, branches=[], german="")
