"""Side by side (`compare-models`): the two shipped models on the visitor's sentence, stepped together.

Compare translates the page's sentence, with its decoding options, with seed000 and seed004 (the model on the
page gives its own translation before any branch; the other traces it afresh, about 35 ms on a laptop's CPU) and
keeps both traces in a State. Once open, the comparison follows each new translation. Each model shows its
translation, its cross-attention of the page's layer and its top-k at the tab's step.

The tab has its own step slider, whose move asks the server for four figures (a few ms to draw): the page's
frames, which make its own stepping a browser-only affair, would have to be drawn for both models at every step on
every translation, for a view most visitors never open. Where one model wrote fewer tokens (or has fewer layers)
than the slider reaches, it stays at its last step (layer), and the note under the slider says so.
"""

from __future__ import annotations

import gradio as gr

from ... import figures, i18n
from ...decoding import DecodeOptions
from ...trace import Trace
from ..common import Words, localised_errors, plot, slides
from ..models import available_models, get_translator, model_label
from . import Controls, Event, Plots, T, TabGroup, explain, opened_view, shown, tab

COMPARED = ("seed000", "seed004")  # the shipped presets: pre-LN · sinusoidal, post-LN · learned positions
COLUMN_PX = 600  # how wide the page draws each model's map: half of a 1280 px page


def compared_models(names: list[str]) -> list[str]:
    """The two models to compare: the shipped presets where they are available, else the first others listed."""
    return ([name for name in COMPARED if name in names] + [name for name in names if name not in COMPARED])[:2]


def comparison_traces(session, pair: list[str]) -> dict[str, Trace]:
    """{model: its trace of the session's sentence, with the session's decoding options}, for each of `pair`.

    The session's own model gives the translation it made before any branch; the others translate afresh.
    """
    own = session.original or session.trace
    options = DecodeOptions(**session.options)
    return {
        name: own if name == session.model else get_translator(name).trace(own.source_text, options=options)
        for name in pair
    }


def clamped(value: int, count: int) -> int:
    """`value` held to 0 .. count - 1."""
    return max(0, min(int(value or 0), count - 1))


def comparison_parts(traces: dict[str, Trace], step, layer, presentation: bool, lang: str, units: str) -> list[dict]:
    """Per model: its label, translation, the step and layer it is shown at, its cross-attention grid and top-k.

    Each figure's download names the model it shows ('cross-attention_L0_step-2_seed004').
    """
    parts = []
    for name, trace in traces.items():
        t, lay = clamped(step, len(trace.target_ids)), clamped(layer, trace.n_layers)
        kw = dict(presentation=presentation, lang=lang)
        with figures.language(lang):  # every head of the layer: where the two architectures' heads differ
            grid = figures.attention_grid(
                trace, "cross", lay, step=t, units=units, width=COLUMN_PX, presentation=presentation
            )
        topk = figures.show(trace, "topk", step=t, width=COLUMN_PX, **kw)
        for fig in (grid, topk):
            figures.with_download_name(fig, f"{figures.download_name_of(fig)}_{name}")
        label = model_label(name, lang)
        parts.append(dict(name=name, label=label, text=trace.target_text, step=t, layer=lay, grid=grid, topk=topk))
    return parts


def comparison_note(traces: dict[str, Trace], step, layer, lang: str) -> str:
    """What the view says of a model held at its last step or layer ('' when both show the step and layer asked)."""
    said = []
    for name, trace in traces.items():
        steps, layers = len(trace.target_ids), trace.n_layers
        if int(step or 0) >= steps:
            said.append(i18n.text("compare-clamped", lang, model=model_label(name, lang), n=steps, last=steps - 1))
        if int(layer or 0) >= layers:
            said.append(
                i18n.text("compare-layer-clamped", lang, model=model_label(name, lang), n=layers, last=layers - 1)
            )
    return " ".join(said)


def one_model_note(pair: list[str], lang: str) -> str:
    """The note when fewer than two models are available ('' when there are two)."""
    return "" if len(pair) >= 2 else i18n.text("compare-one-model", lang, model=", ".join(pair) or "—")


def shown_comparison(traces, pair, step, layer, look, lang, units) -> list:
    """[note, then per model: its translation box (labelled with the model), its grid, its top-k] for the page."""
    if not traces:
        labels = [gr.update(label=model_label(name, lang)) for name in pair]
        return [one_model_note(pair, lang)] + [out for label in labels for out in (label, gr.skip(), gr.skip())]
    out = [comparison_note(traces, step, layer, lang)]
    for part in comparison_parts(traces, step, layer, slides(look), lang, units):
        out += [
            gr.update(label=part["label"], value=part["text"]),
            shown(plot(part["grid"], look)),
            shown(plot(part["topk"], look)),
        ]
    return out


def steps_slider(traces: dict[str, Trace], step=0) -> dict:
    """The tab's step slider over the longer translation's steps, at `step` (held to them)."""
    longest = max(len(trace.target_ids) for trace in traces.values())
    return gr.update(maximum=max(longest - 1, 1), value=clamped(step, longest), interactive=longest > 1)


def lay_out(words: Words, pair: list[str]) -> dict:
    """The tab: its explanation, Compare and the step, the note, and a column per model (`compare-models`)."""
    explain(words, "compare-models")
    with gr.Row(equal_height=True):
        run = words(
            gr.Button(T("compare-run"), variant="primary", elem_id="compare-run", scale=1, min_width=120),
            "value",
            "compare-run",
        )
        step = gr.Slider(0, 1, value=0, step=1, label=T("compare-step"), elem_id="compare-step", interactive=False)
        words(step, "label", "compare-step")
    note = gr.Markdown(one_model_note(pair, i18n.DEFAULT), elem_id="compare-note")
    columns = []
    with gr.Column(elem_id="compare-models"), gr.Row():
        for i, name in enumerate(pair):
            with gr.Column(min_width=COLUMN_PX // 2):
                box = gr.Textbox(label=model_label(name), elem_id=f"compare-translation-{i}", interactive=False)
                columns += [box, opened_view(f"compare-cross-{i}"), opened_view(f"compare-topk-{i}")]
    return dict(run=run, step=step, note=note, columns=columns, traces=gr.State(None))


def build(words: Words, controls: Controls, plots: Plots) -> TabGroup:
    """The "Side by side" tab of the Beyond group, laid out and wired (it places no registry plot)."""
    pair = compared_models(available_models())
    with tab(words, "tab-compare-models"):
        parts = lay_out(words, pair)
    s, lang, layer, look, units = controls.session, controls.lang, controls.layer, controls.presentation, controls.units
    traces, step, shown_out = parts["traces"], parts["step"], [parts["note"], *parts["columns"]]

    @localised_errors
    def on_compare(lng, sess, lay, pres, unt):
        if sess is None:
            raise gr.Error(i18n.text("err-translate-compare", lng), print_exception=False)
        if len(pair) < 2:
            return [None, gr.skip()] + shown_comparison({}, pair, 0, lay, pres, lng, unt)
        both = comparison_traces(sess, pair)
        return [both, steps_slider(both)] + shown_comparison(both, pair, 0, lay, pres, lng, unt)

    def follow(sess, both, t, lng, lay, pres, unt):
        """A new translation, branch or model: an open comparison takes the new sentence, at the step it was at."""
        if sess is None or both is None:
            return [gr.skip()] * (2 + len(shown_out))
        both = comparison_traces(sess, pair)
        t = clamped(t, max(len(trace.target_ids) for trace in both.values()))  # where the slider lands
        return [both, steps_slider(both, t)] + shown_comparison(both, pair, t, lay, pres, lng, unt)

    def redraw(both, t, lng, lay, pres, unt):
        """The step, layer, look, units or language changed: both models drawn again from their traces."""
        return shown_comparison(both or {}, pair, t, lay, pres, lng, unt)  # before Compare: the labels, the note

    parts["run"].click(on_compare, [lang, s, layer, look, units], [traces, step, *shown_out], api_visibility="private")
    redrawn = Event(redraw, [traces, step, lang, layer, look, units], shown_out)
    redrawn.on(step.input, trigger_mode="always_last")  # scrubbing draws the step the slider stops at, at the least
    redrawn.on(layer.input, look.input, units.input)
    followed = Event(follow, [s, traces, step, lang, layer, look, units], [traces, step, *shown_out])
    return TabGroup(plots={}, on_new_session=[followed], on_language=[redrawn])
