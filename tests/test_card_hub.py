"""The model cards as the Hub reads them: huggingface_hub's own parser (ModelCard.load) finds the licence, the
translation pipeline, the data, and a model-index whose scores are the ones the card's tables print, for a card
written now and for both bundled cards (which are what the card writer makes of their folders' records)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from huggingface_hub import ModelCard

from tests.test_card_corpus import trained_with_corpus
from transformer_viz.hub.card import ATTRIBUTION_NAME, CURVE_NAME, write_model_card
from transformer_viz.hub.hub import CHECKPOINT_FILES, RECORD_FILES

ROOT = Path(__file__).resolve().parents[1]
EVALUATION = dict(
    greedy=dict(bleu=11.25, chrf=40.5, exact=0.7, sentences=900),
    beam=dict(bleu=12.75, chrf=41.0, sentences=900, beam_size=5),
    everyday=dict(bleu=31.5, chrf=61.25, exact=26.4, sentences=2664),
)


def table(text: str, heading: str) -> list[list[str]]:
    """The cells of the rows of the first table after `heading` (its head and rule left out)."""
    after = text[text.index(heading) :].splitlines()
    start = next(i for i, line in enumerate(after) if line.startswith("|"))
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), after[start:]))[2:]
    return [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows]


def scores(card: ModelCard) -> dict[tuple[str, str, str], float]:
    """(dataset type, metric type, how it decoded) → the model-index's value; every result self-reported."""
    results = card.data.eval_results
    assert all(r.verified is False and r.task_type == "translation" for r in results)
    out = {}
    for r in results:
        how = "greedy" if r.metric_args["decoding"] == "greedy" else f"beam {r.metric_args['beam_size']}"
        out[r.dataset_type, r.metric_type, how] = r.metric_value
    return out


def printed(card: ModelCard) -> dict[tuple[str, str, str], float]:
    """The same keys, read from the tables the card prints (Ding test: greedy and beam rows; everyday phrases)."""
    out = {}
    for how, bleu, chrf, _ in table(card.text, "## Evaluation"):
        out |= {
            ("ding-trans-de-en-test", "sacrebleu", how): float(bleu),
            ("ding-trans-de-en-test", "chrf", how): float(chrf),
        }
    if "## Everyday phrases" in card.text:
        ((bleu, chrf, exact, _),) = table(card.text, "## Everyday phrases")
        everyday = {"sacrebleu": bleu, "chrf": chrf, "exact_match": exact.rstrip("%")}
        out |= {("auf-deutsch-everyday-phrases", metric, "greedy"): float(v) for metric, v in everyday.items()}
    return out


def test_the_hub_reads_the_licence_the_pipeline_the_data_and_the_scores_the_card_prints(tmp_path):
    _, out = trained_with_corpus(tmp_path)
    (out / "evaluation.json").write_text(json.dumps(EVALUATION), encoding="utf-8")
    card = ModelCard.load(write_model_card(out))
    data = card.data
    assert (data.license, data.license_name, data.license_link) == ("other", "training-data-licences", "README.md#data")
    assert "\n## Data\n" in card.text  # where the licence link points: each licence of the data
    assert data.pipeline_tag == "translation" and data.library_name == "transformer-viz"
    assert data.language == ["en", "de"] and "translation" in data.tags
    assert data.datasets == ["ding-trans-de-en", "debian-programs-de-translations"]
    assert data.model_name == f"transformer-viz {out.name}"
    assert scores(card) == printed(card)
    assert scores(card)["ding-trans-de-en-test", "sacrebleu", "beam 5"] == 12.75  # beam 5 as evaluate recorded it
    assert scores(card)["auf-deutsch-everyday-phrases", "exact_match", "greedy"] == 26.4
    names = {r.dataset_type: r.dataset_name for r in data.eval_results}
    assert names["ding-trans-de-en-test"] == "Ding EN–DE dictionary sentences, 900 held out from training"
    assert "2,664 everyday phrases, never trained on" in names["auf-deutsch-everyday-phrases"]


def test_weights_of_ding_alone_carry_its_licence_and_an_unevaluated_card_has_no_scores(tmp_path):
    _, out = trained_with_corpus(tmp_path)
    (out / ATTRIBUTION_NAME).unlink()  # trained on Ding alone
    card = ModelCard.load(write_model_card(out))
    assert card.data.license == "gpl-2.0" and card.data.license_name is None
    assert card.data.datasets == ["ding-trans-de-en"]
    assert card.data.eval_results is None and "Not evaluated yet" in card.text
    assert card.data.pipeline_tag == "translation"


@pytest.mark.parametrize("name", ["seed000", "seed004"])
def test_the_bundled_cards_are_written_from_their_records(name, tmp_path):
    """Each bundled card holds the scores of its own evaluation.json, in the model-index and in its tables, and is
    exactly what the card writer makes of the folder's records today."""
    folder = ROOT / "checkpoints" / name
    card = ModelCard.load(folder / "README.md")
    evaluation = json.loads((folder / "evaluation.json").read_text())
    assert card.data.license == "other" and card.data.pipeline_tag == "translation"
    assert scores(card) == printed(card)
    beam = f"beam {evaluation['beam']['beam_size']}"
    assert scores(card)["ding-trans-de-en-test", "chrf", beam] == evaluation["beam"]["chrf"]
    assert scores(card)["auf-deutsch-everyday-phrases", "sacrebleu", "greedy"] == evaluation["everyday"]["bleu"]
    copy = tmp_path / name
    copy.mkdir()
    for file in [*CHECKPOINT_FILES, *RECORD_FILES, ATTRIBUTION_NAME]:
        if (folder / file).is_file():
            shutil.copy(folder / file, copy / file)
    written = write_model_card(copy).read_text(encoding="utf-8")
    assert written == (folder / "README.md").read_text(encoding="utf-8")
    assert (copy / CURVE_NAME).read_bytes() == (folder / CURVE_NAME).read_bytes()
