"""The model card (README.md) of a checkpoint folder, written from what training and evaluation recorded.

Its front matter is huggingface_hub's ModelCardData: what the Hub reads (language, licence, library, the
`translation` pipeline, the training data) and a model-index of EvalResults, the same scores the card's tables
print, so that the Hub shows them beside the model.
"""

from __future__ import annotations

import json
from pathlib import Path

from huggingface_hub import EvalResult, ModelCard, ModelCardData

from .files import replace_file
from .hub import LANGUAGES, LIBRARY, PIPELINE, TAGS, load_config

CURVE_NAME = "learning_curve.svg"
ATTRIBUTION_NAME = "ATTRIBUTION.md"  # the corpus's credits, copied beside weights trained on it
# The training data by ids that say what they are (neither is a Hub dataset: both are read from Debian packages).
DING_DATA_ID, CORPUS_DATA_ID = "ding-trans-de-en", "debian-programs-de-translations"
EVERYDAY_NAME = "auf-deutsch 0.1.1"  # the everyday set's package and version (corpus/everyday.py)
TASK = dict(task_type=PIPELINE, task_name="English → German translation")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []


def learning_curve_svg(metrics: list[dict], width: int = 640, height: int = 360) -> str:
    """Training and validation loss against steps, as a self-contained SVG with labelled axes."""
    left, right, top, bottom = 60, 20, 30, 50
    steps = [m["step"] for m in metrics] or [0, 1]
    losses = [m[k] for m in metrics for k in ("train_loss", "valid_loss") if m.get(k) == m.get(k)] or [0, 1]
    x0, x1 = 0, max(steps)
    y0, y1 = min(losses) * 0.95, max(losses) * 1.05

    def xy(step: float, loss: float) -> str:
        x = left + (step - x0) / max(x1 - x0, 1) * (width - left - right)
        y = top + (y1 - loss) / max(y1 - y0, 1e-9) * (height - top - bottom)
        return f"{x:.1f},{y:.1f}"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">Learning curve</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
        f'<text x="{width / 2}" y="{height - 12}" text-anchor="middle">training step</text>',
        f'<text transform="translate(16,{height / 2}) rotate(-90)" text-anchor="middle">loss (nats per token)</text>',
    ]
    for i in range(5):
        loss = y0 + (y1 - y0) * i / 4
        step = x0 + (x1 - x0) * i / 4
        y = xy(x0, loss).split(",")[1]
        x = xy(step, y0).split(",")[0]
        parts.append(f'<text x="{left - 6}" y="{y}" text-anchor="end" dominant-baseline="middle">{loss:.2f}</text>')
        parts.append(f'<text x="{x}" y="{height - bottom + 16}" text-anchor="middle">{int(step)}</text>')
    # Okabe–Ito colours: blue and vermillion stay distinct for colour-blind readers.
    for key, colour, label, dy in (
        ("train_loss", "#0072B2", "training (label-smoothed)", 0),
        ("valid_loss", "#D55E00", "validation", 16),
    ):
        points = " ".join(xy(m["step"], m[key]) for m in metrics if m.get(key) == m.get(key))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        parts.append(f'<text x="{width - right - 170}" y="{top + 14 + dy}" fill="{colour}">— {label}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def write_model_card(folder: str | Path) -> Path:
    """README.md for the checkpoint: architecture, size, data, training, scores, examples, limits."""
    folder = Path(folder)
    config = load_config(folder)
    training = json.loads((folder / "training.json").read_text()) if (folder / "training.json").is_file() else {}
    evaluation = json.loads((folder / "evaluation.json").read_text()) if (folder / "evaluation.json").is_file() else {}
    metrics = read_jsonl(folder / "metrics.jsonl")
    if metrics:
        curve = learning_curve_svg(metrics)
        replace_file(folder / CURVE_NAME, lambda tmp: tmp.write_text(curve))
    from .model import load_transformer

    n_params = load_transformer(folder).num_parameters()
    licences = corpus_licences(folder)
    lines = [
        *architecture_lines(folder.name, config, n_params, licences),
        *training_lines(training),
        *([f"![learning curve]({CURVE_NAME})", ""] if metrics else []),
        *evaluation_lines(evaluation),
        *limitation_lines((folder / ATTRIBUTION_NAME).is_file()),
        *credits_lines(folder),
    ]
    front = card_data(folder.name, licences, evaluation).to_yaml()
    card = ModelCard(f"---\n{front}\n---\n" + "\n".join(lines) + "\n")
    path = folder / "README.md"
    replace_file(path, lambda tmp: tmp.write_text(str(card), encoding="utf-8"))  # the app may be showing it
    return path


def card_data(name: str, licences: list[str], evaluation: dict) -> ModelCardData:
    """The card's front matter: `licences` (the corpus's, Ding's first) make it `other`, named in the card's Data
    section; Ding's alone is its own licence. The model-index holds eval_results(evaluation)."""
    results = eval_results(evaluation)
    return ModelCardData(
        language=list(LANGUAGES),
        **(dict(LICENCE_OTHER) if licences else dict(license="gpl-2.0")),
        library_name=LIBRARY,
        pipeline_tag=PIPELINE,
        tags=list(TAGS),
        datasets=[DING_DATA_ID, *([CORPUS_DATA_ID] if licences else [])],
        model_name=f"transformer-viz {name}",
        eval_results=results or None,
    )


def eval_results(evaluation: dict) -> list[EvalResult]:
    """The scores evaluation.json recorded, as the Hub's model-index holds them: BLEU and chrF (sacreBLEU) of greedy
    and beam search on the held-out Ding test, and BLEU, chrF and exact matches of greedy decoding on the everyday
    set; self-reported, so `verified: false`."""
    results = []
    for decoding in ("greedy", "beam") if "greedy" in evaluation else ():
        if scores := evaluation.get(decoding):
            n = evaluation["greedy"]["sentences"]
            ding = dict(dataset_type="ding-trans-de-en-test", dataset_split="test")
            ding["dataset_name"] = f"Ding EN–DE dictionary sentences, {n:,} held out from training"
            beams = {"beam_size": scores["beam_size"]} if decoding == "beam" else {}
            how = f"beam search, {scores['beam_size']} beams" if beams else "greedy"
            results += metric_results(ding, scores, METRICS[:2], how, dict(decoding=decoding, **beams))
    if everyday := evaluation.get("everyday"):
        phrases = dict(dataset_type="auf-deutsch-everyday-phrases")
        phrases["dataset_name"] = f"{EVERYDAY_NAME}: {everyday['sentences']:,} everyday phrases, never trained on"
        results += metric_results(phrases, everyday, METRICS, "greedy", dict(decoding="greedy"))
    return results


# (the metric's id, its key in evaluation.json, its name) of the scores a card's tables print
METRICS = [("sacrebleu", "bleu", "BLEU"), ("chrf", "chrf", "chrF"), ("exact_match", "exact", "exact match, %")]


def metric_results(dataset: dict, scores: dict, metrics: list, how: str, args: dict) -> list[EvalResult]:
    """One EvalResult per metric of `metrics` that `scores` holds, on `dataset`, named with how the model decoded."""
    return [
        EvalResult(
            **TASK,
            **dataset,
            metric_type=metric,
            metric_value=scores[key],
            metric_name=f"{name} ({how})",
            metric_args=args,
            verified=False,
        )
        for metric, key, name in metrics
        if key in scores
    ]


def architecture_lines(name: str, config, n_params: int, licences: list[str] = ()) -> list[str]:
    """The card's title, architecture and data sections; `licences`: the corpus sources' besides Ding's, for weights
    trained on the Debian corpus too."""
    arch = "pre-LN blocks with a final LayerNorm" if config.norm_first else "post-LN blocks"
    pos = "sinusoidal positional encodings" if config.positional == "sinusoidal" else "learned positional embeddings"
    return [
        f"# transformer-viz checkpoint `{name}` (preset `{config.name}`)",
        "",
        f"An English→German encoder–decoder Transformer trained from scratch for the transformer-viz app: {arch}, {pos}.",
        "",
        "## Architecture",
        "",
        f"- {config.n_layers} encoder + {config.n_layers} decoder layers, d_model {config.d_model}, {config.n_heads} heads "
        f"(d_head {config.d_head}), d_ff {config.d_ff}, dropout {config.dropout}, max_len {config.max_len}",
        f"- joint SentencePiece vocabulary of {config.src_vocab_size} pieces; shared source/target embeddings: "
        f"{config.share_embeddings}; output projection tied to the embedding: {config.tie_embeddings}",
        f"- embeddings ×√d: {config.scale_embeddings}; zero at padding: {config.zero_pad_embeddings}; attention biases: {config.attn_bias}",
        f"- **{n_params:,} parameters**",
        "",
        "## Data",
        "",
        *(corpus_data(licences) if licences else DING_ONLY),
        "",
    ]


DING = (
    "English–German pairs extracted from the Ding dictionary (Frank Richter, TU Chemnitz, https://dict.tu-chemnitz.de/), "
    "as packaged by Debian (`trans-de-en`), licence **GPL-2.0-or-later**"
)
DING_SPLIT = "Example sentences, multi-word phrases and single words; the test split holds sentences whose English side never occurs in training."
DING_ONLY = [f"{DING}; hence these weights are offered under the same licence. {DING_SPLIT}"]
# Hugging Face's front matter for a licence of its own: the training data's licences, listed in the card
LICENCE_OTHER = dict(license="other", license_name="training-data-licences", license_link="README.md#data")


def corpus_data(licences: list[str]) -> list[str]:
    """The Data section of weights trained on Ding and the Debian corpus: both named, with every licence."""
    listed = ", ".join(f"**{name}**" for name in licences)
    return [
        f"{DING}, and the German translations that Debian ships with the programs credited under *Corpus attribution* "
        f"below, under their own licences ({listed}). The weights are learnt from all of them: their terms are "
        "those of these licences together, and no other licence is claimed for them. "
        f"{DING_SPLIT} Each corpus source keeps a held-out slice, never trained on (scores below).",
    ]


def corpus_licences(folder: Path) -> list[str]:
    """The licences in the corpus attribution's table beside the weights (its licence column), each once."""
    path = folder / ATTRIBUTION_NAME
    if not path.is_file():
        return []
    licences = ["GPL-2.0-or-later"]  # Ding's
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].replace(",", "").isdigit() and cells[2] not in licences:
            licences.append(cells[2])
    return licences


def training_lines(training: dict) -> list[str]:
    """The card's training section from training.json: the commands, where it stopped, the validation loss."""
    lines = ["## Training", ""]
    if not training:
        return lines
    last = training.get("last", {})
    runs = training.get("runs") or []
    return [
        *lines,
        f"- command: `{training.get('command', '')}`",
        *[
            f"  - run {i}: `{run['command']}` → step {run['step']}, {run['minutes']} minutes in all"
            + (f" (this run on {run['processes']} process(es), device {run['device']})" if "device" in run else "")
            for i, run in enumerate(runs, 1)
            if len(runs) > 1
        ],
        f"- stopped at step {last.get('step')} (epoch {last.get('epoch')}), {last.get('tokens', 0):,} target tokens seen, "
        f"{last.get('minutes')} minutes of training{' in all; the last run' if len(runs) > 1 else ''} "
        f"on {training.get('processes')} process(es), device {training.get('device')}, "
        f"{training.get('threads')} CPU threads of {training.get('cpu_count')} ({training.get('cpu')}), torch {training.get('torch')}",
        f"- final validation loss {last.get('valid_loss')} (perplexity {last.get('valid_ppl')})",
        *(
            [
                f"- the mean of the last {last['averaged']} validations' weights scored {last['averaged_valid_loss']} "
                "(checkpoint averaging); the weights kept are those with the lowest validation loss"
            ]
            if "averaged" in last
            else []
        ),
        "",
    ]


def evaluation_lines(evaluation: dict) -> list[str]:
    """The card's scores (greedy and beam, sacreBLEU) and example translations from evaluation.json."""
    lines = ["## Evaluation (held-out test split, sacreBLEU)", ""]
    if not evaluation:
        return [*lines, "Not evaluated yet: run `python -m transformer_viz evaluate --model <this folder>`.", ""]
    g, b = evaluation["greedy"], evaluation["beam"]
    return [
        *lines,
        "| decoding | BLEU | chrF | sentences |",
        "|---|---|---|---|",
        f"| greedy | {g['bleu']} | {g['chrf']} | {g['sentences']} |",
        f"| beam {b['beam_size']} | {b['bleu']} | {b['chrf']} | {b['sentences']} |",
        "",
        *held_out_lines(evaluation),
        "## Examples (our own sentences, greedy decoding)",
        "",
        "| English | model output |",
        "|---|---|",
        *[f"| {e['source']} | {e['greedy']} |" for e in evaluation.get("examples", [])],
        "",
    ]


def credits_lines(folder: Path) -> list[str]:
    """The corpus's attribution, which training copies beside weights trained on it (ATTRIBUTION.md)."""
    path = folder / ATTRIBUTION_NAME
    return ["", *path.read_text(encoding="utf-8").splitlines()] if path.is_file() else []


def held_out_lines(evaluation: dict) -> list[str]:
    """The everyday learner phrases (never trained on) and the held-out slice of each corpus source, greedy."""
    lines = []
    if "everyday" in evaluation:
        e = evaluation["everyday"]
        lines += [
            f"## Everyday phrases ({EVERYDAY_NAME}, never trained on, greedy)",
            "",
            "| BLEU | chrF | exact | phrases |",
            "|---|---|---|---|",
            f"| {e['bleu']} | {e['chrf']} | {e.get('exact', '–')}% | {e['sentences']} |",
            "",
        ]
    sources = evaluation.get("corpus_sources") or {}
    if sources:
        lines += ["## Each corpus source's held-out pairs (greedy)", "", "| source | BLEU | chrF | pairs |"]
        lines += ["|---|---|---|---|"]
        lines += [f"| {name} | {r['bleu']} | {r['chrf']} | {r['sentences']} |" for name, r in sorted(sources.items())]
        lines.append("")
    return lines


def limitation_lines(with_corpus: bool) -> list[str]:
    """What the model is bad at; its data named as it was trained."""
    return [*LIMITATIONS[:2], CORPUS_DATA if with_corpus else DING_DATA, *LIMITATIONS[2:]]


DING_DATA = "- Trained only on a dictionary's example sentences, phrases and words: short everyday sentences work best; long, technical or informal text degrades quickly."
CORPUS_DATA = "- Trained on a dictionary's example sentences and on the German translations of free programs (games' dialogue, manuals, package descriptions): short everyday sentences work best; the manuals' register shows, and long or informal text degrades quickly."
LIMITATIONS = [
    "## Known limitations",
    "",
    "- A small model on a small corpus: expect wrong words, dropped clauses and repetitions; it is a teaching model, not a translator.",
    "- Input longer than the model's max_len tokens is cut.",
]
