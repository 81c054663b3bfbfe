"""What the page shows of a session, as plain functions: values in, values out, no gradio.

The tabs wire these; tests call them directly. The session itself is in session.py, the labs' handlers
("What if?" and the seed bugs) in handlers_lab.py.
"""

from __future__ import annotations

from dataclasses import replace

from .. import figures, i18n
from ..decoding import DecodeOptions
from ..errors import UserError
from ..figures.labels import piece_label
from ..figures.narrow import NARROW_PX, with_narrow
from ..trace import Trace
from .markdown import md
from .models import get_translator
from .registry import OTHER_PLOTS, PLOTS, STEP_PLOTS, View
from .session import Session

KINDS = {"cross": "cross", "decoder self": "decoder_self", "encoder self": "encoder_self"}
TOKEN_COLUMNS = ("tokens-side", "tokens-position", "tokens-piece", "tokens-id")  # the token table's headers, by key


def notices_info(trace: Trace, lang: str = "en") -> str:
    """Markdown: the trace's notices (input cut, intervention, …) as a list in `lang` ('' when there is none)."""
    return "\n".join(f"- {i18n.message(n, lang)}" for n in trace.notices)


OUTPUT_NOTICES = ("notice-output-limit",)  # of the translation, said beside it; the others are of the sentence


def input_notices(trace: Trace) -> list:
    """The trace's notices about its sentence (cut, unknown pieces, …), for under the sentence box."""
    return [n for n in trace.notices if getattr(n, "key", None) not in OUTPUT_NOTICES]


def unreadable(trace: Trace):
    """The trace's notice that the model knows none of the sentence's pieces (emoji only, Japanese, …), or None."""
    for notice in trace.notices:
        params = getattr(notice, "params", {})
        if getattr(notice, "key", None) == "notice-unknown-pieces" and params["unknown"] == params["total"]:
            return notice
    return None


def sentence_message(said: list, lang: str = "en") -> str:
    """Markdown for under the sentence box: each keyed error or notice in `said`, in `lang`, escaped; '' if none."""
    texts = [i18n.message(item, lang) for item in said]
    return "\n\n".join(f"⚠ {md(text[:1].upper() + text[1:])}" for text in texts)


def branch_info(session: Session, lang: str = "en") -> str:
    """Markdown naming the visitor's German forced as the output (score.german_session) and every forced token of
    the session's branch, in `lang` ('' when there is neither)."""
    said = [i18n.text("german-info", lang, german=md(session.german))] if session.german else []
    if session.branches:
        # Escaped: `</s>` and `<unk>` would vanish as HTML tags.
        steps = [
            i18n.text("branch-step", lang, step=t, old=md(piece_label(old)), new=md(piece_label(new)))
            for t, old, new in session.branches
        ]
        said.append(i18n.text("branch-info", lang, branches="; ".join(steps)))
    return "\n\n".join(said)


def tokens_table(trace: Trace | None, lang: str = "en") -> dict:
    """The tokenisation table for gr.Dataframe: its headers and rows (side, position, piece, id), words in `lang`;
    a piece shown as the axes show it ("Haus", "·chen", "␣"), not with SentencePiece's "▁".

    Without a trace it has the headers only (the empty table before the first translation, in a new language).
    """
    rows = []
    if trace is not None:
        for side, tokens, ids in (
            ("source", trace.source_tokens, trace.source_ids),
            ("target", trace.target_tokens, trace.target_ids),
        ):
            label = i18n.text(f"tokens-{side}", lang)
            rows += [[label, i, piece_label(piece), ident] for i, (piece, ident) in enumerate(zip(tokens, ids))]
    return {"headers": [i18n.text(key, lang) for key in TOKEN_COLUMNS], "data": rows}


def clamp_step(trace: Trace, step) -> int:
    return max(0, min(int(step or 0), len(trace.target_ids) - 1))


def layer_and_head(config, layer, head) -> tuple[int, str]:
    """The layer slider's and head menu's values for a model: kept where it has them, else its last layer / the mean.

    A model with fewer layers or heads than the one before (a Hub model) must not inherit a layer it lacks, nor a
    head the menu no longer offers (the page would refuse every later event that reads the menu).
    """
    layer = max(0, min(int(layer or 0), config.n_layers - 1))
    head = str(head) if str(head).isdigit() and int(head) < config.n_heads else "mean"
    return layer, head


def step_label(trace: Trace, step: int, lang: str = "en") -> str:
    """'Step 3 (token 4 of 9): produced "Haus" (p = 0.82)' in the visitor's language.

    Escaped, because tokens come from user text.

    Steps count from 0, as on the step slider and in the figures' titles.
    """
    s = trace.steps[step]
    forced = i18n.text("forced", lang) if step < trace.forced_prefix else ""
    return i18n.text(
        "step-label",
        lang,
        step=step,
        n=step + 1,
        total=len(trace.steps),
        token=md(piece_label(s["token"])),
        forced=forced,
        prob=s["prob"],
        entropy=s["entropy"],
    )


def alternatives(trace: Trace, step: int) -> list[tuple[str, int]]:
    """The top-k candidates at `step` as (label, id) choices for forcing a different token."""
    return [(f"{piece_label(alt['token'])}  (p = {alt['prob']:.2f})", alt["id"]) for alt in trace.steps[step]["top_k"]]


def view_figures(
    plots,
    trace: Trace | None,
    step=0,
    layer=0,
    head="mean",
    kind="cross",
    presentation=False,
    lang="en",
    units="pieces",
):
    """{plot id: figure} for `plots` (registry.Plot) drawn from `trace` and the page's controls, words in `lang`;
    the attention maps in `units` ("pieces", the default, or "words"). On screen, a plot that fills its box carries
    its drawing for a phone's box too (Plot.screen_px)."""
    head = "mean" if head in (None, "mean", "all") else int(head)
    kind = KINDS.get(kind, kind)
    view = View(trace, step, layer, head, kind, presentation, units, in_box=True)
    with figures.language(lang):
        figs = {plot.id: plot.figure(view) for plot in plots}
        for plot in plots:
            if plot.screen_px and not presentation and figs[plot.id] is not None:
                narrow = plot.figure(replace(view, width=NARROW_PX))
                with_narrow(figs[plot.id], narrow, plot.screen_px)
        return figs


def step_figures(
    trace: Trace, step: int, layer: int, head, presentation: bool, lang: str = "en", units="pieces", plots=STEP_PLOTS
) -> dict:
    """The views that change with the step (or those of them in `plots`): the query row being produced is
    highlighted; words in `lang`."""
    return view_figures(plots, trace, step, layer, head, presentation=presentation, lang=lang, units=units)


def static_figures(trace: Trace, layer: int, kind: str, presentation: bool, lang: str = "en") -> dict:
    """The attention and model views that do not depend on the step, with their words in `lang`."""
    plots = [p for p in OTHER_PLOTS if p.from_trace and p.group != "analysis"]
    return view_figures(plots, trace, layer=layer, kind=kind, presentation=presentation, lang=lang)


def comparison_figures(presentation: bool, lang: str = "en") -> dict:
    """Heatmap and similarity matrix of the learned and the sinusoidal tables (None where a kind is missing)."""
    plots = [p for p in PLOTS if not p.from_trace]
    return view_figures(plots, None, presentation=presentation, lang=lang)


def analysis_figures(trace: Trace, layer: int, presentation: bool, lang: str = "en") -> dict:
    """What the heads do, rollout beside raw attention, words instead of pieces, and the beam tree, in `lang`."""
    plots = [p for p in PLOTS if p.group == "analysis"]
    return view_figures(plots, trace, layer=layer, presentation=presentation, lang=lang)


def clicked_on(value: str, *plot_ids: str) -> str | None:
    """What a click written into the click box said, if it was on one of `plot_ids` ('plot-beam 7 (1732…)' →
    '7 (1732…)'); None for a click on another plot."""
    plot_id, _, said = (value or "").partition(" ")
    return said if plot_id in plot_ids and said else None


def parse_click(value: str, fields: int) -> list[str]:
    """The first `fields` words of a click box's value ('cross 1 2 (1732…)' → ['cross', '1', '2'])."""
    parts = (value or "").split()
    if len(parts) < fields:
        raise UserError("err-click", value=value)
    return parts[:fields]


def beam_node_info(trace: Trace, node: int, step: int, lang: str = "en") -> str:
    """Markdown: the clicked node of the beam tree and the tokens the beam had written up to it, in `lang`."""
    return i18n.text(
        "beam-node",
        lang,
        node=node,
        step=step,
        tokens=" ".join(md(piece_label(x)) for x in trace.target_tokens[: step + 1]),
    )


def beam_node_trace(session: Session, node: int) -> tuple[Trace, int]:
    """The attention at a beam-tree node: force the tokens that lead to it; returns (trace, its step)."""
    from ..lab.analysis import beam_node_prefix

    prefix, step = beam_node_prefix(session.trace.beam_tree, int(node))
    translator = get_translator(session.model)
    trace = translator.trace(
        session.trace.source_text,
        options=DecodeOptions(**session.options),
        strategy="greedy",
        max_new_tokens=len(prefix),
        forced_prefix=prefix,
    )
    return trace, step
