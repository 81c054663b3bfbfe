"""Put the app on Hugging Face Spaces: one Space that holds the app, its pinned requirements and the bundled models.

The Space is made with `create_repo(repo_type="space", space_sdk="gradio")` and filled with one `upload_folder`
from this checkout: app.py, requirements.txt, README.md (whose front matter configures the Space), the package
and every bundled checkpoint with its records and snapshots. `upload_folder` stores each file over the Hub's
10 MB limit for plain git through LFS itself; the Space also gets the `.gitattributes` that marks the weights
and tokenizers as LFS, so that a later `git push` to it stores them the same way.
"""

from __future__ import annotations

import logging
from pathlib import Path

from .card import ATTRIBUTION_NAME
from .hub import (
    CARD_NAME,
    CHECKPOINT_FILES,
    RECORD_FILES,
    CheckpointError,
    check_upload,
    snapshot_patterns,
)

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the checkout: app.py, requirements.txt, README.md
# What the Space runs: the entry point, its pins, the README whose front matter says `sdk: gradio`, the licence,
# and the package (its Python and JavaScript files and its catalogues of words; caches and tests never).
APP_FILES = ("app.py", "requirements.txt", CARD_NAME, "LICENSE")
PACKAGE_PATTERNS = (
    "transformer_viz/*.py",
    "transformer_viz/*.js",
    "transformer_viz/*.css",
    "transformer_viz/i18n/catalogues/*.json",
)
IGNORE_PATTERNS = ("*/__pycache__/*", "*.pyc")
# Files stored through LFS on the Hub, as Hugging Face's own Spaces mark them.
LFS_PATTERNS = ("*.safetensors", "*.model")


def gitattributes() -> str:
    """The Space's .gitattributes: every LFS_PATTERNS file through LFS, never diffed or merged as text."""
    return "".join(f"{pattern} filter=lfs diff=lfs merge=lfs -text\n" for pattern in LFS_PATTERNS)


def bundled_checkpoints(root: Path) -> list[Path]:
    """The checkpoint folders under root/checkpoints (those with every CHECKPOINT_FILES file), by name."""
    folder = root / "checkpoints"
    found = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return [p for p in found if all((p / name).is_file() for name in CHECKPOINT_FILES)]


def space_patterns(root: Path) -> list[str]:
    """upload_folder's allow patterns: the app's files and, for each bundled checkpoint, its weights, config,
    tokenizer, card, corpus credits, records and (within MAX_SNAPSHOTS_BYTES) snapshots."""
    patterns = [*APP_FILES, *PACKAGE_PATTERNS]
    for folder in bundled_checkpoints(root):
        where = f"checkpoints/{folder.name}"
        files = [*CHECKPOINT_FILES, CARD_NAME, ATTRIBUTION_NAME, *RECORD_FILES, *snapshot_patterns(folder)]
        patterns += [f"{where}/{name}" for name in files]
    return patterns


def deploy_space(repo_id: str, root: str | Path = PROJECT_ROOT, private: bool = False, token: str | None = None) -> str:
    """Create (or update) the Gradio Space `repo_id` from the checkout at `root`; returns the Space's URL."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    root = Path(root)
    missing = [name for name in ("app.py", "requirements.txt", CARD_NAME) if not (root / name).is_file()]
    if missing:
        raise CheckpointError(f"{root} is not a transformer-viz checkout: it lacks {missing} (run from a clone)")
    if not bundled_checkpoints(root):
        raise CheckpointError(f"{root / 'checkpoints'} holds no checkpoint: the Space would have no model to show")
    check_upload(repo_id, "Space id", "deploying")
    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.upload_file(
            path_or_fileobj=gitattributes().encode(),
            path_in_repo=".gitattributes",
            repo_id=repo_id,
            repo_type="space",
            commit_message="LFS for weights and tokenizers",
        )
        api.upload_folder(
            folder_path=str(root),
            repo_id=repo_id,
            repo_type="space",
            allow_patterns=space_patterns(root),
            ignore_patterns=list(IGNORE_PATTERNS),
            commit_message="transformer-viz: the app and its bundled checkpoints",
        )
    except (HfHubHTTPError, OSError) as err:
        raise CheckpointError(
            f"could not deploy to {repo_id}: {str(err).splitlines()[0][:300]} (network? token?)"
        ) from None
    log.info("deployed %s", repo_id)
    return f"https://huggingface.co/spaces/{repo_id}"
