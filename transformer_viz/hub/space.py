"""Put the app on Hugging Face Spaces: one Space that holds the app, its pinned requirements and the bundled models.

The Space is made with `create_repo(repo_type="space", space_sdk="gradio")`. Its first commit holds its README.md
(the checkout's, whose front matter configures the Space, completed for this Space: the thumbnail's address and
the model repos of its checkpoints), the thumbnail image, and the `.gitattributes` that marks the weights and
tokenizers as LFS, so that a later `git push` to it stores them as `upload_folder` does. One `upload_folder` from
this checkout then adds app.py, requirements.txt, the package and every bundled checkpoint with its records and
snapshots (`upload_folder` stores each file over the Hub's 10 MB limit for plain git through LFS itself).

Each bundled checkpoint is also pushed as a model repo of the Space's owner (owner/transformer-viz-seed000, …),
where the Hub reads its card (licence, scores): the Space's `models:` lists them, and the Hub links each model
page back to the Space. The Space still runs its own copy, the files it was tested with.
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
    push_to_hub,
    snapshot_patterns,
)

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the checkout: app.py, requirements.txt, README.md
# What the Space runs: the entry point, its pins, the README whose front matter says `sdk: gradio`, the licence,
# and the package (its Python and JavaScript files and its catalogues of words; caches and tests never).
APP_FILES = ("app.py", "requirements.txt", CARD_NAME, "LICENSE")
# The Space's picture where a link to it is shared: the lesson file's first screen, 1200×630 (Open Graph's size).
THUMBNAIL = "docs/thumbnail.png"
MODEL_PREFIX = "transformer-viz-"  # a bundled checkpoint's model repo: owner/transformer-viz-<checkpoint>
PACKAGE_PATTERNS = (
    "transformer_viz/*.py",
    "transformer_viz/*.js",
    "transformer_viz/*.css",
    "transformer_viz/i18n/catalogues/*.json",
    "transformer_viz/app/tours/*.json",  # the packaged guided tours and their schema
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


def model_repos(repo_id: str, root: Path) -> dict[Path, str]:
    """Each bundled checkpoint's folder → the model repo of the Space's owner it is pushed to."""
    owner = repo_id.split("/")[0]
    return {folder: f"{owner}/{MODEL_PREFIX}{folder.name}" for folder in bundled_checkpoints(root)}


def space_card(repo_id: str, root: Path, models: list[str]) -> str:
    """The Space's README.md: the checkout's, read and written by huggingface_hub's SpaceCard, with the address
    of the thumbnail in this Space and its checkpoints' model repos in the front matter."""
    from huggingface_hub import SpaceCard

    card = SpaceCard.load(root / CARD_NAME)
    card.data.thumbnail = f"https://huggingface.co/spaces/{repo_id}/resolve/main/{THUMBNAIL}"
    card.data.models = models or None  # none pushed: no `models:` (the Hub would guess them from the code)
    return str(card)


def space_patterns(root: Path) -> list[str]:
    """upload_folder's allow patterns: the app's files (README.md, in the first commit, aside) and, for each bundled
    checkpoint, its weights, config, tokenizer, card, corpus credits, records and (within MAX_SNAPSHOTS_BYTES)
    snapshots."""
    patterns = [name for name in APP_FILES if name != CARD_NAME] + list(PACKAGE_PATTERNS)
    for folder in bundled_checkpoints(root):
        where = f"checkpoints/{folder.name}"
        files = [*CHECKPOINT_FILES, CARD_NAME, ATTRIBUTION_NAME, *RECORD_FILES, *snapshot_patterns(folder)]
        patterns += [f"{where}/{name}" for name in files]
    return patterns


def deploy_space(
    repo_id: str, root: str | Path = PROJECT_ROOT, private: bool = False, token: str | None = None, models: bool = True
) -> str:
    """Create (or update) the Gradio Space `repo_id` from the checkout at `root`, with its checkpoints pushed as
    model repos unless `models` is False; returns the Space's URL."""
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    root = Path(root)
    missing = [name for name in ("app.py", "requirements.txt", CARD_NAME, THUMBNAIL) if not (root / name).is_file()]
    if missing:
        raise CheckpointError(f"{root} is not a transformer-viz checkout: it lacks {missing} (run from a clone)")
    if not bundled_checkpoints(root):
        raise CheckpointError(f"{root / 'checkpoints'} holds no checkpoint: the Space would have no model to show")
    check_upload(repo_id, "Space id", "deploying")
    repos = model_repos(repo_id, root) if models else {}
    for folder, model_repo in repos.items():
        push_to_hub(folder, model_repo, private=private, token=token)
    api = HfApi(token=token)
    first = {
        ".gitattributes": gitattributes().encode(),
        CARD_NAME: space_card(repo_id, root, list(repos.values())).encode(),
        THUMBNAIL: (root / THUMBNAIL).read_bytes(),
    }
    try:
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.create_commit(
            repo_id,
            [CommitOperationAdd(path_in_repo=path, path_or_fileobj=data) for path, data in first.items()],
            commit_message="The Space's card and thumbnail; LFS for weights and tokenizers",
            repo_type="space",
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
