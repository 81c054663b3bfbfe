"""Checkpoints: save/load round trips, refusal of broken or unsafe folders, the offline Hub cache, push."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import huggingface_hub
import huggingface_hub.constants
import pytest
import torch

import transformer_viz.hub.hub as hub
from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz import Transformer
from transformer_viz.hub.hub import (
    CARD_NAME,
    CONFIG_NAME,
    TOKENIZER_NAME,
    WEIGHTS_NAME,
    CheckpointError,
    is_repo_id,
    push_to_hub,
    resolve_checkpoint,
    save_checkpoint,
)
from transformer_viz.hub.model import load_transformer
from transformer_viz.model.config import PRESETS
from transformer_viz.translator import load_model

PRESET_NAMES = sorted(PRESETS)
SRC = torch.tensor([[5, 9, 14, 22, 3, 0], [7, 8, 3, 0, 0, 0]])  # (2, 6), padded
TGT = torch.tensor([[2, 11, 30, 4], [2, 17, 3, 0]])  # (2, 4)
SENTENCE = "I see the house."


@torch.no_grad()
def outputs(model: Transformer) -> torch.Tensor:
    return model(SRC, TGT)


def checkpoint(folder: Path, preset: str = "seed000", **overrides) -> Path:
    """A complete checkpoint folder (config, weights, tokenizer) of a tiny random model."""
    tr = tiny_translator(preset, **overrides)
    return save_checkpoint(folder, tr.model, tiny_tokenizer_file())


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Run in an empty directory with no default-model override, so relative names mean nothing here."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRANSFORMER_VIZ_MODEL", raising=False)
    return tmp_path


# ---------------------------------------------------------------------------- writing
def test_an_interrupted_save_leaves_the_previous_checkpoint_whole(tmp_path, monkeypatch):
    """Training rewrites the checkpoint the app may be serving: a write that fails halfway changes nothing."""
    folder = checkpoint(tmp_path / "ckpt")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    model = tiny_translator("seed000").model
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)

    def half_then_crash(tensors, path, metadata=None):
        Path(path).write_bytes(b"\x00" * 100)  # the first bytes of a file that never gets finished
        raise OSError("No space left on device")

    monkeypatch.setattr(hub, "save_file", half_then_crash)
    with pytest.raises(OSError, match="No space"):
        save_checkpoint(folder, model)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # and no temporary file left behind
    load_transformer(folder)
    monkeypatch.undo()
    save_checkpoint(folder, model)  # a save that finishes replaces the weights
    assert torch.equal(outputs(load_transformer(folder)), outputs(model))


def test_saved_files_are_readable_like_any_new_file_and_keep_chosen_permissions(tmp_path):
    """safetensors creates owner-only files; a checkpoint must be readable by whoever a plain write would allow."""
    mask = os.umask(0o027)  # owner all, group read, others nothing
    try:
        folder = checkpoint(tmp_path / "ckpt")
        modes = {p.name: oct(p.stat().st_mode & 0o777) for p in folder.iterdir()}
        assert modes == {name: oct(0o640) for name in (CONFIG_NAME, WEIGHTS_NAME, TOKENIZER_NAME)}
        (folder / WEIGHTS_NAME).chmod(0o604)  # an owner's own choice survives the next save
        save_checkpoint(folder, tiny_translator("seed000").model)
        assert (folder / WEIGHTS_NAME).stat().st_mode & 0o777 == 0o604
    finally:
        os.umask(mask)


# ---------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(
    "sharing",
    [{}, {"tie_embeddings": True}, {"tie_embeddings": True, "share_embeddings": True}],
    ids=["separate", "tied", "shared+tied"],
)
def test_save_then_load_is_bit_for_bit(tmp_path, preset, sharing):
    model = tiny_translator(preset, **sharing).model
    with torch.no_grad():  # make every parameter distinct from a fresh init, biases and norms included
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    folder = save_checkpoint(tmp_path / "ckpt", model)
    assert sorted(p.name for p in folder.iterdir()) == [CONFIG_NAME, WEIGHTS_NAME]
    loaded = load_transformer(folder)
    assert loaded.config == model.config and not loaded.training
    assert torch.equal(outputs(loaded), outputs(model))
    ours, theirs = model.state_dict(), loaded.state_dict()
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)
    if sharing.get("tie_embeddings"):  # still one tensor after loading, not two copies
        assert loaded.decoder.generator.weight is loaded.decoder.embed.lookup.weight
    if sharing.get("share_embeddings"):
        assert loaded.encoder.embed is loaded.decoder.embed


def test_load_model_uses_the_tokenizer_in_the_folder(isolated):
    original = tiny_translator("seed004")
    folder = save_checkpoint(isolated / "my-model", original.model, tiny_tokenizer_file())
    assert (folder / TOKENIZER_NAME).read_bytes() == tiny_tokenizer_file().read_bytes()
    tr = load_model(folder, device="cpu")
    assert tr.name == "my-model" and tr.tokenizer.vocab_size == original.tokenizer.vocab_size
    assert tr.translate(SENTENCE, max_new_tokens=8) == original.translate(SENTENCE, max_new_tokens=8)
    assert load_model(str(folder), device="cpu").translate(SENTENCE, max_new_tokens=8) == tr.translate(
        SENTENCE, max_new_tokens=8
    )


def test_load_model_without_tokenizer_is_refused(isolated):
    folder = save_checkpoint(isolated / "no-tok", tiny_translator().model)
    with pytest.raises(CheckpointError, match=TOKENIZER_NAME):
        load_model(folder)


# ---------------------------------------------------------------------------- broken folders
def test_pickle_weights_are_refused(isolated):
    folder = isolated / "pickled"
    folder.mkdir()
    torch.save(tiny_translator().model.state_dict(), folder / "pytorch_model.bin")
    with pytest.raises(CheckpointError, match="safetensors") as err:
        load_transformer(folder)
    assert "pytorch_model.bin" in str(err.value) and "pickle" in str(err.value)
    (folder / CONFIG_NAME).write_text(json.dumps(tiny_translator().model.config.to_dict()))
    with pytest.raises(CheckpointError, match="pickle.*safetensors"):
        load_model(folder)


def test_missing_config_is_refused(isolated):
    folder = checkpoint(isolated / "c")
    (folder / CONFIG_NAME).unlink()
    with pytest.raises(CheckpointError, match=f"no {CONFIG_NAME}"):
        load_model(folder)


def test_missing_weights_are_refused(isolated):
    folder = checkpoint(isolated / "c")
    (folder / WEIGHTS_NAME).unlink()
    with pytest.raises(CheckpointError, match=f"no {WEIGHTS_NAME}"):
        load_model(folder)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"d_model": 32, "flash": true}', r"unknown config fields \['flash'\]"),
        ('{"d_model": "32"}', "d_model"),
        ('{"d_model": 30, "n_heads": 4}', "divisible"),
    ],
)
def test_bad_config_is_refused_before_the_weights(isolated, text, message):
    folder = checkpoint(isolated / "c")
    (folder / CONFIG_NAME).write_text(text)
    for load in (load_model, Transformer.from_pretrained):  # (the mixin's own loader would drop unknown fields)
        with pytest.raises(CheckpointError, match=message) as err:
            load(folder)
        assert CONFIG_NAME in str(err.value)


def test_weights_of_another_shape_are_refused(isolated):
    folder = checkpoint(isolated / "c", d_model=16)  # weights saved with D = 16
    config = json.loads((folder / CONFIG_NAME).read_text())
    (folder / CONFIG_NAME).write_text(json.dumps({**config, "d_model": 32}))  # config claims D = 32
    with pytest.raises(CheckpointError, match=f"{WEIGHTS_NAME} does not fit {CONFIG_NAME}") as err:
        load_model(folder)
    assert "size mismatch" in str(err.value) or "shape" in str(err.value)


def test_weights_of_another_architecture_are_refused(isolated):
    folder = checkpoint(isolated / "c", n_layers=1)
    config = json.loads((folder / CONFIG_NAME).read_text())
    (folder / CONFIG_NAME).write_text(json.dumps({**config, "n_layers": 2}))  # layer 1 has no weights
    with pytest.raises(CheckpointError, match="missing"):
        load_model(folder)


def test_truncated_weights_are_refused(isolated):
    folder = checkpoint(isolated / "c")
    data = (folder / WEIGHTS_NAME).read_bytes()
    for cut in (len(data) // 2, 20, 4):
        (folder / WEIGHTS_NAME).write_bytes(data[:cut])
        with pytest.raises(CheckpointError, match=WEIGHTS_NAME):
            load_model(folder)


# ---------------------------------------------------------------------------- names → folders
def test_default_checkpoint_missing_names_the_training_command(isolated, monkeypatch):
    monkeypatch.setattr(hub, "CHECKPOINTS_DIR", isolated / "checkpoints")
    for name in (None, "seed000"):
        with pytest.raises(CheckpointError, match="python -m transformer_viz train --preset seed000") as err:
            resolve_checkpoint(name)
        assert "git checkout -- checkpoints/seed000" in str(err.value)
    folder = checkpoint(isolated / "checkpoints" / "seed000")
    assert resolve_checkpoint(None) == folder == resolve_checkpoint("seed000")
    assert load_model().name == "seed000"


def test_model_environment_variable_chooses_the_default(isolated, monkeypatch):
    monkeypatch.setattr(hub, "CHECKPOINTS_DIR", isolated / "checkpoints")
    folder = checkpoint(isolated / "elsewhere")
    monkeypatch.setenv("TRANSFORMER_VIZ_MODEL", str(folder))
    assert resolve_checkpoint(None) == folder


@pytest.mark.parametrize(
    "name", ["a/b/c", "../x", "", "   ", "/nonexistent", "owner/", "/name", "owner/name.git", "a/.."]
)
def test_invalid_names_are_refused(isolated, name):
    with pytest.raises(CheckpointError):
        load_model(name)


def test_blank_name_is_not_the_current_directory(isolated):
    checkpoint(isolated / ".")  # even with a checkpoint right here, "" must not silently mean "."
    for blank in ("", "  "):
        with pytest.raises(CheckpointError, match="no model given"):
            resolve_checkpoint(blank)


def test_repo_id_syntax():
    assert is_repo_id("owner/name") and is_repo_id("Helsinki-NLP/opus-mt_en.de")
    for bad in ("a/b/c", "../x", "", "name", "owner/", "-x/y", "x/y.git", "o/..", "a b/c", "owner/na me"):
        assert not is_repo_id(bad), bad


# ---------------------------------------------------------------------------- the Hub cache, offline
def write_hub_cache(cache: Path, repo_id: str, folder: Path) -> Path:
    """Lay `folder` out as huggingface_hub does: blobs by hash, snapshots/<commit>/ symlinks, refs/main."""
    storage = cache / ("models--" + repo_id.replace("/", "--"))
    commit = hashlib.sha1(repo_id.encode()).hexdigest()  # any 40-hex commit id
    snapshot = storage / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (storage / "blobs").mkdir()
    for name in (CONFIG_NAME, WEIGHTS_NAME, TOKENIZER_NAME):
        data = (folder / name).read_bytes()
        blob = storage / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snapshot / name).symlink_to(os.path.relpath(blob, snapshot))
    (storage / "refs").mkdir()
    (storage / "refs" / "main").write_text(commit)  # no newline, as the Hub client writes it
    return snapshot


@pytest.fixture
def offline_cache(isolated, monkeypatch):
    """An empty HF cache, offline; huggingface_hub read its constants at import, so patch them too."""
    cache = isolated / "hf-cache"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    calls = []
    real = huggingface_hub.snapshot_download

    def local_only(*args, **kwargs):  # proves no download is ever attempted
        calls.append(kwargs)
        assert kwargs.get("local_files_only"), "tried to reach the Hub while offline"
        return real(*args, **kwargs)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", local_only)
    return cache, calls


def test_repo_id_loads_from_the_offline_cache_bit_for_bit(offline_cache):
    cache, calls = offline_cache
    original = tiny_translator("seed004", tie_embeddings=True)
    folder = save_checkpoint(cache.parent / "source", original.model, tiny_tokenizer_file())
    snapshot = write_hub_cache(cache, "owner/name", folder)
    assert resolve_checkpoint("owner/name").resolve() == snapshot.resolve()
    tr = load_model("owner/name", device="cpu")
    assert tr.name == "owner/name"
    assert torch.equal(outputs(tr.model), outputs(original.model))
    assert tr.translate(SENTENCE, max_new_tokens=8) == original.translate(SENTENCE, max_new_tokens=8)
    assert calls and all(c["local_files_only"] for c in calls)


def test_unknown_repo_offline_says_so(offline_cache):
    _, calls = offline_cache
    with pytest.raises(CheckpointError, match="HF_HUB_OFFLINE") as err:
        load_model("nobody/no-such-model")
    assert "nobody/no-such-model" in str(err.value)
    assert len(calls) == 1


def test_an_incomplete_cached_snapshot_is_not_a_checkpoint(offline_cache):
    """A snapshot holding only the card (`hf download owner/name README.md`) is not loaded as if it were whole."""
    cache, calls = offline_cache
    folder = checkpoint(cache.parent / "source")
    snapshot = write_hub_cache(cache, "owner/name", folder)
    (snapshot / WEIGHTS_NAME).unlink()
    with pytest.raises(
        CheckpointError, match=rf"owner/name lacks \['{WEIGHTS_NAME}'\] in the local Hugging Face cache"
    ):
        resolve_checkpoint("owner/name")
    assert len(calls) == 1  # and, offline, no download was tried


def test_a_misspelt_local_folder_is_named_as_such(offline_cache):
    """'checkpoints/seed001' looks like a repo id.

    When 'checkpoints' is a folder here, the error says it lacks the name.
    """
    checkpoint(Path("checkpoints") / "seed000")
    with pytest.raises(
        CheckpointError, match=r"no checkpoint folder checkpoints/seed001 \(checkpoints has no 'seed001'\)"
    ):
        resolve_checkpoint("checkpoints/seed001")


def test_evaluating_a_hub_model_leaves_the_cache_alone(offline_cache, monkeypatch):
    """The scores of a Hub download are reported, not written into the snapshot (which only the Hub client owns);
    a local folder gets its evaluation.json."""
    from transformer_viz.corpus.ding import Pair
    from transformer_viz.training import evaluate

    cache, _ = offline_cache
    folder = checkpoint(cache.parent / "local")
    snapshot = write_hub_cache(cache, "owner/name", folder)
    pairs = [
        Pair("I see the house.", "Ich sehe das Haus.", "sentence"),
        Pair("We like coffee.", "Wir mögen Kaffee.", "sentence"),
    ]
    monkeypatch.setattr(evaluate, "test_split", lambda folder, limit=0: pairs)
    before = sorted(p.name for p in snapshot.iterdir())
    report = evaluate.evaluate_checkpoint("owner/name", beam_size=2, write_card=False)
    assert report["test_pairs"] == 2 and sorted(p.name for p in snapshot.iterdir()) == before
    evaluate.evaluate_checkpoint(str(folder), beam_size=2, write_card=False)
    assert json.loads((folder / evaluate.EVALUATION_NAME).read_text())["greedy"] == report["greedy"] | {
        "seconds": json.loads((folder / evaluate.EVALUATION_NAME).read_text())["greedy"]["seconds"]
    }


def test_local_folder_wins_over_a_repo_id(offline_cache):
    """'owner/name' that exists as a folder here is that folder, not a Hub lookup."""
    _, calls = offline_cache
    folder = checkpoint(Path("owner") / "name")
    assert resolve_checkpoint("owner/name") == folder
    assert not calls


# ---------------------------------------------------------------------------- push
def test_push_uploads_the_checkpoint_and_what_its_card_links(isolated, uploads):
    """The card shows the learning curve and evaluate reads training.json: both travel with the weights."""
    from transformer_viz.hub.card import CURVE_NAME
    from transformer_viz.training.evaluate import EVALUATION_NAME
    from transformer_viz.training.train import METRICS_NAME, TRAINING_NAME

    folder = checkpoint(isolated / "c")
    for name in (CURVE_NAME, EVALUATION_NAME, METRICS_NAME, TRAINING_NAME, CARD_NAME, "extra.png"):
        (folder / name).write_text("x")
    (folder / "train_state.pt").write_bytes(b"optimizer")  # not for the Hub
    (folder / "notes.txt").write_text("private")
    assert push_to_hub(folder, "owner/name") == "https://huggingface.co/owner/name"
    assert uploads.paths == sorted(
        [
            CONFIG_NAME,
            WEIGHTS_NAME,
            TOKENIZER_NAME,
            CARD_NAME,
            CURVE_NAME,
            EVALUATION_NAME,
            METRICS_NAME,
            TRAINING_NAME,
            "extra.png",
        ]
    )


def test_push_offline_fails_clearly_without_touching_the_network(isolated, monkeypatch):
    folder = checkpoint(isolated / "c")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    class NoNetwork:
        def __init__(self, *args, **kwargs):
            raise AssertionError("push_to_hub tried to reach the Hub while offline")

    monkeypatch.setattr(huggingface_hub, "HfApi", NoNetwork)
    with pytest.raises(CheckpointError, match="HF_HUB_OFFLINE"):
        push_to_hub(folder, "owner/name")
    with pytest.raises(CheckpointError, match="not a Hub repo id"):
        push_to_hub(folder, "a/b/c")
    (folder / TOKENIZER_NAME).unlink()
    with pytest.raises(CheckpointError, match=TOKENIZER_NAME):
        push_to_hub(folder, "owner/name")
