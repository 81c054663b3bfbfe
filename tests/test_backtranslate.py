"""Back-translation end to end on tiny data: train --direction de-en, backtranslate, train on the synthetic pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_train import SUBJECTS, options, write_fake_ding
from transformer_viz.__main__ import main
from transformer_viz.corpus.ding import Pair
from transformer_viz.corpus.pairs import SYNTHETIC, load_corpus, oriented, read_tsv
from transformer_viz.training import batches, mixtures, train
from transformer_viz.training.backtranslate import backtranslate, trained_direction
from transformer_viz.training.batches import limit_synthetic
from transformer_viz.training.mixtures import DIALOGUE, EVERYDAY, Phase, phase_options

GERMAN = ["Ich sehen das Haus heute.", "Wir wollen Kaffee.", "   ", "# a comment", "Mein Bruder mögen das Auto."]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_fake_ding(tmp_path_factory.mktemp("ding") / "de-en")


@pytest.fixture(scope="module")
def german_to_english(corpus, tmp_path_factory) -> Path:
    return train.train(options(corpus, tmp_path_factory.mktemp("runs") / "de-en", direction="de-en"))


def training_pairs(monkeypatch) -> list[list[Pair]]:
    """Record the pairs each run encodes (its training pairs, as the model reads them)."""
    seen = []
    encode = batches.TrainingData.encode.__func__

    def recording(cls, train_pairs, valid, *args):
        seen.append((list(train_pairs), list(valid)))
        return encode(cls, train_pairs, valid, *args)

    monkeypatch.setattr(batches.TrainingData, "encode", classmethod(recording))
    return seen


def test_oriented_swaps_the_sides_for_de_en_and_refuses_other_directions():
    pair = Pair("I see the house.", "ich sehe das Haus.", "sentence", source="toy")
    assert oriented([pair], "en-de") == [pair]
    (swapped,) = oriented([pair], "de-en")
    assert (swapped.src, swapped.tgt, swapped.kind, swapped.source) == (pair.tgt, pair.src, "sentence", "toy")
    with pytest.raises(ValueError, match="direction must be one of en-de, de-en"):
        oriented([pair], "en-fr")


def test_a_de_en_run_reads_german_and_writes_english(corpus, tmp_path, monkeypatch):
    seen = training_pairs(monkeypatch)
    out = train.train(options(corpus, tmp_path / "run", direction="de-en", max_steps=10))
    ((train_pairs, valid),) = seen
    german_starts = {de.split()[0] for _, de in SUBJECTS}  # the fake Ding's sentences start with a subject
    english_starts = {en.split()[0] for en, _ in SUBJECTS}
    sentences = [p for p in train_pairs + valid if p.kind == "sentence"]
    assert sentences and all(p.src.split()[0] in german_starts for p in sentences)
    assert all(p.tgt.split()[0] in english_starts for p in sentences)
    assert trained_direction(out) == "de-en"
    with pytest.raises(ValueError, match="direction"):
        train.train(options(corpus, tmp_path / "bad", direction="deu-eng"))


def test_backtranslate_writes_tagged_pairs_that_train_reads(german_to_english, corpus, tmp_path, monkeypatch):
    german = tmp_path / "german.de.txt"
    german.write_text("\n".join([*GERMAN, "Haus " * 80]) + "\n", encoding="utf-8")  # the last: longer than max_len
    out = tmp_path / "synthetic.tsv"
    counts = backtranslate(german_to_english, german, out, device="cpu")
    assert counts["german"] == 4 and counts["too_long"] == 1
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# back-translated by") and len(lines) == 1 + counts["pairs"]
    assert all(line.split("\t")[2] == SYNTHETIC and line.split("\t")[1] in GERMAN for line in lines[1:])
    pairs = read_tsv(out)
    assert {p.source for p in pairs} == {SYNTHETIC} and [p.tgt for p in pairs] == [
        line.split("\t")[1] for line in lines[1:]
    ]

    splits = load_corpus(corpus, extra_tsv=out)  # they join training, tagged
    assert sum(p.source == SYNTHETIC for p in splits.train) == len({(p.src, p.tgt) for p in pairs})
    seen = training_pairs(monkeypatch)
    train.train(options(corpus, tmp_path / "en-de", extra_tsv=str(out), synthetic_pairs=1, max_steps=10))
    ((train_pairs, _),) = seen
    assert sum(p.source == SYNTHETIC for p in train_pairs) == 1  # weighed: one of them kept


def test_backtranslate_refuses_a_model_trained_english_to_german(corpus, tmp_path):
    en_de = train.train(options(corpus, tmp_path / "en-de", max_steps=10))
    (tmp_path / "german.txt").write_text("ich sehe das Haus.\n")
    with pytest.raises(ValueError, match="trained en-de.*--direction de-en"):
        backtranslate(en_de, tmp_path / "german.txt", tmp_path / "out.tsv")
    assert not (tmp_path / "out.tsv").exists()


def test_the_command_line_backtranslates(german_to_english, tmp_path, capsys):
    (tmp_path / "german.txt").write_text("\n".join(GERMAN) + "\n", encoding="utf-8")
    argv = ["backtranslate", "--model", str(german_to_english), "--in", str(tmp_path / "german.txt")]
    assert main([*argv, "--out", str(tmp_path / "out.tsv"), "--device", "cpu", "--limit", "2"]) == 0
    assert "synthetic pairs written to" in capsys.readouterr().out
    assert len(read_tsv(tmp_path / "out.tsv")) <= 2
    assert (
        main(
            [
                "backtranslate",
                "--model",
                str(german_to_english),
                "--in",
                str(tmp_path / "nowhere.txt"),
                "--out",
                str(tmp_path / "x.tsv"),
            ]
        )
        == 2
    )


def test_limit_synthetic_keeps_every_real_pair_and_a_seeded_sample():
    real = [Pair(f"real {i}", f"echt {i}", "phrase") for i in range(3)]
    synthetic = [Pair(f"made {i}", f"gemacht {i}", "phrase", source=SYNTHETIC) for i in range(5)]
    assert limit_synthetic(real + synthetic, -1, seed=0) == real + synthetic
    assert limit_synthetic(real + synthetic, 0, seed=0) == real
    two = limit_synthetic(real + synthetic, 2, seed=0)
    assert two[:3] == real and len(two) == 5 and set(two[3:]) <= set(synthetic)
    assert two == limit_synthetic(real + synthetic, 2, seed=0)


def test_the_everyday_recipe_adds_declared_sources_to_the_dialogue_and_a_phase_weighs_synthetic_pairs(tmp_path):
    from transformer_viz.corpus.sources import SOURCE_NAMES

    everyday = next(r for r in mixtures.RECIPES if r.name == "ding+dialogue+everyday")
    assert everyday.phases[0].sources == DIALOGUE + EVERYDAY and set(EVERYDAY) <= set(SOURCE_NAMES)
    assert {"freedink", "gcompris", "openclonk", "drascula", "flare", "supertux"} <= set(EVERYDAY)
    base = options(tmp_path / "ding", tmp_path / "unused", synthetic_pairs=7)
    assert phase_options(base, tmp_path / "a", Phase(1.0), tmp_path).synthetic_pairs == 7
    assert phase_options(base, tmp_path / "b", Phase(1.0, synthetic_pairs=0), tmp_path).synthetic_pairs == 0
