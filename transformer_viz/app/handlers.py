"""The app's event handlers as plain functions: values in, values out, no gradio.

ui.py only lays out components and wires these; tests call them directly. The labs' handlers
("What if?" and the seed bugs) are in handlers_lab.py.
A visitor's recorded run is a `Session` (kept in gr.State); stepping and switching
views redraw from it and never run the model again.
"""

from __future__ import annotations

import functools
import html
import math
import os
import re
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlencode

from .. import figures, i18n
from ..decoding import STRATEGIES, DecodeOptions
from ..errors import UserError
from ..figures.words import t as figure_text
from ..hub.hub import CHECKPOINTS_DIR, DEFAULT_CHECKPOINT
from ..trace import Trace
from ..translator import Translator, load_model

HUB_MODEL_ENV = "TRANSFORMER_VIZ_HUB_MODEL"  # a Hub repo id to offer beside the bundled checkpoints
KINDS = {"cross": "cross", "decoder self": "decoder_self", "encoder self": "encoder_self"}
_models: dict[str, Translator] = {}
_models_lock = threading.Lock()
# Markdown's inline punctuation (CommonMark lets any ASCII punctuation be backslash-escaped).
_MARKDOWN_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md(text) -> str:
    """`text` shown literally inside Markdown: HTML escaped (`</s>` is no tag), Markdown punctuation and `$` neutral.

    Tokens and model names are data: a piece `**` or a Hub name `my_model_v2` must not turn into emphasis.
    """
    return _MARKDOWN_PUNCT.sub(r"\\\1", html.escape(str(text), quote=False)).replace("$", "&#36;")


def available_models(folder: Path = CHECKPOINTS_DIR) -> list[str]:
    """Every checkpoint folder bundled in checkpoints/ (default first), plus the Hub model named in the environment."""
    names = sorted(p.name for p in folder.iterdir() if (p / "config.json").is_file()) if folder.is_dir() else []
    names.sort(key=lambda n: n != DEFAULT_CHECKPOINT)
    if os.environ.get(HUB_MODEL_ENV):
        names.append(os.environ[HUB_MODEL_ENV])
    return names


def get_translator(name: str) -> Translator:
    """Each model is loaded once per process and shared, read-only, by every visitor."""
    with _models_lock:
        if name not in _models:
            _models[name] = load_model(name)
        return _models[name]


def register_translator(name: str, translator: Translator) -> None:
    """Make an already loaded model available under `name` (tests, or a model built in code)."""
    with _models_lock:
        _models[name] = translator


@dataclass
class Session:
    """One visitor's state: the trace on screen, the original before any branch, and the inputs that made it."""

    trace: Trace
    model: str
    options: dict
    original: Trace | None = None  # set while looking at a branch
    branches: list[tuple[int, str, str]] = field(default_factory=list)  # (step, the model's piece, the forced piece)


def decode_options(strategy: str, beam_size, temperature, top_k, top_p, seed, max_new_tokens) -> DecodeOptions:
    """UI values → validated DecodeOptions (numbers from sliders may arrive as floats; a cleared seed box as None)."""
    return DecodeOptions(
        strategy=str(strategy),
        beam_size=int(beam_size),
        temperature=float(temperature),
        top_k=int(top_k),
        top_p=float(top_p),
        seed=0 if seed is None else int(seed),
        max_new_tokens=int(max_new_tokens),
    ).validate()


TRACE_FILE_AGE_S = 3600  # a download link older than this may be gone; Gradio keeps its own copy as long


@functools.cache
def trace_folder() -> Path:
    """One folder per server process for the traces offered as downloads."""
    return Path(tempfile.mkdtemp(prefix="transformer-viz-traces-"))


def trace_file(trace: Trace, max_age_s: float = TRACE_FILE_AGE_S) -> Path:
    """Write `trace` as JSON for the download button; delete this process's trace files older than `max_age_s`.

    Every translation writes one (~0.1–0.5 MB): without the sweep a public server's disk would only fill.
    """
    folder = trace_folder()
    cutoff = time.time() - max_age_s
    for old in folder.glob("trace-*.json"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except FileNotFoundError:  # another request swept it first
            pass
    path = folder / f"trace-{uuid.uuid4().hex}.json"
    path.write_text(trace.to_json(), encoding="utf-8")
    return path


def translate(sentence: str, model: str, options: DecodeOptions) -> Session:
    """Run the model once with the tracer on and keep everything the views need."""
    translator = get_translator(model)
    trace = translator.trace(sentence, options=options)
    return Session(trace=trace, model=model, options=options.__dict__.copy())


def branch(session: Session, step: int, token_id: int) -> Session:
    """Force `token_id` at `step` (keeping the tokens before it) and let the model continue."""
    trace = session.trace
    if not 0 <= step < len(trace.target_ids):
        raise UserError("err-step-outside", step=step, last=len(trace.target_ids) - 1)
    prefix = trace.target_ids[:step] + [int(token_id)]
    options = DecodeOptions(**session.options)
    translator = get_translator(session.model)
    new = translator.trace(
        trace.source_text,
        options=options,
        max_new_tokens=max(options.max_new_tokens, len(prefix)),
        forced_prefix=prefix,
    )
    label = (step, trace.target_tokens[step], translator.tokenizer.id_to_piece(int(token_id)))
    # a branch at an earlier step decodes the later ones afresh: their forced tokens are gone
    kept = [b for b in session.branches if b[0] < step]
    return replace(session, trace=new, original=session.original or session.trace, branches=kept + [label])


def notices_info(trace: Trace, lang: str = "en") -> str:
    """Markdown: the trace's notices (input cut, intervention, …) as a list in `lang` ('' when there is none)."""
    return "\n".join(f"- {i18n.message(n, lang)}" for n in trace.notices)


def branch_info(session: Session, lang: str = "en") -> str:
    """Markdown naming every forced token of the session's branch, in `lang` ('' when there is none)."""
    if not session.branches:
        return ""
    # Escaped: `</s>` and `<unk>` would vanish as HTML tags.
    steps = [i18n.text("branch-step", lang, step=t, old=md(old), new=md(new)) for t, old, new in session.branches]
    return i18n.text("branch-info", lang, branches="; ".join(steps))


def unbranch(session: Session) -> Session:
    """Back to the translation before any forced token."""
    if session.original is None:
        return session
    return replace(session, trace=session.original, original=None, branches=[])


def tokens_table(trace: Trace) -> list[list]:
    """Rows (side, position, piece, id) for the tokenisation table."""
    rows = [["source", i, piece, ident] for i, (piece, ident) in enumerate(zip(trace.source_tokens, trace.source_ids))]
    rows += [["target", i, piece, ident] for i, (piece, ident) in enumerate(zip(trace.target_tokens, trace.target_ids))]
    return rows


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
        token=md(s["token"]),
        forced=forced,
        prob=s["prob"],
        entropy=s["entropy"],
    )


def alternatives(trace: Trace, step: int) -> list[tuple[str, int]]:
    """The top-k candidates at `step` as (label, id) choices for forcing a different token."""
    return [(f"{alt['token']}  (p = {alt['prob']:.2f})", alt["id"]) for alt in trace.steps[step]["top_k"]]


def step_figures(trace: Trace, step: int, layer: int, head, presentation: bool, lang: str = "en") -> dict:
    """The views that change with the step: the query row being produced is highlighted; words in `lang`."""
    head = "mean" if head in (None, "mean", "all") else int(head)
    with figures.language(lang):
        return {
            "plot-topk": figures.topk_bar(trace, step, presentation=presentation),
            "plot-cross": figures.attention_grid(trace, "cross", layer, step=step, presentation=presentation),
            "plot-alignment": figures.alignment(trace, layer, head=head, step=step, presentation=presentation),
            "plot-dec-self": figures.attention_grid(trace, "decoder_self", layer, step=step, presentation=presentation),
            "plot-masks": figures.decoder_causal_mask(trace, step, presentation=presentation),
            "plot-pipeline": figures.score_pipeline(
                trace, layer, 0 if head == "mean" else head, step=step, presentation=presentation
            ),
        }


def static_figures(trace: Trace, layer: int, kind: str, presentation: bool, lang: str = "en") -> dict:
    """The views that do not depend on the step, with their words in `lang`."""
    pe = trace.positional_encoding
    with figures.language(lang):
        return {
            "plot-enc-self": figures.attention_grid(trace, "encoder_self", layer, presentation=presentation),
            "plot-overview": figures.overview(trace, KINDS.get(kind, kind), presentation=presentation),
            "plot-pe": figures.positional_heatmap(pe, tokens=trace.source_tokens, presentation=presentation),
            "plot-pe-curves": figures.positional_curves(pe, presentation=presentation),
            "plot-pe-similarity": figures.position_similarity(pe, presentation=presentation),
            "plot-enc-mask": figures.encoder_padding_mask(
                trace, partner_len=len(trace.source_ids) + 3, presentation=presentation
            ),
            "plot-cross-mask": figures.cross_mask(trace, presentation=presentation),
        }


def learned_and_sinusoidal(n_positions: int = 64) -> dict[str, tuple[str, object]]:
    """First positions of a bundled model's learned table and of the sinusoidal table, for side-by-side views.

    The sinusoidal table comes from a bundled sinusoidal model (or the formula, at the learned model's width).
    Titles are in the language of the surrounding figures.language() block (English outside one).
    """
    tables: dict[str, tuple[str, object]] = {}
    for name in available_models():
        if not (CHECKPOINTS_DIR / name).is_dir():
            continue  # only bundled models: never download just for this view
        translator = get_translator(name)
        kind = translator.config.positional
        if kind in tables:
            continue
        pos = translator.model.encoder.pos
        weight = pos.table if kind == "sinusoidal" else pos.table.weight
        title = figure_text("positions-of", kind=figure_text(f"positional-{kind}"), name=name, n=n_positions)
        tables[kind] = (title, weight[:n_positions].detach().cpu().numpy())
    if "learned" in tables and "sinusoidal" not in tables:
        from ..model.transformer import SinusoidalPositionalEncoding

        width = tables["learned"][1].shape[1]
        config = replace(get_translator(next(iter(available_models()))).config, d_model=width, positional="sinusoidal")
        tables["sinusoidal"] = (
            figure_text("positions-formula", width=width),
            SinusoidalPositionalEncoding(config).table[:n_positions].numpy(),
        )
    return tables


def comparison_figures(presentation: bool, lang: str = "en") -> dict:
    """Heatmap and similarity matrix of the learned and the sinusoidal tables (None where a kind is missing)."""
    out = {}
    with figures.language(lang):
        tables = learned_and_sinusoidal()
        for kind in ("sinusoidal", "learned"):
            title, table = tables.get(kind, (None, None))
            out[f"plot-pe-{kind}"] = (
                None if table is None else figures.positional_heatmap(table, title=title, presentation=presentation)
            )
            out[f"plot-pe-{kind}-similarity"] = (
                None
                if table is None
                else figures.position_similarity(
                    table, title=figure_text("similarity-of", title=title), presentation=presentation
                )
            )
    return out


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


# The decoding sliders' ranges (ui_layout.py builds the sliders from these): a shared link is held to them too.
SLIDER_RANGES = dict(beam=(1, 8), max_len=(1, 128), temperature=(0.05, 2.0), top_k=(0, 50), top_p=(0.05, 1.0))


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


def hook_shapes(translator: Translator) -> dict[str, str]:
    """Every hook point's shape in letters, read off two dry runs: (B, S, T) = (1, 5, 3) and (2, 6, 4)."""
    import torch

    from ..model.hooks import Tracer

    cfg, model = translator.config, translator.model
    runs = []
    for B, S, T in ((1, 5, 3), (2, 6, 4)):
        src = torch.full((B, S), 5, device=model.device)
        tgt = torch.full((B, T), 5, device=model.device)
        with torch.no_grad(), Tracer(model) as tracer:
            model(src, tgt)
        runs.append({name: tuple(t.shape) for name, t in tracer.cache.items()})

    def letter(i: int, x: int, y: int, rank: int) -> str:
        varying = {(1, 2): "B", (5, 6): "S", (3, 4): "T"}
        if (x, y) in varying:
            return varying[(x, y)]
        if rank == 4 and i == 1 and x == cfg.n_heads:
            return "H"
        if rank == 4 and i == 3 and x == cfg.d_head:
            return "Dh"
        return {cfg.d_model: "D", cfg.tgt_vocab_size: "V"}.get(x, str(x))

    return {
        name: "(" + ", ".join(letter(i, x, y, len(a)) for i, (x, y) in enumerate(zip(a, runs[1][name]))) + ")"
        for name, a in runs[0].items()
    }


@functools.lru_cache(maxsize=16)
def model_card(translator: Translator) -> str:
    """Markdown: architecture, parameter count and every hook point with its shape.

    Cached per (shared, read-only) model: the shapes come from two dry runs, which need not
    repeat on every translation that shows the card.
    """
    cfg = translator.config
    rows = "\n".join(f"| `{name}` | {shape} |" for name, shape in hook_shapes(translator).items())
    arch = (
        "pre-LN (norm → sublayer → residual) + final LayerNorm"
        if cfg.norm_first
        else "post-LN (sublayer → residual → norm)"
    )
    return (
        f"### {md(translator.name)} (preset `{cfg.name}`)\n\n"
        f"- **{translator.n_parameters:,} parameters**; {cfg.n_layers} encoder + {cfg.n_layers} decoder layers; "
        f"D = {cfg.d_model}, H = {cfg.n_heads} heads of Dh = {cfg.d_head}, FFN width {cfg.d_ff}\n"
        f"- blocks: {arch}; positions: {cfg.positional}; vocabulary {cfg.src_vocab_size} SentencePiece pieces\n\n"
        f"Hook points (B batch, S source length, T target length):\n\n| hook point | shape |\n|---|---|\n{rows}\n"
    )


def analysis_figures(trace: Trace, layer: int, presentation: bool, lang: str = "en") -> dict:
    """What the heads do, rollout beside raw attention, words instead of pieces, and the beam tree, in `lang`."""
    with figures.language(lang):
        return {
            "plot-heads-cross": figures.head_summary_figure(trace, "cross", presentation=presentation),
            "plot-heads-dec-self": figures.head_summary_figure(trace, "decoder_self", presentation=presentation),
            "plot-heads-enc-self": figures.head_summary_figure(trace, "encoder_self", presentation=presentation),
            "plot-rollout": figures.rollout_figure(trace, layer=layer, presentation=presentation),
            "plot-rollout-words": figures.rollout_figure(trace, layer=layer, presentation=presentation, words=True),
            "plot-words-cross": figures.word_attention_figure(trace, "cross", layer, presentation=presentation),
            "plot-beam": figures.beam_tree_figure(trace, presentation=presentation),
        }


def parse_click(value: str, fields: int) -> list[str]:
    """The first `fields` words of a click box's value ('cross 1 2 (1732…)' → ['cross', '1', '2'])."""
    parts = (value or "").split()
    if len(parts) < fields:
        raise UserError("err-click", value=value)
    return parts[:fields]


def beam_node_info(trace: Trace, node: int, step: int, lang: str = "en") -> str:
    """Markdown: the clicked node of the beam tree and the tokens the beam had written up to it, in `lang`."""
    return i18n.text(
        "beam-node", lang, node=node, step=step, tokens=" ".join(md(x) for x in trace.target_tokens[: step + 1])
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
