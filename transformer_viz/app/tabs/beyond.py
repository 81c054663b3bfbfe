"""Beyond attention maps: the views no other tool has for a translation model while it decodes.

One query in real numbers, the logit lens, attention against attribution, attention forming during training, the
query–key geometry and the two architectures side by side. Each view is its own module (`VIEWS`): its
`build(words, controls, plots)` lays out and wires one tab, places its registry plots in `plots` and returns what it
does on a new translation and in a new language.
"""

from __future__ import annotations

import gradio as gr

from ..common import Words
from . import (
    Controls,
    Event,
    Plots,
    TabGroup,
    beyond_attribution,
    beyond_compare,
    beyond_geometry,
    beyond_lens,
    beyond_qkv,
    beyond_replay,
    tab,
)

# the view modules, in the order of their tabs
VIEWS: tuple = (beyond_qkv, beyond_lens, beyond_attribution, beyond_replay, beyond_geometry, beyond_compare)


def build(words: Words, controls: Controls) -> TabGroup:
    """The "Beyond attention" tab group: one tab per module of VIEWS."""
    plots, on_new_session, on_language = Plots(), list[Event](), list[Event]()
    if not VIEWS:
        return TabGroup(plots=plots)
    with tab(words, "group-beyond"), gr.Tabs(elem_id="views-beyond"):
        for view in VIEWS:
            part = view.build(words, controls, plots)
            on_new_session += part.on_new_session
            on_language += part.on_language
    return TabGroup(plots=plots, on_new_session=on_new_session, on_language=on_language)
