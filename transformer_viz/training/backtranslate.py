"""Back-translation (Sennrich, Haddow and Birch, 2016): German text without English becomes training pairs.

A model trained German → English (``train --direction de-en``: the same pairs with their sides swapped)
translates German sentences that have no English (``<source>.de.txt`` of a built corpus) into English. Each
(machine English, human German) pair is written as ``english<TAB>german<TAB>synthetic``, which ``train
--extra-tsv`` reads: the German side, the one an English → German model learns to write, is real text, and
the third column lets a run or a recipe weigh the synthetic pairs (``--synthetic-pairs``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

from tqdm.auto import tqdm

from ..corpus.pairs import SYNTHETIC
from ..decoding import DecodeOptions
from ..hub.hub import resolve_checkpoint
from ..translator import Translator, clean_text
from .records import TRAINING_NAME

log = logging.getLogger(__name__)
BATCH = 64  # sentences translated as one padded batch


def trained_direction(folder: Path) -> str:
    """The direction a checkpoint was trained in, from its training record ("en-de" when it does not say)."""
    record = folder / TRAINING_NAME
    options = json.loads(record.read_text(encoding="utf-8")).get("options", {}) if record.is_file() else {}
    return options.get("direction", "en-de")


def read_german(path: str | Path) -> list[str]:
    """The sentences of a German text file, one a line (blank lines and # comments skipped)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"German text not found: {path} (one sentence a line, e.g. a corpus's <source>.de.txt)")
    lines = (" ".join(line.split()) for line in path.read_text(encoding="utf-8-sig").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def backtranslate(
    model: str | Path,
    german_file: str | Path,
    out: str | Path,
    options: DecodeOptions | None = None,
    device: str = "auto",
    limit: int = 0,
) -> dict:
    """Translate a German file into English with a DE → EN model; write the synthetic pairs; return the counts.

    A sentence longer than the model reads is skipped rather than cut: the English of half a sentence
    would be paired with the whole of it.
    """
    folder = resolve_checkpoint(model)
    direction = trained_direction(folder)
    if direction != "de-en":
        raise ValueError(
            f"{model} was trained {direction} ({TRAINING_NAME}); back-translation needs a German → English model: "
            "train one with `train --direction de-en`"
        )
    translator = Translator.from_pretrained(folder, device)
    german = read_german(german_file)[: limit or None]
    ids = translator.tokenizer.encode_batch([clean_text(de) for de in german])
    readable = [de for de, sentence in zip(german, ids) if len(sentence) <= translator.config.max_len]
    options = options or DecodeOptions(max_new_tokens=translator.config.max_len)
    pairs = []
    for batch in tqdm(list(batches(readable, BATCH)), desc="back-translate", unit="batch"):
        pairs += zip(translator.translate(batch, options), batch)
    kept = [(" ".join(en.split()), de) for en, de in pairs if en.strip()]
    with Path(out).open("w", encoding="utf-8") as tsv:
        tsv.write(f"# back-translated by {model} from {german_file}: english<TAB>german<TAB>{SYNTHETIC}\n")
        tsv.writelines(f"{en}\t{de}\t{SYNTHETIC}\n" for en, de in kept)
    counts = dict(german=len(german), too_long=len(german) - len(readable), empty=len(pairs) - len(kept))
    log.info("%s: %s synthetic pairs from %s German sentences %s", out, len(kept), len(german), counts)
    return dict(counts, pairs=len(kept))
