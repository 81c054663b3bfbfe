"""The model card: what a teacher needs first (how good the model is, its data, its mistakes), then its
architecture, parameter count and every hook point's shape, read off the model itself."""

from __future__ import annotations

import functools

from ..translator import Translator
from . import models
from .common import EXAMPLES
from .markdown import md

N_EXAMPLES = 3  # translations shown on the card


def checkpoint_record(translator: Translator, name: str) -> dict:
    """`name` (evaluation.json, training.json) of the bundled checkpoint the model was loaded from; {} if none."""
    return models.read_record(translator.name, name) or {}


def scores(evaluation: dict) -> str:
    """The test scores evaluation.json recorded, in a sentence."""
    greedy, beam = evaluation.get("greedy"), evaluation.get("beam")
    if not greedy:
        return "No test scores were recorded for this model."
    text = f"**Test scores** on {evaluation.get('test_pairs', greedy.get('sentences', '?')):,} held-out sentence pairs "
    text += f"(sacreBLEU, 0–100, higher is better): BLEU **{greedy['bleu']}** greedy"
    if beam:
        text += f", {beam['bleu']} with beam search ({beam.get('beam_size', '?')} beams)"
    text += f"; chrF {greedy['chrf']} greedy" + (f", {beam['chrf']} beam." if beam else ".")
    if everyday := evaluation.get("everyday"):
        text += (
            f" On {everyday['sentences']:,} everyday learner phrases it never saw (auf-deutsch): chrF "
            f"**{everyday['chrf']}**, BLEU {everyday['bleu']}, {everyday.get('exact', '?')}% word for word right."
        )
    return text


def data(training: dict) -> str:
    """What the model was trained on and for how long, from training.json."""
    options, last = training.get("options", {}), training.get("last", {})
    if not last:
        return "No training record came with this model."
    extra = f", plus the pairs in `{md(options['extra_tsv'])}`" if options.get("extra_tsv") else ""
    if options.get("debian_corpus"):
        sources = options.get("debian_sources") or "every source"
        extra += (
            f", and the German translations of free programs that Debian ships ({md(sources.replace(',', ', '))}; "
            "their credits and licences are on the checkpoint's card)"
        )
    words = options.get("word_pairs", 0)
    device = {"cpu": "a CPU", "cuda": "a GPU", "mps": "an Apple GPU"}.get(
        training.get("device"), training.get("device")
    )
    return (
        "**Data**: English–German pairs from the Ding dictionary (Debian's `trans-de-en`): example sentences, "
        f"phrases and {'all' if words < 0 else f'{words:,}'} single-word pairs{extra}; the test sentences never occur "
        f"in training. It saw {last.get('tokens', 0):,} target tokens in {last.get('epoch', '?')} epochs "
        f"({last.get('step', 0):,} steps, {float(last.get('minutes', 0)):.0f} minutes of training on {device}); "
        f"its last validation loss was {last.get('valid_loss')} (perplexity {last.get('valid_ppl')})."
    )


def examples(translator: Translator, evaluation: dict) -> str:
    """A few of its translations: held-out test sentences beside their reference, or curated examples, live."""
    samples = evaluation.get("samples", [])[:N_EXAMPLES]
    if samples:
        rows = "\n".join(f"| {md(s['source'])} | {md(s['reference'])} | {md(s['greedy'])} |" for s in samples)
        head = "Some of its translations of test sentences, beside a person's translation:"
        return f"{head}\n\n| English | reference | this model |\n|---|---|---|\n{rows}"
    sentences = EXAMPLES[:N_EXAMPLES]
    rows = "\n".join(f"| {md(s)} | {md(translator.translate(s))} |" for s in sentences)
    return f"Its translations of three example sentences:\n\n| English | this model |\n|---|---|\n{rows}"


def lead(translator: Translator) -> str:
    """What a teacher needs before the architecture: how good the model is, its data and some of its output."""
    evaluation, training = (
        checkpoint_record(translator, "evaluation.json"),
        checkpoint_record(translator, "training.json"),
    )
    warning = (
        f"**A small model that is often wrong.** It has {translator.n_parameters:,} parameters and was trained from "
        "scratch on one computer: it gets many short everyday sentences right and many others wrong. Its attention "
        "shows what this model does, not how translation must be done."
    )
    return "\n\n".join([warning, scores(evaluation), data(training), examples(translator, evaluation)])


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
    """Markdown: how good the model is, its data and some of its translations (lead()); then its architecture,
    parameter count and every hook point with its shape.

    Cached per (shared, read-only) model: the shapes come from two dry runs and the examples may be translated
    live, which need not repeat on every translation that shows the card.
    """
    cfg = translator.config
    rows = "\n".join(f"| `{name}` | {shape} |" for name, shape in hook_shapes(translator).items())
    arch = (
        "pre-LN (norm → sublayer → residual) + final LayerNorm"
        if cfg.norm_first
        else "post-LN (sublayer → residual → norm)"
    )
    return (
        f"### {md(translator.name)} (preset `{cfg.name}`)\n\n{lead(translator)}\n\n"
        "#### Architecture\n\n"
        f"- **{translator.n_parameters:,} parameters**; {cfg.n_layers} encoder + {cfg.n_layers} decoder layers; "
        f"D = {cfg.d_model}, H = {cfg.n_heads} heads of Dh = {cfg.d_head}, FFN width {cfg.d_ff}\n"
        f"- blocks: {arch}; positions: {cfg.positional}; vocabulary {cfg.src_vocab_size} SentencePiece pieces\n\n"
        f"Hook points (B batch, S source length, T target length):\n\n| hook point | shape |\n|---|---|\n{rows}\n"
    )
