"""The model card of weights trained on the Debian corpus: everyday and per-source scores, the data's credits."""

from __future__ import annotations

import json

from tests.test_train import options, write_debian_corpus, write_fake_ding
from transformer_viz.corpus.build import attribution_markdown
from transformer_viz.hub.card import ATTRIBUTION_NAME, CORPUS_DATA, DING_DATA, corpus_licences, write_model_card
from transformer_viz.training.train import train

CREDITS = "## Corpus attribution\n\n- games: The Game, its authors and German translators\n"


def trained_with_corpus(tmp_path):
    corpus = write_fake_ding(tmp_path / "de-en")
    built = write_debian_corpus(tmp_path / "built", {"games": [(f"Run {i}!", f"Lauf {i}!") for i in range(5)]})
    (built / "ATTRIBUTION.md").write_text(CREDITS, encoding="utf-8")
    return corpus, train(options(corpus, tmp_path / "run", max_steps=2, debian_corpus=str(built)))


def test_training_on_the_corpus_copies_its_credits_into_the_card(tmp_path):
    corpus, out = trained_with_corpus(tmp_path)
    assert (out / ATTRIBUTION_NAME).read_text(encoding="utf-8") == CREDITS
    card = write_model_card(out).read_text(encoding="utf-8")
    assert "The Game, its authors and German translators" in card
    assert CORPUS_DATA in card and DING_DATA not in card
    alone = train(options(corpus, tmp_path / "alone", max_steps=2))
    assert not (alone / ATTRIBUTION_NAME).exists()
    card = write_model_card(alone).read_text(encoding="utf-8")
    assert DING_DATA in card and "Corpus attribution" not in card


def test_the_card_shows_the_everyday_and_per_source_scores(tmp_path):
    _, out = trained_with_corpus(tmp_path)
    row = dict(bleu=1.0, chrf=2.0, sentences=3)
    evaluation = dict(
        greedy=row,
        beam={**row, "beam_size": 4},
        everyday=dict(bleu=31.5, chrf=61.25, exact=26.4, sentences=2664),
        corpus_sources={
            "wesnoth": dict(bleu=9.5, chrf=40.1, sentences=200),
            "naev": dict(bleu=7.0, chrf=35.0, sentences=100),
        },
    )
    (out / "evaluation.json").write_text(json.dumps(evaluation), encoding="utf-8")
    card = write_model_card(out).read_text(encoding="utf-8")
    assert "| 31.5 | 61.25 | 26.4% | 2664 |" in card
    assert card.index("| naev | 7.0 | 35.0 | 100 |") < card.index("| wesnoth | 9.5 | 40.1 | 200 |")


def test_the_card_names_every_licence_of_the_data_and_claims_no_other(tmp_path):
    """Weights learnt from GPL and CC-BY-SA text: the front matter says `other`, the Data section lists each
    licence (Ding's first), and the credits table they come from is the one corpus build writes."""
    _, out = trained_with_corpus(tmp_path)
    entry = dict(packages={"pkg": "1.0"}, attribution="someone")
    sources = {
        "games": dict(entry, pairs=1_200, licence="GPL-3.0-or-later"),
        "quests": dict(entry, pairs=30, licence="CC-BY-SA-3.0"),
        "more": dict(entry, pairs=7, licence="GPL-2.0-or-later"),
    }
    (out / ATTRIBUTION_NAME).write_text(attribution_markdown(dict(sources=sources)), encoding="utf-8")
    assert corpus_licences(out) == ["GPL-2.0-or-later", "GPL-3.0-or-later", "CC-BY-SA-3.0"]  # Ding, then by source
    card = write_model_card(out).read_text(encoding="utf-8")
    front = card.split("---")[1]
    assert "license: other" in front and "gpl-2.0" not in front
    data = card[card.index("## Data") : card.index("## Training")]
    assert all(f"**{name}**" in data for name in corpus_licences(out))
    (out / ATTRIBUTION_NAME).unlink()  # Ding alone: its own licence
    card = write_model_card(out).read_text(encoding="utf-8")
    assert "license: gpl-2.0" in card.split("---")[1] and corpus_licences(out) == []
