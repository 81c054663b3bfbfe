"""`space`: the app and its bundled checkpoints deployed as a Gradio Space, the Hub replaced by a recorder."""

from __future__ import annotations

import fnmatch
import io
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import ModelCard, SpaceCard
from PIL import Image

from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz.__main__ import main
from transformer_viz.hub.hub import CHECKPOINT_FILES, CheckpointError, save_checkpoint
from transformer_viz.hub.space import LFS_PATTERNS, PROJECT_ROOT, THUMBNAIL, deploy_space, gitattributes
from transformer_viz.training.snapshots import save_snapshot, write_index

CATALOGUE = "transformer_viz/i18n/catalogues/en.json"  # the page's words: without them the app cannot start
HUB_GIT_LIMIT = 10 * 10**6  # the Hub refuses a larger file in a plain git push unless it goes through LFS


def fake_checkout(root: Path) -> Path:
    """A checkout with the app's files, one checkpoint with two snapshots, and everything a Space must not get."""
    for name in ("app.py", "requirements.txt", "LICENSE", "transformer_viz/app/page.py", CATALOGUE, THUMBNAIL):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    (root / "README.md").write_text("---\ntitle: demo\nsdk: gradio\nlicense: other\n---\n# Demo\n")
    (root / "transformer_viz/js").mkdir(parents=True)
    (root / "transformer_viz/js/stepping.js").write_text("export {}")
    for name in ("transformer_viz/__pycache__/page.cpython-311.pyc", "tests/test_app.py", ".venv/bin/python",
                 "data/corpus/pairs.tsv", "runs/r/model.safetensors", "docs/screenshots/app.png"):  # fmt: skip
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    model = tiny_translator("seed000").model
    folder = save_checkpoint(root / "checkpoints" / "seed000", model, tiny_tokenizer_file())
    write_index(folder / "snapshots", [save_snapshot(folder, model, step, 3.0) for step in (10, 20)])
    for name in ("README.md", "ATTRIBUTION.md", "training.json", "train_state.pt", "notes.txt", "old.bin"):
        (folder / name).write_text("x")
    (root / "checkpoints" / "half").mkdir()  # no weights: not a checkpoint
    (root / "checkpoints" / "half" / "config.json").write_text("{}")
    return root


def test_space_is_a_gradio_space_with_the_app_and_its_checkpoints(tmp_path, uploads):
    root = fake_checkout(tmp_path)
    assert deploy_space("owner/demo", root, models=False) == "https://huggingface.co/spaces/owner/demo"
    assert uploads.repos == [("owner/demo", dict(repo_type="space", space_sdk="gradio", private=False, exist_ok=True))]
    assert uploads.folder == root
    assert {"README.md", THUMBNAIL} <= set(uploads.files)  # in the first commit, with .gitattributes
    assert SpaceCard(uploads.files["README.md"].decode()).data.models is None  # none pushed: none named
    expected_checkpoint = [*CHECKPOINT_FILES, "README.md", "ATTRIBUTION.md", "training.json"]
    assert uploads.paths == sorted(
        ["app.py", "requirements.txt", "LICENSE", "transformer_viz/app/page.py", CATALOGUE]
        + ["transformer_viz/js/stepping.js"]
        + [f"checkpoints/seed000/{name}" for name in expected_checkpoint]
        + [f"checkpoints/seed000/snapshots/{name}" for name in ("index.json", "step-0000010.safetensors")]
        + ["checkpoints/seed000/snapshots/step-0000020.safetensors"]
    )


def test_space_marks_weights_and_tokenizers_as_lfs(tmp_path, uploads):
    deploy_space("owner/demo", fake_checkout(tmp_path))
    lines = uploads.files[".gitattributes"].decode().splitlines()
    assert lines == [f"{pattern} filter=lfs diff=lfs merge=lfs -text" for pattern in ("*.safetensors", "*.model")]
    assert gitattributes().encode() == uploads.files[".gitattributes"]


def test_the_spaces_card_names_its_licences_thumbnail_and_the_model_repos_of_its_checkpoints(uploads):
    """The checkout's own Space, as the Hub reads its README (huggingface_hub's SpaceCard): the licence fields, the
    tags, the address of the thumbnail this deployment uploads, and `models:` naming the repos its checkpoints were
    pushed to, each with a card the Hub reads (translation, scores)."""
    assert deploy_space("owner/demo", PROJECT_ROOT) == "https://huggingface.co/spaces/owner/demo"
    card = SpaceCard(uploads.files["README.md"].decode())
    assert card.text == SpaceCard.load(PROJECT_ROOT / "README.md").text  # the README, its front matter completed
    data = card.data
    assert (data.sdk, data.license, data.license_link) == ("gradio", "other", "README.md#licences")
    assert data.license_name and {"translation", "education", "interpretability"} <= set(data.tags)
    assert data.thumbnail == f"https://huggingface.co/spaces/owner/demo/resolve/main/{THUMBNAIL}"
    assert uploads.files[THUMBNAIL] == (PROJECT_ROOT / THUMBNAIL).read_bytes()
    image = Image.open(io.BytesIO(uploads.files[THUMBNAIL]))
    assert (image.format, image.size) == ("PNG", (1200, 630)) and len(uploads.files[THUMBNAIL]) < 100_000
    assert data.models == ["owner/transformer-viz-seed000", "owner/transformer-viz-seed004"]
    created = [repo for repo, options in uploads.repos if "repo_type" not in options]  # model repos
    assert created == data.models
    for repo in data.models:
        name = repo.rsplit("-", 1)[-1]
        assert {*CHECKPOINT_FILES, "README.md"} <= set(uploads.folders[repo])
        pushed = ModelCard.load(PROJECT_ROOT / "checkpoints" / name / "README.md")
        assert pushed.data.pipeline_tag == "translation" and pushed.data.eval_results, repo


def test_every_file_of_the_real_space_over_the_git_limit_goes_through_lfs(uploads):
    """The checkout's own Space: the app runs (app.py, pins, the package), both bundled models come with their
    snapshots, and every file the Hub would refuse in plain git is one .gitattributes sends through LFS."""
    deploy_space("owner/demo", PROJECT_ROOT)
    paths = set(uploads.folders["owner/demo"])
    assert {"app.py", "requirements.txt", "transformer_viz/app/page.py"} <= paths and "README.md" in uploads.files
    assert {f"transformer_viz/i18n/catalogues/{lang}.json" for lang in ("en", "de", "ja", "ko", "zh")} <= paths
    assert {"transformer_viz/app/tours/schema.json", "transformer_viz/app/tours/builtin.json"} <= paths  # the tour
    assert not any(p.startswith(("tests/", "docs/", "benchmarks/", ".venv/", "data/", "runs/")) for p in paths)
    assert all(len(data) <= HUB_GIT_LIMIT for data in uploads.files.values())  # the first commit's, in plain git
    for name in ("seed000", "seed004"):
        assert {f"checkpoints/{name}/{file}" for file in CHECKPOINT_FILES} <= paths
        assert f"checkpoints/{name}/snapshots/index.json" in paths
    large = [p for p in paths if (PROJECT_ROOT / p).stat().st_size > HUB_GIT_LIMIT]
    assert "checkpoints/seed000/model.safetensors" in large  # the d256 weights are ~30 MB
    assert all(any(fnmatch.fnmatch(p, pattern) for pattern in LFS_PATTERNS) for p in large), large


def test_space_refuses_clearly_without_touching_the_network(tmp_path, monkeypatch):
    class NoNetwork:
        def __init__(self, *args, **kwargs):
            raise AssertionError("deploy_space tried to reach the Hub")

    monkeypatch.setattr(huggingface_hub, "HfApi", NoNetwork)
    root = fake_checkout(tmp_path / "checkout")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CheckpointError, match="HF_HUB_OFFLINE"):
        deploy_space("owner/demo", root)
    with pytest.raises(CheckpointError, match="not a Space id"):
        deploy_space("owner/demo/extra", root)
    with pytest.raises(CheckpointError, match=r"not a transformer-viz checkout: it lacks \['app.py'"):
        deploy_space("owner/demo", tmp_path / "checkout" / "transformer_viz")
    for folder in (root / "checkpoints").iterdir():
        (folder / "config.json").unlink()
    with pytest.raises(CheckpointError, match="holds no checkpoint"):
        deploy_space("owner/demo", root)


def test_space_command_prints_the_url_and_fails_with_a_message(uploads, capsys, monkeypatch):
    assert main(["space", "owner/demo"]) == 0
    assert capsys.readouterr().out.strip() == "https://huggingface.co/spaces/owner/demo"
    assert [options["private"] for _, options in uploads.repos] == [False] * 3  # two model repos and the Space
    assert main(["space", "owner/private-demo", "--private", "--no-models"]) == 0
    assert uploads.repos[3:] == [
        ("owner/private-demo", dict(repo_type="space", space_sdk="gradio", private=True, exist_ok=True))
    ]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["space", "owner/demo"]) == 2
    assert "HF_HUB_OFFLINE" in capsys.readouterr().err
