"""Safe loading: nothing in a checkpoint is executed, and a bad one is refused before a model is built.

(Round trips, missing files and the Hub cache are in test_hub.py.)
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

import transformer_viz.hub.hub as hub
from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz import Transformer
from transformer_viz.hub.hub import CONFIG_NAME, TOKENIZER_NAME, WEIGHTS_NAME, CheckpointError, save_checkpoint
from transformer_viz.translator import load_model


class Boom:
    """Unpickling this writes a marker file: proof that a pickle was executed."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pickle code ran"))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRANSFORMER_VIZ_MODEL", raising=False)
    return save_checkpoint(tmp_path / "ckpt", tiny_translator().model, tiny_tokenizer_file())


@pytest.fixture(params=["load_model", "Transformer.from_pretrained"])
def load(request):
    """Both ways in, the Translator's and the Hub class's: each refuses a bad checkpoint the same way."""
    return load_model if request.param == "load_model" else Transformer.from_pretrained


@pytest.fixture
def no_model_built(monkeypatch):
    """Fail if a real (non-meta) Transformer is built: a bad checkpoint must be refused from its header."""
    from transformer_viz.hub import model as hub_model

    def guarded_class(real):
        def guarded(config):
            assert torch.empty(0).device.type == "meta", "a model was allocated before the checkpoint was checked"
            return real(config)

        return guarded

    # the plain class that hub.py builds on the meta device to read the shapes, and the class every loader builds
    monkeypatch.setattr(hub.plain, "Transformer", guarded_class(hub.plain.Transformer))
    monkeypatch.setattr(hub_model, "Transformer", guarded_class(hub_model.Transformer))


def test_pickles_beside_the_safetensors_are_never_opened(folder, tmp_path):
    marker = tmp_path / "marker"
    for name in ("pytorch_model.bin", "train_state.pt", "model.ckpt"):
        (folder / name).write_bytes(pickle.dumps(Boom(marker)))
    assert isinstance(load_model(folder).translate("I see the house.", max_new_tokens=3), str)
    assert isinstance(Transformer.from_pretrained(folder), Transformer)
    assert not marker.exists()


def test_a_folder_of_only_pickles_is_refused_without_opening_them(folder, tmp_path, load):
    marker = tmp_path / "marker"
    (folder / WEIGHTS_NAME).unlink()
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(Boom(marker)))
    with pytest.raises(CheckpointError, match="pickle weights can run code"):
        load(folder)
    assert not marker.exists()


def test_a_pickle_renamed_to_safetensors_is_refused(folder, tmp_path, load):
    marker = tmp_path / "marker"
    (folder / WEIGHTS_NAME).write_bytes(pickle.dumps(Boom(marker)))
    with pytest.raises(CheckpointError, match=f"{WEIGHTS_NAME} is not a readable safetensors file"):
        load(folder)
    assert not marker.exists()


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("src_vocab_size", 10**9, f"{WEIGHTS_NAME} does not fit {CONFIG_NAME}"),
        ("d_model", 2**16, f"{WEIGHTS_NAME} does not fit {CONFIG_NAME}"),
        ("n_layers", 10**4, "n_layers=10000 but the file has 2 layers per stack"),
        ("max_len", 10**8, "max_len=100,000,000 is more positions"),  # a built table, not a weight the file could check
    ],
)
def test_a_config_claiming_a_huge_model_is_refused_before_allocating_it(
    folder, no_model_built, field, value, message, load
):
    config = json.loads((folder / CONFIG_NAME).read_text())
    (folder / CONFIG_NAME).write_text(json.dumps({**config, field: value}))
    with pytest.raises(CheckpointError, match=message):
        load(folder)


def test_a_shape_mismatch_names_the_tensor_and_both_shapes(folder, no_model_built, load):
    tensors = load_file(str(folder / WEIGHTS_NAME))
    name = "decoder.layers.1.ffn.w_1.weight"
    tensors[name] = torch.zeros(65, 32)  # the config says (d_ff, d_model) = (64, 32)
    save_file(tensors, str(folder / WEIGHTS_NAME))
    with pytest.raises(CheckpointError, match=rf"'{name}': the file has \[65, 32\], the config needs \[64, 32\]"):
        load(folder)


def test_missing_and_extra_tensors_are_named(folder, no_model_built, load):
    tensors = load_file(str(folder / WEIGHTS_NAME))
    name = "decoder.layers.1.ffn.w_1.weight"
    save_file({k: v for k, v in tensors.items() if k != name}, str(folder / WEIGHTS_NAME))
    with pytest.raises(CheckpointError, match=f"missing tensor '{name}'"):
        load(folder)
    save_file({**tensors, "decoder.ffn.w_1.weight": tensors[name].clone()}, str(folder / WEIGHTS_NAME))
    with pytest.raises(CheckpointError, match=r"unexpected tensors \['decoder.ffn.w_1.weight'\]"):
        load(folder)


def test_integer_weights_are_refused(folder, no_model_built, load):
    tensors = load_file(str(folder / WEIGHTS_NAME))
    name = sorted(tensors)[0]
    tensors[name] = tensors[name].to(torch.int32)
    save_file(tensors, str(folder / WEIGHTS_NAME))
    with pytest.raises(CheckpointError, match="not a floating-point weight"):
        load(folder)


def test_an_oversized_or_undecodable_config_is_refused(folder, no_model_built, load):
    path = folder / CONFIG_NAME
    path.write_text(json.dumps({"name": "x" * (hub.MAX_CONFIG_BYTES + 1)}))
    with pytest.raises(CheckpointError, match="not a config"):
        load(folder)
    path.write_bytes(b'{"name": "\xff\xfe"}')
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load(folder)
    path.write_text("[" * 100_000 + "]" * 100_000)  # deep nesting: the JSON parser's recursion limit
    with pytest.raises(CheckpointError):
        load(folder)


@pytest.mark.parametrize("data", [b"", b"garbage", b"\x00" * 64])
def test_a_broken_tokenizer_is_a_clear_error(folder, data):
    (folder / TOKENIZER_NAME).write_bytes(data)
    with pytest.raises(ValueError, match=rf"{TOKENIZER_NAME}: not a SentencePiece model"):
        load_model(folder)


def test_the_header_check_accepts_every_preset_and_tying(tmp_path):
    for preset in ("seed000", "seed004"):
        for tie in ({}, {"tie_embeddings": True, "share_embeddings": True}):
            model = tiny_translator(preset, **tie).model
            ckpt = save_checkpoint(tmp_path / f"{preset}-{len(tie)}", model)
            hub.check_weights_fit(model.config, ckpt / WEIGHTS_NAME)  # tied tensors are stored once: no error
