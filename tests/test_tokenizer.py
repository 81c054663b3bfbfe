"""SentencePiece wrapper: special ids, encode/decode, unknown characters, save/load, determinism."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
import sentencepiece as spm

from transformer_viz.tokenizer import Tokenizer

VOCAB = 64
SUBJECTS = [
    "the cat",
    "a dog",
    "my sister",
    "our teacher",
    "the old man",
    "die Katze",
    "ein Hund",
    "meine Schwester",
    "unser Lehrer",
    "der alte Mann",
]
VERBS = ["sees", "likes", "finds", "watched", "helped", "sieht", "mag", "findet", "fragte", "kaufte"]
OBJECTS = [
    "the red ball.",
    "a green house.",
    "every small fish.",
    "the quick brown fox!",
    "das rote Haus.",
    "einen grünen Ball.",
    "jeden kleinen Vogel.",
    "über die Straße?",
]
# 800 short English and German lines: enough for a 64-piece model, trained in well under a second.
TEXTS = [f"{s} {v} {o}" for s, v, o in itertools.product(SUBJECTS, VERBS, OBJECTS)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(tokenizer, path of its tokenizer.model) trained once for the module."""
    path = tmp_path_factory.mktemp("tok") / "tokenizer.model"
    return Tokenizer.train(TEXTS, path, vocab_size=VOCAB), path


@pytest.fixture
def tok(trained):
    return trained[0]


def test_train_writes_one_model_file_with_the_requested_size(trained):
    tok, path = trained
    assert path.is_file() and path.read_bytes() == tok.model_proto
    assert sorted(p.name for p in path.parent.iterdir()) == ["tokenizer.model"]  # no .vocab, no temp
    assert tok.vocab_size == len(tok) == VOCAB


def test_special_ids_and_pieces(tok):
    assert (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id) == (0, 1, 2, 3)
    assert tok.ids_to_pieces([0, 1, 2, 3]) == ["<pad>", "<unk>", "<s>", "</s>"]


def test_encode_appends_eos_and_optionally_bos(tok):
    ids = tok.encode("the cat sees the red ball.")
    assert ids[-1] == tok.eos_id and tok.eos_id not in ids[:-1] and tok.bos_id not in ids
    assert tok.encode("the cat", add_bos=True, add_eos=False) == [tok.bos_id] + tok.encode("the cat")[:-1]
    assert all(i > 3 for i in tok.encode("the cat", add_eos=False))


@pytest.mark.parametrize("text", ["the cat sees the red ball.", "unser Lehrer kaufte einen grünen Ball."])
def test_decode_inverts_encode_and_skips_specials(tok, text):
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert tok.decode([tok.bos_id] + ids + [tok.pad_id, tok.pad_id]) == text


def test_pieces_match_the_ids(tok):
    text = "my sister likes every small fish."
    assert tok.pieces(text) == tok.ids_to_pieces(tok.encode(text, add_eos=False))
    assert "".join(tok.pieces(text)).replace("▁", " ").strip() == text


def test_unknown_characters_become_unk_but_pieces_show_them(tok):
    ids = tok.encode("the cat 😀", add_eos=False)
    pieces = tok.pieces("the cat 😀")
    assert ids[-1] == tok.unk_id and pieces[-1] == "😀"
    assert tok.id_to_piece(ids[-1]) == "<unk>"


def test_text_is_nfkc_normalised(tok):
    assert tok.encode("ﬁsh") == tok.encode("fish")  # the "ﬁ" ligature is two letters under NFKC


def test_encode_batch_equals_encode(tok):
    texts = ["the cat", "ein Hund mag über die Straße?", ""]
    assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]
    assert tok.encode("") == [tok.eos_id]


def test_out_of_range_ids_raise(tok):
    with pytest.raises(IndexError, match="outside the vocabulary"):
        tok.id_to_piece(VOCAB)
    with pytest.raises(IndexError, match="outside the vocabulary"):
        tok.decode([5, VOCAB + 3])


def test_save_load_round_trip_gives_identical_ids(tok, tmp_path):
    path = tok.save(tmp_path / "copy" / "tokenizer.model")
    loaded = Tokenizer.load(path)
    assert loaded.model_proto == tok.model_proto
    for text in TEXTS[::97] + ["the cat 😀 ﬁsh"]:
        assert loaded.encode(text) == tok.encode(text)
        assert loaded.pieces(text) == tok.pieces(text)


def test_save_replaces_a_file_whole_and_keeps_its_permissions(tok, tmp_path, monkeypatch):
    """A save that fails leaves the old file and no temporary; a save that works keeps the owner's chosen mode."""
    path = tok.save(tmp_path / "tokenizer.model")
    path.chmod(0o604)
    before = path.read_bytes()

    def half_then_crash(self, data):
        with open(self, "wb") as file:
            file.write(data[:100])  # the first bytes of a file that never gets finished
        raise OSError("No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(Path, "write_bytes", half_then_crash)
        with pytest.raises(OSError, match="No space"):
            tok.save(path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["tokenizer.model"]
    tok.save(path)
    assert path.stat().st_mode & 0o777 == 0o604 and Tokenizer.load(path).model_proto == tok.model_proto


def test_load_missing_file_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="Tokenizer.train"):
        Tokenizer.load(tmp_path / "nope.model")


def test_load_rejects_a_model_with_other_special_ids(tmp_path):
    model = io.BytesIO()  # SentencePiece's defaults: unk 0, bos 1, eos 2, no pad
    spm.SentencePieceTrainer.train(sentence_iterator=iter(TEXTS), model_writer=model, vocab_size=VOCAB, minloglevel=2)
    (tmp_path / "foreign.model").write_bytes(model.getvalue())
    with pytest.raises(ValueError, match="retrain"):
        Tokenizer.load(tmp_path / "foreign.model")


def test_training_is_deterministic(tok, tmp_path):
    again = Tokenizer.train(iter(TEXTS), tmp_path / "again.model", vocab_size=VOCAB)
    assert again.model_proto == tok.model_proto


def test_training_errors_name_the_fix(tmp_path):
    with pytest.raises(ValueError, match="lower vocab_size"):
        Tokenizer.train(TEXTS[:20], tmp_path / "t.model", vocab_size=5000)
    with pytest.raises(ValueError, match="no non-empty texts"):
        Tokenizer.train(["", "  "], tmp_path / "t.model", vocab_size=VOCAB)
