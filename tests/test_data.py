"""Ding parsing, filters, the leak-free split, TSV input and token batching, on hand-written lines."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from transformer_viz.corpus import ding
from transformer_viz.corpus import pairs as data
from transformer_viz.corpus.ding import Pair, clean, load_ding, parse_line
from transformer_viz.corpus.pairs import load_corpus, read_tsv, split_pairs
from transformer_viz.training.batches import token_batches

HEADWORD = "Aalbestand {m} [zool.] | Aalbestände {pl} :: eel stock (fishery) | eel stocks"
EXAMPLE = (
    "Raunen {n}; Geraune {n} | Ein Raunen ging durch die Menge. :: "
    "murmur; murmuring; whispering | A murmur went through the crowd."
)


def sentence_line(i: int) -> str:
    """A synthetic Ding entry with a headword, a phrase and the i-th example sentence."""
    return (
        f"Wort{i} {{n}} [ugs.] | das Wort{i} sagen | Er hat das Wort{i} {i} mal gesagt. :: "
        f"word{i} [coll.] | to say word{i} | He said word{i} {i} times."
    )


def write_ding(path: Path, lines: list[str]) -> Path:
    path.write_text("# Version :: test\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- clean
@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Aal {m} (auf der Speisekarte) [cook.]", "Aal"),
        ("eel trap; weel [archaic] <weely>", "eel trap; weel"),
        ("Sorry, I don't understand. /SIDU/", "Sorry, I don't understand."),
        ("If you can’t behave (yourself (at all)) we’ll leave.", "If you can't behave we'll leave."),
        ("to seek {sought; sought} sth. (from sb.)", "to seek sth."),
        ("  A  und   B {pl} ", "A und B"),
        ("He/She is a flight risk.", "He is a flight risk."),
        ("Die Rente/Pension ruht.", "Die Rente ruht."),
        ("speed in km/h; 24/7", "speed in km/h; 24/7"),  # units and numbers stay (and get filtered)
        ("mit deinem Gewissen/deiner Überzeugung", "mit deinem Gewissen/deiner Überzeugung"),
    ],
)
def test_clean(raw, expected):
    assert clean(raw) == expected


# ---------------------------------------------------------------------------- parse_line
def test_parse_line_aligns_sub_entries_and_takes_first_alternatives():
    assert parse_line(HEADWORD) == [
        Pair("eel stock", "Aalbestand", "word"),  # one German word: a headword, not a phrase
        Pair("eel stocks", "Aalbestände", "word"),
    ]
    assert parse_line(EXAMPLE) == [
        Pair("murmur", "Raunen", "word"),
        Pair("A murmur went through the crowd.", "Ein Raunen ging durch die Menge.", "sentence"),
    ]


def test_parse_line_kinds():
    line = (
        "abbiegen {vi} | links abbiegen | Bitte biegen Sie jetzt links ab. :: "
        "to turn | to turn left | Please turn left now."
    )
    assert [p.kind for p in parse_line(line)] == ["word", "phrase", "sentence"]


def test_parse_line_skips_mismatched_sub_entry_counts_comments_and_junk():
    assert parse_line("Aal {m} | Aale {pl} | Aalsuppe {f} :: eel | eels") == []
    assert parse_line("# Version :: devel 2023-01-30") == []
    assert parse_line("no separator here") == []
    assert parse_line("") == []


def test_parse_line_drops_placeholders_ellipses_and_leftover_markup():
    line = (
        "etw. knüpfen {vt} | Abschließend … | Das kostet 5 ~ 6 EUR. | Er knüpft ein Netz. :: "
        "to knot sth. | To conclude, … | It costs 5 ~ 6 EUR. | He knots a net."
    )
    assert parse_line(line) == [Pair("He knots a net.", "Er knüpft ein Netz.", "sentence")]


def test_parse_line_zips_parallel_sentence_variants_only():
    line = "Benimm dich!; Benehmen Sie sich! :: Just behave!; Behave yourself!"
    assert parse_line(line) == [
        Pair("Just behave!", "Benimm dich!", "sentence"),
        Pair("Behave yourself!", "Benehmen Sie sich!", "sentence"),
    ]
    synonyms = "Nervensäge {f}; Quälgeist {m}; Plagegeist {m} :: nuisance; pest; pain in the neck"
    assert parse_line(synonyms) == [Pair("nuisance", "Nervensäge", "word")]


def test_parse_line_marks_edited_sentences():
    (resolved,) = parse_line("Überprüfen/Prüfen Sie bitte den Ölstand! :: Please check the oil level!")
    assert resolved == Pair("Please check the oil level!", "Überprüfen Sie bitte den Ölstand!", "sentence")
    assert resolved.edited
    (completed,) = parse_line("Wir treffen uns oft :: We meet often.")
    assert completed.tgt == "Wir treffen uns oft." and completed.edited
    (verbatim,) = parse_line("Er ist müde. :: He is tired.")
    assert not verbatim.edited
    # An abbreviation's final dot does not make its translation a sentence.
    assert parse_line("Schweißgeruch {m} :: B.O.") == [Pair("B.O.", "Schweißgeruch", "word")]
    assert not parse_line("Schweißgeruch {m} :: B.O.")[0].edited
    # A second alternative that spans several words cannot be resolved safely: dropped.
    assert parse_line("Es rauschte vorbei/an ihnen vorbei. :: It swished by them.") == []


def test_parse_line_does_not_split_inside_annotations():
    line = "(oft) gehen {vi} (in; nach; zu) | gehend :: to resort {resorted; resorted} (to) | resorting"
    assert parse_line(line) == [Pair("to resort", "gehen", "word"), Pair("resorting", "gehend", "word")]


# ---------------------------------------------------------------------------- load_ding
def test_load_ding_deduplicates_and_filters_kinds(tmp_path):
    path = write_ding(tmp_path / "de-en", [HEADWORD, EXAMPLE, HEADWORD, "Aalbestand {m} :: eel stock"])
    pairs = load_ding(path)
    assert [(p.src, p.tgt) for p in pairs] == [
        ("eel stock", "Aalbestand"),
        ("eel stocks", "Aalbestände"),
        ("murmur", "Raunen"),
        ("A murmur went through the crowd.", "Ein Raunen ging durch die Menge."),
    ]
    assert [p.kind for p in load_ding(path, kinds=["sentence"])] == ["sentence"]
    with pytest.raises(ValueError, match="unknown pair kinds"):
        load_ding(path, kinds=["sentences"])


def test_load_ding_env_var_and_missing_file_message(tmp_path, monkeypatch):
    path = write_ding(tmp_path / "mine", [EXAMPLE])
    monkeypatch.setenv(ding.DING_ENV, str(path))
    assert len(load_ding()) == 2
    monkeypatch.setenv(ding.DING_ENV, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError) as info:
        load_ding()
    assert "apt-get install trans-de-en" in str(info.value) and ding.DING_ENV in str(info.value)


# ---------------------------------------------------------------------------- read_tsv
def test_read_tsv_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "extra.tsv"
    lines = ["# mine", "", "I’m hungry.\tIch habe Hunger.", "good  morning\tguten Morgen"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert read_tsv(path) == [
        Pair("I'm hungry.", "Ich habe Hunger.", "sentence"),
        Pair("good morning", "guten Morgen", "phrase"),
    ]


@pytest.mark.parametrize("first", ["# mine", "I am hungry.\tIch habe Hunger."])
def test_read_tsv_reads_past_a_byte_order_mark(tmp_path, first):
    """Files saved by some editors start with U+FEFF: it belongs to neither the first comment nor the first pair."""
    path = tmp_path / "bom.tsv"
    path.write_text("\ufeff" + first + "\nGood night.\tGute Nacht.\n", encoding="utf-8")
    pairs = read_tsv(path)
    assert pairs[-1] == Pair("Good night.", "Gute Nacht.", "sentence")
    assert len(pairs) == 1 + ("\t" in first) and all(p.kind == "sentence" and "\ufeff" not in p.src for p in pairs)


def test_evaluation_uses_the_split_of_the_corpus_the_model_was_trained_on(tmp_path, monkeypatch):
    """A model trained with --corpus other-file is scored on that file's test split (and seed), not the default's."""
    import json

    from transformer_viz.training import evaluate

    default = write_ding(tmp_path / "default", [sentence_line(i) for i in range(1600)])
    other = write_ding(tmp_path / "other", [sentence_line(i) for i in range(2000, 3600)])
    monkeypatch.setenv(ding.DING_ENV, str(default))
    folder = tmp_path / "model"
    folder.mkdir()
    assert evaluate.test_split(folder) == load_corpus(default, seed=0).test  # no record: the default corpus, seed 0
    (folder / "training.json").write_text(json.dumps({"options": {"corpus": str(other), "seed": 3}}))
    assert evaluate.test_split(folder, limit=5) == load_corpus(other, seed=3).test[:5]


@pytest.mark.parametrize("bad", ["only english", "a\tb\tc", "english\t  ", "\tdeutsch"])
def test_read_tsv_names_the_malformed_line(tmp_path, bad):
    path = tmp_path / "extra.tsv"
    path.write_text(f"# header\nhello\thallo\n{bad}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"extra\.tsv:3: expected 'english<TAB>german'"):
        read_tsv(path)


def test_read_tsv_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="english<TAB>german"):
        read_tsv(tmp_path / "nope.tsv")


# ---------------------------------------------------------------------------- split_pairs
def corpus(n: int = 400) -> list[Pair]:
    """n sentences, each repeated with a variant translation and casing, plus phrases and words."""
    pairs = []
    for i in range(n):
        pairs += [
            Pair(f"He said word{i} {i} times.", f"Er sagte Wort{i} {i} mal.", "sentence"),
            Pair(f"he said word{i} {i} times!", f"Er hat Wort{i} {i} mal gesagt!", "sentence"),
            Pair(f"to say word{i}", f"Wort{i} sagen", "phrase"),
            Pair(f"word{i}", f"Wort{i}", "word"),
        ]
    pairs.append(Pair("He said word0 0 times.", "Edited.", "sentence", edited=True))
    return pairs


def test_split_sizes_kinds_and_no_source_leak():
    pairs = corpus()
    splits = split_pairs(pairs, seed=0, n_valid=50, n_test=100)
    assert len(splits.test) == 100 and len(splits.valid) == 50
    held_out = splits.test + splits.valid
    assert all(p.kind == "sentence" and not p.edited for p in held_out)
    keys = [data._source_key(p.src) for p in held_out]
    assert len(set(keys)) == len(keys)  # one pair per source, valid and test disjoint
    assert not set(keys) & {data._source_key(p.src) for p in splits.train}
    # Everything not held out (nor a variant of a held-out source) trains.
    assert len(splits.train) == len(pairs) - 2 * 150 - any(k == "he said word0 0 times" for k in keys)


def test_split_is_deterministic_order_free_and_seeded():
    pairs = corpus()
    first = split_pairs(pairs, seed=0, n_valid=50, n_test=100)
    shuffled = random.Random(1).sample(pairs, len(pairs))
    again = split_pairs(shuffled, seed=0, n_valid=50, n_test=100)
    assert first.test == again.test and first.valid == again.valid
    assert split_pairs(pairs, seed=1, n_valid=50, n_test=100).test != first.test


def test_split_does_not_depend_on_the_hash_seed():
    """The split must be identical in every process, whatever PYTHONHASHSEED says."""
    script = (
        "import hashlib, sys\n"
        f"sys.path.insert(0, {str(Path(data.__file__).parent.parent)!r})\n"
        "import transformer_viz.corpus.pairs as d\n"
        "pairs = [d.Pair(f'Sentence {i} here.', f'Satz {i} hier.', 'sentence') for i in range(300)]\n"
        "s = d.split_pairs(pairs, seed=3, n_valid=20, n_test=50)\n"
        "print(hashlib.sha256(repr(s.test + s.valid).encode()).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script], env={"PYTHONHASHSEED": seed}, capture_output=True, text=True, check=True
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_split_needs_enough_sentences():
    with pytest.raises(ValueError, match="lower n_valid/n_test"):
        split_pairs(corpus(10), n_valid=5, n_test=10)


def test_load_corpus_holds_out_1000_sentences_and_extra_pairs_only_train(tmp_path):
    path = write_ding(tmp_path / "de-en", [sentence_line(i) for i in range(1600)])
    splits = load_corpus(path, seed=0)
    assert len(splits.test) == 1000 and len(splits.valid) == 500
    leaked = splits.test[0]
    extra = tmp_path / "extra.tsv"
    extra.write_text(f"{leaked.src}\t{leaked.tgt}\nGood night.\tGute Nacht.\n", encoding="utf-8")
    with_extra = load_corpus(path, seed=0, extra_tsv=extra)
    assert with_extra.test == splits.test and with_extra.valid == splits.valid
    assert with_extra.train == splits.train + [Pair("Good night.", "Gute Nacht.", "sentence")]


# ---------------------------------------------------------------------------- token_batches
def random_lengths(n: int = 2000, seed: int = 0) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    return [(rng.randint(1, 60), rng.randint(1, 60)) for _ in range(n)]


@pytest.mark.parametrize("shuffle", [True, False])
def test_token_batches_cover_every_index_once_within_budget(shuffle):
    lengths = random_lengths()
    batches = token_batches(lengths, max_tokens=256, shuffle=shuffle, seed=0, bucket_size=500)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert batch and len(batch) * max(max(lengths[i]) for i in batch) <= 256
    padded = sum(len(b) * max(max(lengths[i]) for i in b) for b in batches)
    assert sum(max(pair) for pair in lengths) > 0.97 * padded  # similar lengths: little padding


def test_token_batches_determinism_and_shuffling():
    lengths = random_lengths()
    first = token_batches(lengths, 256, shuffle=True, seed=0)
    assert first == token_batches(lengths, 256, shuffle=True, seed=0)
    assert first != token_batches(lengths, 256, shuffle=True, seed=1)
    ordered = token_batches(lengths, 256, shuffle=False, seed=0)
    longest = [max(max(lengths[i]) for i in b) for b in ordered]
    assert longest == sorted(longest)


def test_token_batches_rejects_examples_over_budget():
    assert token_batches([], 10, shuffle=True, seed=0) == []
    with pytest.raises(ValueError, match="raise max_tokens"):
        token_batches([(3, 4), (12, 2)], max_tokens=10, shuffle=False, seed=0)


# ---------------------------------------------------------------------------- the real file
@pytest.mark.skipif(not ding.DING_PATH.is_file(), reason="Debian package trans-de-en not installed")
def test_real_ding_head_parses_cleanly():
    """The first 10,000 entries of the installed dictionary give clean pairs of every kind."""
    with ding.DING_PATH.open(encoding="utf-8") as lines:
        pairs = [p for _, line in zip(range(10_000), lines) for p in parse_line(line)]
    kinds = {kind: sum(p.kind == kind for p in pairs) for kind in ding.KINDS}
    assert kinds["sentence"] > 300 and kinds["phrase"] > 2000 and kinds["word"] > 10000
    markup = set("{}[]()<>/|")
    assert not [p for p in pairs if markup & set(p.src + p.tgt)]
    assert Pair("eel stocks", "Aalbestände", "word") in pairs
