"""Hub conventions: Transformer.from_pretrained / save_pretrained / push_to_hub and Translator.from_pretrained.

The files are today's checkpoint folders (config.json, model.safetensors); the Hub cache is hand-made and offline.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from types import SimpleNamespace

import huggingface_hub
import huggingface_hub.hub_mixin
import pytest
import torch
from huggingface_hub import ModelCard

import transformer_viz
import transformer_viz.hub.hub as hub
from tests import test_hub
from tests.test_hub import SENTENCE, checkpoint, outputs, write_hub_cache
from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz import Transformer, Translator
from transformer_viz.hub.hub import (
    CARD_NAME,
    CHECKPOINTS_DIR,
    CONFIG_NAME,
    TOKENIZER_NAME,
    WEIGHTS_NAME,
    CheckpointError,
    save_checkpoint,
)
from transformer_viz.hub.model import load_transformer
from transformer_viz.model import transformer as plain
from transformer_viz.translator import load_model

isolated, offline_cache = test_hub.isolated, test_hub.offline_cache  # the fixtures: an empty folder, the offline cache


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    ours, theirs = a.state_dict(), b.state_dict()
    return ours.keys() == theirs.keys() and all(torch.equal(ours[k].cpu(), theirs[k].cpu()) for k in ours)


def tokens(translator: Translator) -> list[int]:
    return translator.trace(SENTENCE, max_new_tokens=8).target_ids


def perturbed(preset: str = "seed000", **sharing) -> Transformer:
    """A tiny model whose every parameter differs from a fresh init, biases and norms included."""
    model = tiny_translator(preset, **sharing).model
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    return model


def test_the_public_class_is_the_plain_model_with_the_hub_methods(tmp_path):
    assert issubclass(Transformer, plain.Transformer) and Transformer is not plain.Transformer
    assert issubclass(Transformer, huggingface_hub.PyTorchModelHubMixin)
    assert not hasattr(plain.Transformer, "from_pretrained")  # what a learner reads knows nothing of the Hub
    assert transformer_viz.Transformer is Transformer
    assert isinstance(load_transformer(checkpoint(tmp_path / "c")), Transformer)  # what every loader returns


@pytest.mark.parametrize("name", ["seed000", "seed004"])
def test_bundled_checkpoints_load_through_from_pretrained(name):
    model = Transformer.from_pretrained(CHECKPOINTS_DIR / name)
    assert type(model) is Transformer and not model.training
    assert same_weights(model, load_transformer(CHECKPOINTS_DIR / name))
    assert same_weights(Transformer.from_pretrained(name), model)  # a bundled name, as load_model takes it
    translator = Translator.from_pretrained(name, device="cpu")
    assert translator.name == name and isinstance(translator.model, Transformer)
    assert tokens(translator) == tokens(load_model(name, device="cpu"))


def test_a_save_checkpoint_folder_loads_through_from_pretrained(isolated):
    original = tiny_translator("seed004", tie_embeddings=True)
    folder = save_checkpoint(isolated / "mine", original.model, tiny_tokenizer_file())
    model = Transformer.from_pretrained(str(folder))
    assert model.config == original.model.config and same_weights(model, original.model)
    translator = Translator.from_pretrained(folder, device="cpu")
    assert translator.name == "mine"
    assert tokens(translator) == tokens(load_model(folder, device="cpu")) == tokens(original)


def test_a_cached_repo_id_loads_offline_like_load_model(offline_cache):
    cache, calls = offline_cache
    original = tiny_translator("seed000", share_embeddings=True, tie_embeddings=True)
    snapshot = write_hub_cache(
        cache, "owner/name", save_checkpoint(cache.parent / "src", original.model, tiny_tokenizer_file())
    )
    model = Transformer.from_pretrained("owner/name")
    assert same_weights(model, original.model) and model.encoder.embed is model.decoder.embed
    translator = Translator.from_pretrained("owner/name")
    assert translator.name == "owner/name"
    assert tokens(translator) == tokens(load_model("owner/name")) == tokens(original)
    commit = snapshot.name  # a revision names the snapshot; one the cache lacks is refused, offline
    assert same_weights(Transformer.from_pretrained("owner/name", revision=commit), original.model)
    with pytest.raises(CheckpointError, match="HF_HUB_OFFLINE"):
        Transformer.from_pretrained("owner/name", revision="0" * 40)
    assert calls and all(c["local_files_only"] for c in calls)


def test_cache_dir_and_local_files_only_are_honoured(offline_cache, monkeypatch):
    cache, calls = offline_cache
    other = cache.parent / "other-cache"
    original = tiny_translator("seed000")
    write_hub_cache(other, "owner/name", save_checkpoint(cache.parent / "src", original.model, tiny_tokenizer_file()))
    with pytest.raises(CheckpointError, match="not in the local Hugging Face cache"):
        Transformer.from_pretrained("owner/name")  # the default cache is empty
    assert same_weights(Transformer.from_pretrained("owner/name", cache_dir=other, map_location="auto"), original.model)
    with pytest.raises(CheckpointError, match="HF_HUB_OFFLINE"):  # force_download skips the cache, and cannot go online
        Transformer.from_pretrained("owner/name", cache_dir=other, force_download=True)
    monkeypatch.delenv("HF_HUB_OFFLINE")  # online, but told to stay local: no download is tried
    with pytest.raises(CheckpointError, match="local_files_only is set"):
        Transformer.from_pretrained("owner/name", local_files_only=True)
    assert all(c["local_files_only"] for c in calls)


@pytest.mark.parametrize("preset", ["seed000", "seed004"])
@pytest.mark.parametrize(
    "sharing", [{}, {"tie_embeddings": True, "share_embeddings": True}], ids=["separate", "shared"]
)
def test_save_pretrained_writes_todays_files_and_loads_back_identically(tmp_path, preset, sharing):
    model = perturbed(preset, **sharing)
    reference = save_checkpoint(tmp_path / "reference", model)
    model.save_pretrained(tmp_path / "pretrained")
    for name in (CONFIG_NAME, WEIGHTS_NAME):  # byte for byte what save_checkpoint writes
        assert (tmp_path / "pretrained" / name).read_bytes() == (reference / name).read_bytes(), name
    loaded = Transformer.from_pretrained(tmp_path / "pretrained")
    assert loaded.config == model.config and same_weights(loaded, model)
    assert torch.equal(outputs(loaded), outputs(model))
    if sharing:  # still one tensor after loading, not two copies
        assert loaded.decoder.generator.weight is loaded.decoder.embed.lookup.weight


def test_save_pretrained_adds_a_card_but_never_replaces_one(tmp_path):
    model = tiny_translator().model
    folder = tmp_path / "new"
    model.save_pretrained(folder)
    assert sorted(p.name for p in folder.iterdir()) == [CARD_NAME, CONFIG_NAME, WEIGHTS_NAME]
    card = ModelCard.load(folder / CARD_NAME)
    assert card.data.library_name == "transformer-viz" and card.data.pipeline_tag == "translation"
    assert f"{model.num_parameters():,} parameters" in card.text and "Transformer.from_pretrained" in card.text
    (folder / CARD_NAME).write_text("the card training wrote\n")
    model.save_pretrained(folder)
    assert (folder / CARD_NAME).read_text() == "the card training wrote\n"


def test_a_save_pretrained_folder_loads_with_load_model(isolated):
    original = tiny_translator("seed004")
    folder = isolated / "saved"
    original.model.save_pretrained(folder)
    shutil.copyfile(tiny_tokenizer_file(), folder / TOKENIZER_NAME)
    translator = load_model(folder, device="cpu")
    assert same_weights(translator.model, original.model)
    assert tokens(translator) == tokens(original)


def test_push_to_hub_uploads_the_config_and_the_weights(tmp_path, monkeypatch):
    model = perturbed("seed004", tie_embeddings=True)
    reference = save_checkpoint(tmp_path / "reference", model)
    calls = {}

    class RecordingApi:
        def __init__(self, token=None):
            calls["token"] = token

        def create_repo(self, repo_id, private=None, exist_ok=False, **kwargs):
            calls["created"] = (repo_id, private, exist_ok)
            return SimpleNamespace(repo_id=repo_id)

        def upload_folder(self, *, repo_id, folder_path, **kwargs):
            calls["repo_id"] = repo_id
            calls["files"] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in Path(folder_path).iterdir()}
            return f"https://huggingface.co/{repo_id}/commit/abc"

    monkeypatch.setattr(huggingface_hub.hub_mixin, "HfApi", RecordingApi)
    url = model.push_to_hub("owner/name", private=True, token="hf_test")
    assert url == "https://huggingface.co/owner/name/commit/abc"
    assert calls["token"] == "hf_test" and calls["created"] == ("owner/name", True, True)
    assert calls["repo_id"] == "owner/name" and sorted(calls["files"]) == [CARD_NAME, CONFIG_NAME, WEIGHTS_NAME]
    for name in (CONFIG_NAME, WEIGHTS_NAME):
        assert calls["files"][name] == hashlib.sha256((reference / name).read_bytes()).hexdigest(), name


def test_the_cli_push_still_uploads_the_whole_folder_not_the_mixins_save(tmp_path, uploads, monkeypatch):
    """`python -m transformer_viz push` sends the folder as it is, card and tokenizer included."""
    folder = checkpoint(tmp_path / "c")
    (folder / CARD_NAME).write_text("the card training wrote\n")
    monkeypatch.setattr(Transformer, "save_pretrained", lambda *a, **k: pytest.fail("the CLI push re-saved the model"))
    hub.push_to_hub(folder, "owner/name")
    assert uploads.folder == folder and (folder / CARD_NAME).read_text() == "the card training wrote\n"
