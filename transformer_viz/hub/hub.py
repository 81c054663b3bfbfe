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
from typing import TypeVar

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_model as load_safetensors_into
from safetensors.torch import save_file

from ..errors import UserError
from ..model import transformer as plain
from ..model.config import TransformerConfig
from .files import replace_file

M = TypeVar("M", bound=plain.Transformer)  # the model class a checkpoint is loaded into

log = logging.getLogger(__name__)

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.safetensors"
TOKENIZER_NAME = "tokenizer.model"
CARD_NAME = "README.md"
# What the Hub files every checkpoint under: the library, languages, pipeline and tags of its card (card.py) and of
# the card save_pretrained writes (model.py's mixin).
LIBRARY, LANGUAGES, PIPELINE = "transformer-viz", ["en", "de"], "translation"
TAGS = ["translation", "transformer", "education"]
CHECKPOINT_FILES = (CONFIG_NAME, WEIGHTS_NAME, TOKENIZER_NAME)
# How the checkpoint was made and how it scores (train.py, evaluate.py and card.py write them; the card links the
# curve and evaluate reads the seed and corpus of the split): pushed and fetched with the checkpoint when present.
RECORD_FILES = ("training.json", "metrics.jsonl", "evaluation.json", "learning_curve.svg")
# Weights along the run (training/snapshots.py), never read by the loader; they travel with the checkpoint when
# all of them fit in MAX_SNAPSHOTS_BYTES.
SNAPSHOTS_DIR = "snapshots"
SNAPSHOT_FILES = (f"{SNAPSHOTS_DIR}/index.json", f"{SNAPSHOTS_DIR}/step-*.safetensors")
MAX_SNAPSHOTS_BYTES = 80 * 10**6  # five fp16 snapshots of a 7.6 M-parameter model (15 MB each)
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
# The bundled checkpoints; TRANSFORMER_VIZ_CHECKPOINTS points the app and load_model() at another folder.
CHECKPOINTS_DIR = Path(
    os.environ.get("TRANSFORMER_VIZ_CHECKPOINTS") or Path(__file__).resolve().parents[2] / "checkpoints"
)
DEFAULT_CHECKPOINT = "seed000"
MAX_CONFIG_BYTES = 64 * 1024  # a config.json is a few hundred bytes; anything huge is not one
FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")  # safetensors' names for the dtypes a weight may have
# max_len sizes the sinusoidal table, a buffer that is built, not loaded: the weights cannot vouch for it.
MAX_POSITIONS = 1 << 16


class CheckpointError(ValueError):
    """A checkpoint that cannot be used; the message says what is wrong and how to fix it."""


class CheckpointNotFound(UserError, CheckpointError):
    """No checkpoint by that name, folder or repo id: a user's mistake, by key (transformer_viz.errors)."""


def save_checkpoint(folder: str | Path, model: plain.Transformer, tokenizer_file: str | Path | None = None) -> Path:
    """Write config.json + model.safetensors (+ a copy of tokenizer.model) into `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config_text = json.dumps(model.config.to_dict(), indent=2) + "\n"
    replace_file(folder / CONFIG_NAME, lambda tmp: tmp.write_text(config_text))
    replace_file(folder / WEIGHTS_NAME, lambda tmp: save_weights(model, tmp))
    if tokenizer_file is not None and Path(tokenizer_file).resolve() != (folder / TOKENIZER_NAME).resolve():
        replace_file(folder / TOKENIZER_NAME, lambda tmp: shutil.copyfile(tokenizer_file, tmp))
    return folder


def save_weights(model: plain.Transformer, path: Path) -> None:
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
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise CheckpointError(f"{path} is {path.stat().st_size:,} bytes, not a config (at most {MAX_CONFIG_BYTES:,})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise CheckpointError(f"{path} is not valid JSON: {str(err)[:200]}") from None
    try:
        config = TransformerConfig.from_dict(data)
    except (ValueError, TypeError) as err:
        raise CheckpointError(f"{path}: {err}") from None
    if config.max_len > MAX_POSITIONS:
        raise CheckpointError(
            f"{path}: max_len={config.max_len:,} is more positions than any checkpoint needs "
            f"(at most {MAX_POSITIONS:,})"
        )
    return config


def load_checked(folder: str | Path, model_class: type[M], device: str | torch.device = "cpu") -> M:
    """Build `model_class` from config.json and fill it from model.safetensors (strict: every tensor, right shapes).

    hub/model.py's load_transformer builds the Hub-ready class with it; this module never imports that class."""
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
    check_weights_fit(config, weights)  # from the file's header, before any memory is allocated
    model = model_class(config)
    try:
        missing, unexpected = load_safetensors_into(model, str(weights), strict=False, device=str(device))
    except (SafetensorError, RuntimeError, OSError) as err:  # truncated file, shape mismatch
        raise CheckpointError(f"{weights} does not fit {CONFIG_NAME}: {str(err).splitlines()[0][:400]}") from None
    if missing or unexpected:
        raise CheckpointError(
            f"{weights} does not fit {CONFIG_NAME}: missing {sorted(missing)[:5]}, unexpected {sorted(unexpected)[:5]}"
        )
    return model.to(device).eval()


def expected_shapes(config: TransformerConfig) -> list[tuple[list[str], tuple[int, ...]]]:
    """Every parameter the config's model has, as (its names, shape); tied tensors have several names.

    Built on the meta device: shapes only, no memory, whatever sizes the config claims.
    """
    with torch.device("meta"):
        model = plain.Transformer(config)
    groups: dict[int, tuple[list[str], tuple[int, ...]]] = {}
    for name, tensor in model.state_dict(keep_vars=True).items():
        groups.setdefault(id(tensor), ([], tuple(tensor.shape)))[0].append(name)
    return list(groups.values())


def check_weights_fit(config: TransformerConfig, weights: Path) -> None:
    """Compare the safetensors header (names, shapes, dtypes) with the model config.json describes."""
    try:
        with safe_open(str(weights), framework="pt") as f:  # reads the JSON header only
            header = {name: (tuple(f.get_slice(name).get_shape()), f.get_slice(name).get_dtype()) for name in f.keys()}
    except (SafetensorError, OSError, ValueError) as err:  # not a safetensors file, or a truncated one
        raise CheckpointError(
            f"{weights} is not a readable safetensors file: {str(err).splitlines()[0][:300]}"
        ) from None
    where = f"{weights} does not fit {CONFIG_NAME}"
    # Layer count first, from the names alone: building even a meta model of 10,000 layers takes minutes.
    layers = {int(m.group(1)) for name in header if (m := re.match(r"(?:en|de)coder\.layers\.(\d+)\.", name))}
    if len(layers) != config.n_layers:
        raise CheckpointError(
            f"{where}: the config says n_layers={config.n_layers} but the file has {len(layers)} "
            f"layers per stack (layers missing or extra)"
        )
    known = set()
    for names, shape in expected_shapes(config):
        known.update(names)
        present = [n for n in names if n in header]
        if not present:
            raise CheckpointError(f"{where}: missing tensor {names[0]!r} of shape {list(shape)}")
        for name in present:
            found, dtype = header[name]
            if found != shape:
                raise CheckpointError(
                    f"{where}: size mismatch for {name!r}: the file has {list(found)}, the config needs {list(shape)}"
                )
            if dtype not in FLOAT_DTYPES:
                raise CheckpointError(f"{where}: {name!r} is {dtype}, not a floating-point weight")
    unexpected = sorted(set(header) - known)
    if unexpected:
        raise CheckpointError(f"{where}: unexpected tensors {unexpected[:5]} (another architecture?)")


def is_repo_id(name: str) -> bool:
    """'owner/name' in the Hub's alphabet (letters, digits, - _ .), not a path that exists here."""
    return bool(REPO_ID.match(name)) and ".." not in name and not name.endswith(".git")


def resolve_checkpoint(name_or_path: str | os.PathLike | None = None, **hub_options) -> Path:
    """A folder on disk for: nothing (the default bundled checkpoint), a bundled name, a path, or a Hub repo id.

    `hub_options` (revision, cache_dir, token, force_download, local_files_only) go to download() for a repo id.
    """
    if name_or_path is None:
        name_or_path = os.environ.get("TRANSFORMER_VIZ_MODEL") or DEFAULT_CHECKPOINT
    text = str(name_or_path)
    if not text.strip():  # Path("") is the current directory: never load that by accident
        raise CheckpointNotFound("err-no-model-given")
    path = Path(text).expanduser()
    if path.is_dir():
        return path
    if (CHECKPOINTS_DIR / text).is_dir():
        return CHECKPOINTS_DIR / text
    if text == DEFAULT_CHECKPOINT:
        raise CheckpointNotFound("err-default-missing", name=DEFAULT_CHECKPOINT, preset="seed000")
    if is_repo_id(text) and not path.exists():
        try:
            return download(text, **hub_options)
        except CheckpointError as err:
            if path.parent.is_dir():  # "checkpoints/seed001": most likely a local folder misspelt
                raise CheckpointNotFound(
                    "err-no-folder", name=text, parent=str(path.parent), missing=path.name, reason=err
                ) from None
            raise
    raise CheckpointNotFound("err-unknown-model", name=text)


def download(
    repo_id: str,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    token: str | bool | None = None,
    force_download: bool = False,
    local_files_only: bool = False,
) -> Path:
    """The repo's checkpoint files from the local Hub cache first (unless force_download), then the Hub if online."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    patterns = list(CHECKPOINT_FILES) + [CARD_NAME, *RECORD_FILES, *SNAPSHOT_FILES]
    where_from = dict(revision=revision, allow_patterns=patterns, cache_dir=cache_dir)
    missing = list(CHECKPOINT_FILES)
    try:
        if not force_download:
            cached = Path(snapshot_download(repo_id, **where_from, local_files_only=True))
            missing = [f for f in CHECKPOINT_FILES if not (cached / f).is_file()]
            if not missing:
                return cached
    except (LocalEntryNotFoundError, FileNotFoundError):
        pass
    offline = hub_offline()
    if offline or local_files_only:
        switch = "HF_HUB_OFFLINE" if offline else "local_files_only"
        if len(missing) == len(CHECKPOINT_FILES):
            raise CheckpointNotFound("err-repo-offline", repo=repo_id, switch=switch)
        raise CheckpointNotFound("err-repo-offline-partial", repo=repo_id, missing=missing, switch=switch)
    try:
        folder = Path(snapshot_download(repo_id, **where_from, token=token, force_download=force_download))
    except RepositoryNotFoundError:
        raise CheckpointNotFound("err-repo-not-found", repo=repo_id) from None
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as err:
        raise CheckpointNotFound("err-repo-download", repo=repo_id, reason=str(err).splitlines()[0][:300]) from None
    missing = [f for f in CHECKPOINT_FILES if not (folder / f).is_file()]
    if missing:
        raise CheckpointNotFound("err-repo-not-checkpoint", repo=repo_id, missing=missing)
    return folder


def hub_offline() -> bool:
    """Whether HF_HUB_OFFLINE switches the network off, read as the Hub client reads it."""
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def check_upload(repo_id: str, what: str, doing: str) -> None:
    """Refuse, before any network call, an upload to a malformed id or with the Hub switched off."""
    if not is_repo_id(repo_id):
        raise CheckpointError(f"{repo_id!r} is not a {what} like 'owner/name'")
    if hub_offline():
        raise CheckpointError(f"HF_HUB_OFFLINE is set: {doing} needs network access; unset it and try again")


def snapshot_patterns(folder: Path) -> list[str]:
    """The snapshots/ files to push: all of them when they fit in MAX_SNAPSHOTS_BYTES, else none (with a warning)."""
    files = [p for p in (folder / SNAPSHOTS_DIR).glob("*") if any(p.match(f) for f in SNAPSHOT_FILES)]
    size = sum(p.stat().st_size for p in files)
    if size > MAX_SNAPSHOTS_BYTES:
        log.warning(
            "%s/ holds %.1f MB of weight snapshots, more than the %d MB pushed with a checkpoint: left out "
            "(train with fewer --snapshots)",
            folder / SNAPSHOTS_DIR,
            size / 10**6,
            MAX_SNAPSHOTS_BYTES // 10**6,
        )
        return []
    return list(SNAPSHOT_FILES) if files else []


def push_to_hub(folder: str | Path, repo_id: str, private: bool = False, token: str | None = None) -> str:
    """Upload a checkpoint folder to the Hub (token from HF_TOKEN or `hf auth login`); returns the repo URL."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    folder = Path(folder)
    missing = [f for f in CHECKPOINT_FILES if not (folder / f).is_file()]
    if missing:
        raise CheckpointError(f"{folder} is not a checkpoint folder: it lacks {missing}")
    check_upload(repo_id, "Hub repo id", "pushing")
    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, private=private, exist_ok=True)
        api.upload_folder(
            folder_path=str(folder),
            repo_id=repo_id,
            allow_patterns=list(CHECKPOINT_FILES) + [CARD_NAME, *RECORD_FILES, "*.png", *snapshot_patterns(folder)],
        )
    except (HfHubHTTPError, OSError) as err:
        raise CheckpointError(
            f"could not push to {repo_id}: {str(err).splitlines()[0][:300]} (network? token?)"
        ) from None
    return f"https://huggingface.co/{repo_id}"
