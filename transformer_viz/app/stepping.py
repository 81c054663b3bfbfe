"""Stepping in the browser: every step's figures reach the page once, and a step, layer or head change is drawn there.

The browser's side lives in js/stepping.js (what a step paints), js/plots.js (how a plot is drawn) and js/page.js
(the page's state object and the functions each event calls in one line); this module wires the events to them.

After a translation (or a new look, units or language) the frames (frames.step_frames) reach a hidden JSON value.
Previous, Next, the slider, a click in the token strip and Play then pick a frame in the browser and hand it to the
page's own components (a js-only event: no request to the server).

Then come the variants (frames.variants): the plots a new layer or head redraws, in every other layer and head, as
changes to the frames' own figures. A new layer or head makes its frames in the browser from the frames and the
variants (framesFor) and paints them; until the variants arrive (or where they do not fit the page), the server
draws that layer's and head's frames (frames_unless_drawn).

Frames drawn for another layer, head, look, units or language than the page shows, or for another translation
(a new one is on the page, its frames not yet), are not drawn from: the step moves, and the new frames' arrival
paints the step the slider is at; frames older than the page's (a late event of an earlier translation) are not kept.

Before every step's frames, a translation or a new look, units or language sends the lesson's frame: its map and
top-k at one step (frames.lesson_frame), painted first while the server draws the rest.
"""

from __future__ import annotations

import json

import gradio as gr

from .common import SCREEN
from .frames import N_OUT, step_frames
from .header import Header
from .registry import CLICK_BOX, CLICKABLE, VIEW_CLICKS
from .tabs import Event

# The page's controls a step reads, named as figures.views.View names them: a js-only event hands them to the page's
# functions (js/page.js) as one object.
VIEW = ("step", "layer", "head", "presentation", "lang", "units")
ARGS, VIEW_OBJECT = ", ".join(VIEW), "{" + ", ".join(VIEW) + "}"


def view_js(call: str, before: tuple[str, ...] = (), after: tuple[str, ...] = ()) -> str:
    """A one-line js function of the inputs (before, the VIEW controls, after) that calls transformerViz.`call`,
    where `call` names the view object VIEW: view_js("onStep('next', VIEW)")."""
    args = ", ".join([*before, ARGS, *after])
    return f"({args}) => transformerViz.{call.replace('VIEW', VIEW_OBJECT)}"


def start_config() -> dict:
    """What the page's start reads: how many outputs a step paints, the clicks on plots to listen to ([plot id,
    reader, argument]: registry.Click) and the box they are written into."""
    clicks = [[plot.id, plot.click.reader, plot.click.arg] for plot in CLICKABLE]
    clicks += [[view_id, click.reader, click.arg] for view_id, click in VIEW_CLICKS]
    return {"outputs": N_OUT, "clicks": clicks, "click_box": CLICK_BOX}


def start_js() -> str:
    """The page's start (js/page.js), run once when the page loads."""
    return f"() => transformerViz.start({json.dumps(start_config())})"


# Until the page has painted its next frame: what follows the lesson's frame (every step's frames, the other plots)
# waits for it, so that the server's drawing does not compete with the browser's painting of the lesson where the
# two share a processor.
PAINTED = Event(None, [], [], js="() => transformerViz.painted()")

# Every click counts (Gradio's default drops a click while the last one is pending), and none is an API endpoint.
JS_ONLY = dict(trigger_mode="multiple", api_visibility="private")


def frames_unless_drawn(sess, t, lay, hd, pres, lng, unt, drawn):
    """A new layer's or head's frames from the server, unless the page made them from the variants (DRAWN_JS)."""
    if drawn == "drawn":
        return gr.skip()
    return step_frames(sess, t, lay, hd, pres, lng, unt)


# Before frames_unless_drawn: whether the page has the frames of the view's layer and head (made now if it can).
DRAWN_JS = f"(session, {ARGS}, drawn) => [session, {ARGS}, transformerViz.drawnHere({VIEW_OBJECT})]"


def wire_switch(top: Header, step_in: list):
    """A new layer or head: drawn in the browser (the lesson's plots at once, then the switch box, whose change paints
    the rest: the page sends a control's events one after the other, and the tab groups' listeners of the layer and
    head are made before the step plots' components exist, so that painting comes after the page has handled them;
    measured: 70-100 ms after the click), its frames from the server where the page cannot make them. Made before
    the tab groups' listeners of the layer and head; returns the layer's listener, for what else a new layer redraws
    to follow it."""
    listeners, controls = [], [top.step, top.layer, top.head, top.presentation, top.lang, top.units]
    for trigger in (top.layer.input, top.head.input):
        trigger(None, controls, [top.switch], js=view_js("onSwitch(VIEW)"), **JS_ONLY)
        fallback = trigger(
            frames_unless_drawn, [*step_in, top.drawn], [top.frames], js=DRAWN_JS, api_visibility="private", queue=False
        )
        listeners.append(fallback)
    return listeners[0]


def wire_steps(top: Header, step_outputs: list) -> None:
    """Previous, Next, the slider, the strip's tokens, Play, a new layer or head, new frames and new variants: each
    drawn in the browser (js/page.js)."""
    controls = [top.step, top.layer, top.head, top.presentation, top.lang, top.units]
    outputs = [top.step, *step_outputs]
    for trigger, move in (
        (top.prev_btn.click, "prev"),
        (top.next_btn.click, "next"),
        (top.step.input, "stay"),
        (top.switch.change, "stay"),
    ):
        trigger(None, controls, outputs, js=view_js(f"onStep('{move}', VIEW)"), **JS_ONLY)
    on_strip = view_js("onStep('strip', VIEW, token)", after=("token",))  # the strip box's text: the token's step
    top.strip_click.change(None, [*controls, top.strip_click], outputs, js=on_strip, **JS_ONLY)
    # new frames, new variants: kept in the page, and the step the slider is at drawn from them
    top.frames.change(None, [top.frames, *controls], outputs, js=view_js("onFrames(f, VIEW)", ("f",)), **JS_ONLY)
    on_variants = view_js("onVariants(v, VIEW)", ("v",))
    top.variants.change(None, [top.variants, *controls], outputs, js=on_variants, **JS_ONLY)
    top.play_btn.click(None, controls, [top.play_btn, *outputs], js=view_js("onPlay(VIEW)"), **JS_ONLY)
    # a slide look stacks the rows of plots (common.SLIDE_LOOK), as their downloads are drawn
    mark = f"(look) => transformerViz.markLook(look !== {json.dumps(SCREEN)})"
    top.presentation.change(None, [top.presentation], [], js=mark, **JS_ONLY)
