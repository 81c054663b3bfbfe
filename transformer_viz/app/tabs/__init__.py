"""The page's tab groups, one module each; each lays out and wires its own components and returns a `TabGroup`.

A group's `build(words, controls)` runs inside the page's gr.Tabs and gets the page's controls it reads
(`Controls`); it returns its registry plots, for the page's redraws, and what it does when a new translation
arrives or the language changes, for the page to run after its own events.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import gradio as gr

from ... import i18n
from ..common import Words
from ..handlers import KINDS
from ..registry import PLOTS

T = i18n.text  # English when the page is built; Words switches it
PLOT_IDS = {plot.id for plot in PLOTS}


@dataclass
class Controls:
    """The page's components that the tab groups read (their values) or listen to (their events)."""

    session: gr.State  # the visitor's session.Session
    lang: gr.Radio
    layer: gr.Slider
    head: gr.Dropdown
    presentation: gr.Radio  # one of common.LOOKS
    units: gr.Radio  # the attention maps' rows and columns: one of figures.UNITS
    download: gr.DownloadButton | None = None  # the trace download: a view that adds to the trace offers it anew
    # the step slider, for a view a tab draws itself at the page's step; it moves in the browser (stepping.py)
    # without asking the server: such a view asks only while it is on screen (see beyond_qkv.STEP_JS)
    step: gr.Slider | None = None
    click: gr.Textbox | None = None  # the one box clicks on server-drawn plots are written into (registry.CLICK_BOX)


@dataclass
class Event:
    """A handler with its inputs and outputs, for the page to run after one of its own events."""

    fn: Callable | None
    inputs: list
    outputs: list
    js: str | None = None  # JavaScript the page runs first (alone, where fn is None)

    def on(self, *triggers, **options) -> None:
        """Run on each of `triggers` (a component's event method, e.g. `slider.input`) with the listener `options`."""
        for trigger in triggers:
            trigger(self.fn, self.inputs, self.outputs, js=self.js, api_visibility="private", **options)

    def after(self, dependency):
        """Run after `dependency` (an event listener's result) has succeeded."""
        return dependency.then(self.fn, self.inputs, self.outputs, js=self.js, api_visibility="private")

    @staticmethod
    def merged(events: list[Event]) -> Event:
        """One event doing what each of `events` does, in one round trip."""

        def run(*values):
            out, start = [], 0
            for event in events:
                result = event.fn(*values[start : start + len(event.inputs)])
                single = len(event.outputs) == 1 and not isinstance(result, (list, tuple))
                out += [result] if single else list(result)  # one output: its value, or a list of it
                start += len(event.inputs)
            return out[0] if len(out) == 1 else out  # Gradio takes one output's value as it is, a list too

        run.__name__ = "_and_".join(event.fn.__name__ for event in events)
        return Event(run, [c for e in events for c in e.inputs], [c for e in events for c in e.outputs])


def then(listener, events: list[Event]):
    """`events` one after the other once `listener` has succeeded; the last one's listener."""
    for event in events:
        listener = event.after(listener)
    return listener


def only_when(flag: gr.State, event: Event) -> Event:
    """`event`, run only while `flag` holds True; otherwise its outputs stay as they are."""

    if event.fn is None:  # the page's own script: it reads no session
        return event

    def run(ok, *values):
        return event.fn(*values) if ok else gr.skip()  # one skip leaves every output as it is

    run.__name__ = event.fn.__name__
    return Event(run, [flag, *event.inputs], event.outputs)


@dataclass(kw_only=True)
class TabGroup:
    """What a tab group gives the page."""

    plots: dict[str, gr.Plot]  # registry plot id → its component
    # a new translation, branch or model: what it empties or draws anew (an Event without fn: a script, run last)
    on_new_session: list[Event] = field(default_factory=list)
    on_language: list[Event] = field(default_factory=list)  # what it redraws in a new language, after the plots


def emptied(session: gr.State, closed: dict) -> Event:
    """On a new session, each component of `closed` back to its value there (no change while there is no session).

    A value may be an update (e.g. `shown(None)`); each session gets its own copy, as Gradio rewrites updates.
    """

    def close(sess):
        return [gr.skip()] * len(closed) if sess is None else [copy.copy(value) for value in closed.values()]

    return Event(close, [session], list(closed))


class Plots(dict):
    """The registry's plots a part of the page lays out: plot id → gr.Plot.

    Without a label: each figure has its own title, and Gradio's plot component pushes a labelled plot's top margin
    to 100 px, which would leave the title's lines where Plotly puts them when it need not push (figures.finish).
    """

    def place(self, plot_id: str, **kwargs) -> gr.Plot:
        """A gr.Plot for the registered plot `plot_id`, here in the layout."""
        if plot_id not in PLOT_IDS or plot_id in self:
            raise ValueError(f"{plot_id!r} is not a registered plot, or is placed twice")
        self[plot_id] = gr.Plot(elem_id=plot_id, show_label=False, **kwargs)
        return self[plot_id]


def opened_view(elem_id: str) -> gr.Plot:
    """The box of a view a click opens (a head large, a beam node): hidden until a click gives it a figure."""
    return gr.Plot(elem_id=elem_id, visible=False, show_label=False)


def shown(figure) -> dict:
    """An opened view's figure, its box shown; a figure of None (nothing to show) hides the box again."""
    return gr.update(value=figure, visible=figure is not None)


def explain(words: Words, key: str) -> gr.Markdown:
    """The explanation above a view, in the visitor's language."""
    return words(gr.Markdown(T(f"explain-{key}"), elem_classes=["tv-explain"]), "value", f"explain-{key}")


def tab(words: Words, key: str) -> gr.Tab:
    """A tab whose id (what a share link names), elem_id and i18n key are all `key`."""
    return words(gr.Tab(T(key), id=key, elem_id=key), "label", key)


def hidden_box(elem_id: str) -> gr.Textbox:
    """A hidden textbox that the page's script writes a click into."""
    return gr.Textbox(elem_id=elem_id, elem_classes=["tv-hidden"], show_label=False, container=False)


def kind_radio(words: Words, key: str, value: str) -> gr.Radio:
    """A radio of the three attention kinds (handlers.KINDS), labelled by i18n key `key`."""
    radio = gr.Radio([(T(f"kind-{k}"), k) for k in KINDS], value=value, label=T(key), elem_id=key)
    words(radio, "label", key)
    words(radio, "choices", [(f"kind-{k}", k) for k in KINDS])
    return radio


def redrawn(draw, *args, width: int = 1):
    """`draw(*args)` again (a view a click opened, in a new language or look); skipped when it no longer applies."""
    try:
        return draw(*args)
    except (gr.Error, IndexError, ValueError):  # the choice belonged to an earlier translation or model
        return (gr.skip(),) * width if width > 1 else gr.skip()
