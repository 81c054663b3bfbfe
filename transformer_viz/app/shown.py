"""What a new session shows (a translation, a branch and its undoing, a German, a share link): every value named as
the component that shows it, in one `Shown` (page.build_demo places each name's component)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import gradio as gr

from ..decoding import DecodeOptions
from . import handlers as h
from .model_card import model_card
from .models import get_translator
from .session import Session
from .share import forced_tokens, share_query


@dataclass
class Shown:
    """Everything a new session shows, each value named as the component that shows it (build_demo: shows)."""

    session: Session  # the session State
    translation: str
    notices: str  # what the model's input left out or changed
    tokens: object  # the token table
    step: dict  # the step slider: its range and value
    layer: dict  # the layer slider and the head menu, for the session's model
    head: dict
    pick: dict  # the overview's head menu
    download: dict  # the trace download, disabled until its file is written
    share: str  # the share link's query
    card: str  # the model card
    branch: str  # what the branch forced, if anything
    unbranch: dict  # "back to the original", enabled after a branch

    def values(self) -> list:
        """The values in SHOWN's order: a listener's outputs."""
        return [getattr(self, name) for name in SHOWN]


SHOWN = tuple(field.name for field in fields(Shown))


def session_outputs(sess, text, model_name, options: DecodeOptions, lng, lay=None, hd=None, step=0) -> Shown:
    """Everything a new session shows, at `step`; the layer and head, when given, are kept where its model has them."""
    trace = sess.trace
    translator = get_translator(sess.model)
    cfg = translator.config
    last = len(trace.target_ids) - 1
    heads = ["mean"] + [str(i) for i in range(cfg.n_heads)]
    picks = [f"layer {i} head {hh}" for i in range(cfg.n_layers) for hh in range(cfg.n_heads)]
    layer = dict(minimum=0, maximum=max(cfg.n_layers - 1, 1), interactive=cfg.n_layers > 1)
    head = dict(choices=heads)
    if lay is not None:
        layer["value"], head["value"] = h.layer_and_head(cfg, lay, hd)
    return Shown(
        session=sess,
        translation=trace.target_text,
        notices=h.notices_info(trace, lng),
        tokens=h.tokens_table(trace, lng),
        step=gr.update(minimum=0, maximum=max(last, 1), value=h.clamp_step(trace, step), interactive=last > 0),
        layer=gr.update(**layer),
        head=gr.update(**head),
        pick=gr.update(choices=picks, value=None),
        download=gr.update(interactive=False),  # until its file is written, with the frames (offered)
        share=share_query(text, model_name, options, forced_tokens(sess), german=sess.german),
        card=model_card(translator),
        branch=h.branch_info(sess, lng),
        unbranch=gr.update(interactive=sess.original is not None),  # "back to the original" only after a branch
    )


def outputs_of(sess: Session, lng: str, step: int = 0) -> Shown:
    """session_outputs of a session made from the one before (a branch, its undoing, a German), from its sentence,
    model and options."""
    return session_outputs(sess, sess.trace.source_text, sess.model, DecodeOptions(**sess.options), lng, step=step)
