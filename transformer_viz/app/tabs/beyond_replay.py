"""The training replay tab: the visitor's translation through the snapshots its model kept during training.

Nothing runs until the visitor presses "Replay training" (one teacher-forced pass per snapshot, cached per model
and sentence by lab.replay); the slider then picks a snapshot and redraws from the cache. A model without
snapshots says so, and the button stays off.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import gradio as gr

from ... import figures, i18n
from ...figures.labels import piece_label
from ...hub.hub import CheckpointError, resolve_checkpoint
from ...lab.replay import has_snapshots, replay_of_trace
from ...training.snapshots import list_snapshots
from ..common import Words, localised_errors, plot, slides
from ..downloads import offered
from ..markdown import md
from ..models import get_translator
from ..session import Session
from . import Controls, Event, Plots, T, TabGroup, explain, opened_view, shown, tab

FIGURES = ("grid", "heads", "probs", "loss")  # replay_figures' keys, in the order of their boxes
BOXES = {"grid": "plot-replay", "heads": "plot-replay-heads", "probs": "plot-replay-probs", "loss": "plot-replay-loss"}


def checkpoint_folder(model: str) -> Path | None:
    """The folder the model was loaded from (a Hub model's local copy), or None where there is none."""
    try:
        return resolve_checkpoint(model, local_files_only=True)
    except (CheckpointError, OSError, ValueError):
        return None


def status(sess: Session | None, lang: str) -> tuple[str, bool]:
    """(what the tab says before a replay, whether the button may run one)."""
    if sess is None:
        return i18n.text("replay-first", lang), False
    folder = checkpoint_folder(sess.model)
    if not has_snapshots(folder):
        return i18n.text("replay-none", lang, model=sess.model), False
    return i18n.text("replay-ready", lang, model=sess.model, n=len(list_snapshots(folder))), True


def replay_info(sess: Session, result, index: int, lang: str) -> str:
    """One line on the snapshot shown: its step, its validation loss, the token it found least likely."""
    probs = result.probs[index]
    worst = int(probs.argmin())
    return i18n.text(
        "replay-shown",
        lang,
        n=index + 1,
        total=len(result),
        step=result.steps[index],
        loss=result.valid_loss[index],
        token=md(piece_label(sess.trace.target_tokens[worst])),
        p=float(probs[worst]),
    )


def replayed_key(sess: Session) -> tuple:
    """What a replay shows depends on: the model and the translation's source and target tokens."""
    return sess.model, tuple(sess.trace.source_ids), tuple(sess.trace.target_ids)


def closed(sess, lng, replayed) -> list:
    """A new session (or no replay yet): what the tab says, its button, the slider back, no figures.

    A replay already of this translation stays: the new-session events may come after the visitor pressed the
    button for the new session.
    """
    if sess is not None and replayed == replayed_key(sess):
        return [gr.skip()] * (4 + len(FIGURES))
    said, can_run = status(sess, lng)
    return [
        said,
        gr.update(interactive=can_run),
        gr.update(minimum=1, maximum=2, value=1, interactive=False),
        None,
    ] + [shown(None)] * len(FIGURES)


def drawn(lng, sess, number, lay, pres) -> list:
    """The replay of the session's translation at snapshot `number` (1 to N, as the slider and the line count):
    its line and its four figures."""
    translator = get_translator(sess.model)
    result, _ = replay_of_trace(translator, checkpoint_folder(sess.model), sess.trace)  # computed once, then cached
    index = max(0, min(int(number) - 1, len(result) - 1))
    layer = max(0, min(int(lay), translator.config.n_layers - 1))
    with figures.language(lng):
        figs = figures.replay_figures(sess.trace, result, index, layer, presentation=slides(pres))
    return [replay_info(sess, result, index, lng)] + [shown(plot(figs[name], pres)) for name in FIGURES]


@localised_errors
def on_run(lng, sess, lay, pres):
    """Replay training: every snapshot, the slider over them at the last one (the trained model), the session with
    the replay in (a copy of) its trace, and the trace file offered again with it."""
    if sess is None:
        raise gr.Error(i18n.text("replay-first", lng), print_exception=False)
    if not status(sess, lng)[1]:
        raise gr.Error(status(sess, lng)[0], print_exception=False)
    folder = checkpoint_folder(sess.model)
    n = len(list_snapshots(folder))
    sess = replace(sess, trace=replay_of_trace(get_translator(sess.model), folder, sess.trace)[1])
    out = drawn(lng, sess, n, lay, pres)
    slider = gr.update(minimum=1, maximum=max(n, 2), value=n, interactive=n > 1)  # snapshot 1 to N, as its line says
    return [out[0], slider, replayed_key(sess), sess] + out[1:] + [offered(sess)]


def redraw(lng, sess, replayed, number, lay, pres) -> list:
    """The slider, layer, look or language changed: the replay shown again, or the tab's status before one."""
    if sess is None or replayed != replayed_key(sess):  # none yet, or another translation's (closed comes next)
        return [status(sess, lng)[0]] + [gr.skip()] * len(FIGURES)
    try:
        return drawn(lng, sess, number, lay, pres)
    except (CheckpointError, ValueError):  # the snapshots went, or belong to another translation now
        return [status(sess, lng)[0]] + [shown(None)] * len(FIGURES)


def build(words: Words, controls: Controls, plots: Plots) -> TabGroup:
    """The "Training replay" tab, laid out and wired."""
    with tab(words, "tab-replay"):
        explain(words, "replay")
        info = gr.Markdown(T("replay-first"), elem_id="replay-status")
        with gr.Row():
            run = words(
                gr.Button(T("replay-run"), variant="primary", elem_id="replay-run", interactive=False, scale=1),
                "value",
                "replay-run",
            )
            slider = gr.Slider(
                1, 2, value=1, step=1, label=T("replay-snapshot"), elem_id="replay-slider", interactive=False, scale=4
            )
            words(slider, "label", "replay-snapshot")
        replayed = gr.State(None)  # replayed_key of the translation the replay shows
        boxes = {name: opened_view(BOXES[name]) for name in ("grid",)}
        with gr.Row():
            boxes.update({name: opened_view(BOXES[name]) for name in ("heads", "probs")})
        boxes["loss"] = opened_view(BOXES["loss"])
    s, lang, layer, look = controls.session, controls.lang, controls.layer, controls.presentation
    figs = [boxes[name] for name in FIGURES]
    outputs = [info, slider, replayed, s] + figs + ([controls.download] if controls.download is not None else [])
    run.click(
        lambda *values: on_run(*values)[: len(outputs)], [lang, s, layer, look], outputs, api_visibility="private"
    )
    again = Event(redraw, [lang, s, replayed, slider, layer, look], [info] + figs)
    # every value the slider passes (a drag, the arrow keys, a typed number); one pending at a time, then the last
    again.on(slider.input, trigger_mode="always_last")
    again.on(layer.input, look.input)
    reset = Event(closed, [s, lang, replayed], [info, run, slider, replayed] + figs)
    return TabGroup(plots={}, on_new_session=[reset], on_language=[again])
