"""Where checkpoints live: a local folder, a Hugging Face Hub repo id, or the offline cache.

A checkpoint is a folder with config.json (TransformerConfig), model.safetensors and
tokenizer.model. Weights are only ever read from safetensors: a pickle (.bin, .pt,
.pth, .ckpt) can run code when loaded, so it is refused, and nothing from a
checkpoint is executed.
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_model as load_safetensors_into
from safetensors.torch import save_file

from .config import TransformerConfig
from .model import Transformer

log = logging.getLogger(__name__)

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.safetensors"
TOKENIZER_NAME = "tokenizer.model"
CARD_NAME = "README.md"
CHECKPOINT_FILES = (CONFIG_NAME, WEIGHTS_NAME, TOKENIZER_NAME)
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
# The bundled checkpoints; TRANSFORMER_VIZ_CHECKPOINTS points the app and load_model() at another folder.
CHECKPOINTS_DIR = Path(os.environ.get("TRANSFORMER_VIZ_CHECKPOINTS") or Path(__file__).resolve().parent.parent / "checkpoints")
DEFAULT_CHECKPOINT = "seed000"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used; the message says what is wrong and how to fix it."""


def save_checkpoint(folder: str | Path, model: Transformer, tokenizer_file: str | Path | None = None) -> Path:
    """Write config.json + model.safetensors (+ a copy of tokenizer.model) into `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_NAME).write_text(json.dumps(model.config.to_dict(), indent=2) + "\n")
    save_weights(model, folder / WEIGHTS_NAME)
    if tokenizer_file is not None and Path(tokenizer_file).resolve() != (folder / TOKENIZER_NAME).resolve():
        shutil.copyfile(tokenizer_file, folder / TOKENIZER_NAME)
    return folder


def save_weights(model: Transformer, path: Path) -> None:
    """model.safetensors, byte for byte the same for the same weights.

    Tied tensors (shared embeddings, output projection) are stored once, under the first of their names in
    sorted order; loading recovers the other names from the model itself. (safetensors' own save_model
    also writes a name → kept-name map into the metadata, a hash map whose order varies between saves.)
    """
    state = model.state_dict()
    kept: dict[tuple, str] = {}
    for name in sorted(state):
        tensor = state[name]
        key = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape), tensor.dtype)
        kept.setdefault(key, name)
    tensors = {name: state[name].detach().contiguous() for name in kept.values()}
    save_file(tensors, str(path), metadata={"format": "pt"})


def load_config(folder: str | Path) -> TransformerConfig:
    """Read and validate config.json before any weights are touched."""
    path = Path(folder) / CONFIG_NAME
    if not path.is_file():
        raise CheckpointError(f"{folder} has no {CONFIG_NAME}; a checkpoint folder needs {', '.join(CHECKPOINT_FILES)}")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise CheckpointError(f"{path} is not valid JSON: {err}") from None
    try:
        return TransformerConfig.from_dict(data)
    except (ValueError, TypeError) as err:
        raise CheckpointError(f"{path}: {err}") from None


def load_transformer(folder: str | Path, device: str | torch.device = "cpu") -> Transformer:
    """Build the model from config.json and fill it from model.safetensors (strict: every tensor, right shapes)."""
    folder = Path(folder)
    weights = folder / WEIGHTS_NAME
    # Pickles first: a folder of .bin weights (e.g. a transformers model) is refused for that, whatever its config.
    if folder.is_dir() and not weights.is_file():
        pickles = sorted(p.name for p in folder.iterdir() if p.suffix in PICKLE_SUFFIXES)
        if pickles:
            raise CheckpointError(
                f"{folder} holds {pickles} but no {WEIGHTS_NAME}: pickle weights can run code when loaded and are "
                f"refused; convert them with safetensors.torch.save_model(model, '{WEIGHTS_NAME}')"
            )
    config = load_config(folder)
    if not weights.is_file():
        raise CheckpointError(f"{folder} has no {WEIGHTS_NAME}")
    model = Transformer(config)
    try:
        missing, unexpected = load_safetensors_into(model, str(weights), strict=False, device=str(device))
    except (SafetensorError, RuntimeError, OSError) as err:  # truncated file, shape mismatch
        raise CheckpointError(f"{weights} does not fit {CONFIG_NAME}: {str(err).splitlines()[0][:400]}") from None
    if missing or unexpected:
        raise CheckpointError(f"{weights} does not fit {CONFIG_NAME}: missing {sorted(missing)[:5]}, unexpected {sorted(unexpected)[:5]}")
    return model.to(device).eval()


def is_repo_id(name: str) -> bool:
    """'owner/name' in the Hub's alphabet (letters, digits, - _ .), not a path that exists here."""
    return bool(REPO_ID.match(name)) and ".." not in name and not name.endswith(".git")


def resolve_checkpoint(name_or_path: str | os.PathLike | None = None) -> Path:
    """A folder on disk for: nothing (the default bundled checkpoint), a bundled name, a path, or a Hub repo id."""
    if name_or_path is None:
        name_or_path = os.environ.get("TRANSFORMER_VIZ_MODEL") or DEFAULT_CHECKPOINT
    text = str(name_or_path)
    if not text.strip():  # Path("") is the current directory: never load that by accident
        raise CheckpointError("no model given: name a checkpoint folder, a bundled name (seed000) or a Hub repo id 'owner/name'")
    path = Path(text).expanduser()
    if path.is_dir():
        return path
    if (CHECKPOINTS_DIR / text).is_dir():
        return CHECKPOINTS_DIR / text
    if text == DEFAULT_CHECKPOINT:
        raise CheckpointError(
            f"the bundled checkpoint checkpoints/{DEFAULT_CHECKPOINT} is missing; train it with "
            f"`python -m transformer_viz train --preset seed000 --out checkpoints/{DEFAULT_CHECKPOINT}`"
        )
    if is_repo_id(text) and not path.exists():
        return download(text)
    raise CheckpointError(f"{text!r} is neither a checkpoint folder nor a Hub repo id like 'owner/name'")


def download(repo_id: str, revision: str | None = None) -> Path:
    """The repo's checkpoint files from the local Hub cache first, then (when online) the Hub."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    patterns = list(CHECKPOINT_FILES) + [CARD_NAME]
    try:
        return Path(snapshot_download(repo_id, revision=revision, allow_patterns=patterns, local_files_only=True))
    except (LocalEntryNotFoundError, FileNotFoundError):
        pass
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise CheckpointError(
            f"{repo_id} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set; "
            f"download it once with network access (`hf download {repo_id}`) or use a local folder"
        )
    try:
        folder = Path(snapshot_download(repo_id, revision=revision, allow_patterns=patterns))
    except RepositoryNotFoundError:
        raise CheckpointError(f"no Hub repository {repo_id!r} (or it is private: log in with `hf auth login`)") from None
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as err:
        raise CheckpointError(f"could not download {repo_id}: {str(err).splitlines()[0][:300]} (offline? use a local folder)") from None
    missing = [f for f in CHECKPOINT_FILES if not (folder / f).is_file()]
    if missing:
        raise CheckpointError(f"Hub repository {repo_id} is not a transformer-viz checkpoint: it lacks {missing}")
    return folder


def push_to_hub(folder: str | Path, repo_id: str, private: bool = False, token: str | None = None) -> str:
    """Upload a checkpoint folder to the Hub (token from HF_TOKEN or `hf auth login`); returns the repo URL."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    folder = Path(folder)
    missing = [f for f in CHECKPOINT_FILES if not (folder / f).is_file()]
    if missing:
        raise CheckpointError(f"{folder} is not a checkpoint folder: it lacks {missing}")
    if not is_repo_id(repo_id):
        raise CheckpointError(f"{repo_id!r} is not a Hub repo id like 'owner/name'")
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise CheckpointError("HF_HUB_OFFLINE is set: pushing needs network access; unset it and try again")
    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, private=private, exist_ok=True)
        api.upload_folder(folder_path=str(folder), repo_id=repo_id, allow_patterns=list(CHECKPOINT_FILES) + [CARD_NAME, "*.png"])
    except (HfHubHTTPError, OSError) as err:
        raise CheckpointError(f"could not push to {repo_id}: {str(err).splitlines()[0][:300]} (network? token?)") from None
    return f"https://huggingface.co/{repo_id}"
