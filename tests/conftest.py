"""Shared fixtures: offline environment, a fresh seed per test, tiny configs, models, translators and traces."""

from __future__ import annotations

import os
from pathlib import Path

# Before anything imports gradio or huggingface_hub: no analytics, no network.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
import torch

from tests.tiny import tiny_translator, with_evil_tokens
from transformer_viz import Transformer, TransformerConfig

# The tensors in unit tests are tiny: intra-op threads only add scheduling overhead
# (10x slower on a busy 2-core machine), so every test runs single-threaded.
torch.set_num_threads(1)

TINY = dict(src_vocab_size=50, tgt_vocab_size=50, d_model=32, n_heads=4, n_layers=2, d_ff=64, dropout=0.0, max_len=64)


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--shuffle",
        type=int,
        metavar="SEED",
        help="run each module's tests in an order shuffled by SEED, modules whole and in their order: a test that "
        "needs what another test left fails",
    )


def pytest_collection_modifyitems(config, items) -> None:
    """The modules that drive a browser first, then those with slow tests, then the rest, each module whole: two
    workers (scripts/test) take the long modules first and end together on short ones, not one long module alone
    at the end. --shuffle SEED: each module's tests in a random order of that seed (module fixtures are still set
    up once)."""
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)

    def weight(tests: list) -> int:
        """0 for a module that drives a browser, 1 for one with a slow test, 2 for the rest."""
        for rank, marker in enumerate(("browser", "slow")):
            if any(test.get_closest_marker(marker) for test in tests):
                return rank
        return 2

    ordered = sorted(modules.values(), key=weight)  # stable: alphabetical within each weight
    seed = config.getoption("shuffle")
    if seed is not None:
        import random

        shuffle = random.Random(seed)
        ordered = [shuffle.sample(tests, len(tests)) for tests in ordered]
    items[:] = [item for tests in ordered for item in tests]


@pytest.fixture(autouse=True)
def _seed() -> None:
    """Every test starts from the same random state, whatever ran before it."""
    torch.manual_seed(0)


@pytest.fixture
def tiny_config():
    """tiny_config(preset, **overrides) → a TransformerConfig small enough for unit tests."""

    def build(preset: str = "seed000", **overrides) -> TransformerConfig:
        return TransformerConfig.preset(preset, **{**TINY, **overrides})

    return build


@pytest.fixture
def tiny_model(tiny_config):
    """tiny_model(preset, **overrides) → a Transformer in eval mode (dropout off)."""

    def build(preset: str = "seed000", **overrides) -> Transformer:
        return Transformer(tiny_config(preset, **overrides)).eval()

    return build


@pytest.fixture
def make_ids():
    """make_ids(lengths, width=None, bos=False) → (B, width) ids in [4, 50), padded with 0 after each length.

    With bos=True every row starts with <s> (id 2), as a decoder input does.
    """

    def build(lengths: list[int], width: int | None = None, bos: bool = False, vocab: int = 50) -> torch.Tensor:
        width = max(lengths) if width is None else width
        ids = torch.randint(4, vocab, (len(lengths), width))
        if bos:
            ids[:, 0] = 2
        for row, length in enumerate(lengths):
            ids[row, length:] = 0
        return ids

    return build


# ---------------------------------------------------------------- a tiny model and a batch (hook tests)
@pytest.fixture
def model(tiny_model):
    """The tiny seed000 Transformer, fresh for each test."""
    return tiny_model("seed000")


@pytest.fixture
def batch(make_ids):
    """(src, tgt): two sources of lengths 6 and 4, two decoder inputs of lengths 5 and 3 starting with <s>."""
    return make_ids([6, 4]), make_ids([5, 3], bos=True)


# ---------------------------------------------------------------- a tiny translator and its traces (figures, handlers)
# Module-scoped: built once per module that uses them. A module that needs another model (another preset, a shorter
# max_len, several presets) defines its own `translator`, which replaces this one there.
@pytest.fixture(scope="module")
def translator():
    """The tiny seed000 translator: random weights, nonsense output, the same in every run."""
    return tiny_translator()


@pytest.fixture(scope="module")
def trace(translator):
    """'the dog sees the dog.' decoded greedily, at most 6 tokens: the source repeats pieces, so duplicate tick
    labels must stay apart."""
    return translator.trace("the dog sees the dog.", max_new_tokens=6)


@pytest.fixture(scope="module")
def beam_trace(translator):
    """'I see the house.' by beam search (3 beams, at most 5 tokens): a tree with pruned nodes."""
    return translator.trace("I see the house.", strategy="beam", beam_size=3, max_new_tokens=5)


@pytest.fixture(scope="module")
def evil_trace(trace):
    """`trace` with an HTML payload as a source token, a target token, step 0's choice and an alternative."""
    return with_evil_tokens(trace)


@pytest.fixture
def uploads(monkeypatch):
    """What push_to_hub and deploy_space send, the Hub replaced by a recorder: .repos the repos created (id and
    options), .files the files uploaded one by one or in a commit ({path in repo: bytes}), .folder the last folder
    uploaded from, .paths every file under it that upload_folder would send (relative, sorted), chosen by the Hub
    client's own pattern filter, and .folders those paths of every folder upload, by repo id. The network is
    allowed, so nothing stops at HF_HUB_OFFLINE before the upload."""
    from types import SimpleNamespace

    import huggingface_hub
    from huggingface_hub.utils import filter_repo_objects

    sent = SimpleNamespace(repos=[], files={}, folder=None, paths=[], folders={})

    class RecordingApi:
        def __init__(self, token=None):
            pass

        def create_repo(self, repo_id, **options):
            sent.repos.append((repo_id, options))

        def upload_file(self, path_or_fileobj, path_in_repo, repo_id, **options):
            sent.files[path_in_repo] = path_or_fileobj

        def create_commit(self, repo_id, operations, **options):
            sent.files.update({op.path_in_repo: op.path_or_fileobj for op in operations})

        def upload_folder(self, folder_path, repo_id, allow_patterns=None, ignore_patterns=None, **options):
            sent.folder = root = Path(folder_path)
            names = (f.relative_to(root).as_posix() for f in root.rglob("*") if f.is_file())
            sent.paths = sorted(
                filter_repo_objects(names, allow_patterns=allow_patterns, ignore_patterns=ignore_patterns)
            )
            sent.folders[repo_id] = sent.paths

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingApi)
    return sent


@pytest.fixture
def empty_registry(monkeypatch):
    """The app's model registry, empty for one test and restored after it: the test registers what it uses."""
    from transformer_viz.app import models

    monkeypatch.setattr(models, "_models", {})


# ---------------------------------------------------------------- the app in a subprocess (browser and API tests)
# Tiny random models saved under these names (seed000 is the default); seed004 is smaller, so that a switch of
# model meets a layer and a head the new model lacks.
# max_len keeps the untrained models' endless outputs short (small figures, quick pages); seed004's is long enough for
# a 20-token translation (the lesson's layout at 1280×720).
APP_CHECKPOINTS = {"seed000": dict(max_len=16), "seed004": dict(n_layers=1, n_heads=2, max_len=24)}
# seed000 also keeps training snapshots, so the replay tab has something to replay; seed004 keeps none, so it says so.
APP_SNAPSHOT_STEPS = {"seed000": (10, 20, 40)}


def save_tiny_snapshots(folder, model, steps) -> None:
    """Snapshots of `model` "during training": its weights drawn from another random start towards its own,
    w = (1 − f)·w₀ + f·w with f = step / last step, each with a falling validation loss."""
    import copy

    import torch

    from transformer_viz.model.transformer import Transformer
    from transformer_viz.training.snapshots import save_snapshot

    torch.manual_seed(1)
    start = Transformer(model.config).state_dict()
    final = model.state_dict()
    for step in steps:
        f = step / steps[-1]
        moved = copy.deepcopy(model)
        moved.load_state_dict(
            {name: (1 - f) * start[name] + f * w if w.is_floating_point() else w for name, w in final.items()}
        )
        save_snapshot(folder, moved, step, valid_loss=5.0 - 3.0 * f)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """(url, checkpoints_dir): app.py serving two checkpoints on 127.0.0.1; stopped at the end, also on failure.

    The checkpoints are tiny random seed000 and seed004 models, or with TRANSFORMER_VIZ_TEST_CHECKPOINTS=folder
    that folder's (it must hold seed000 and seed004; it is only read).
    """
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from tests.tiny import tiny_tokenizer_file, tiny_translator
    from transformer_viz.hub.hub import save_checkpoint

    if os.environ.get("TRANSFORMER_VIZ_TEST_CHECKPOINTS"):  # e.g. =checkpoints: README screenshots of trained models
        folder = Path(os.environ["TRANSFORMER_VIZ_TEST_CHECKPOINTS"]).resolve()  # only read, never written
    else:
        folder = tmp_path_factory.mktemp("checkpoints")
        for preset, shape in APP_CHECKPOINTS.items():
            model = tiny_translator(preset, **shape).model
            save_checkpoint(folder / preset, model, tiny_tokenizer_file())
            if preset in APP_SNAPSHOT_STEPS:
                save_tiny_snapshots(folder / preset, model, APP_SNAPSHOT_STEPS[preset])
    port = free_port()
    env = {
        **os.environ,
        "TRANSFORMER_VIZ_CHECKPOINTS": str(folder),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }  # tiny tensors: one torch thread leaves the other core to the browser
    env.pop("TRANSFORMER_VIZ_HUB_MODEL", None)
    log_path = tmp_path_factory.getbasetemp() / "app.log"
    root = Path(__file__).resolve().parent.parent
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 180  # a loaded 2-core machine needs ~20 s to import gradio and torch
        while True:
            if proc.poll() is not None:
                pytest.fail(f"app.py exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"app.py did not answer on {url}:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url, folder
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def library(app_server):
    """The app's default model (seed000) as the library loads it: what the page should show."""
    from transformer_viz.translator import load_model

    _, folder = app_server
    return load_model(folder / "seed000", device="cpu")


CHROMIUM = (
    "/usr/bin/chromium"  # Debian's chromium, driven by the playwright package (its own browsers are never installed)
)
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium per browser test module.

    Not per session: Playwright's sync API keeps an asyncio loop running in the main thread while it is
    open, and tests of other modules that start their own loop (asyncio.run) must not find one running.
    """
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def lesson(app_tab, app_server, request):
    """lesson(model=..., sentence=..., german=..., fresh=..., **view) → the module's tab on a lesson: `sentence`
    (the module's SENTENCE, or tests/pages.py's) translated by `model` (seed000) with this German forced as the
    output, at LESSON_VIEW changed by `view` (step=, layer=, head=, tab=, lang=); opened from its link when `fresh`
    (tests/pages.py: start_lesson)."""
    from tests import pages

    def put(model: str = "seed000", sentence: str | None = None, german: str = "", fresh: bool = False, **view):
        sentence = sentence or getattr(request.module, "SENTENCE", pages.SENTENCE)
        pages.start_lesson(app_tab, pages.lesson_link(app_server[0], sentence, model, german=german, **view), fresh)
        return app_tab

    return put


@pytest.fixture(scope="module")
def app_tab(browser, app_server):
    """The module's one browser tab on the app, in English at 1280×720 (a projector's screen)."""
    from tests.pages import open_app_page

    context, page = open_app_page(browser, app_server[0], "en-US", {"width": 1280, "height": 720})
    yield page
    context.close()


@pytest.fixture(scope="module")
def german_lesson(tmp_path_factory):
    """(a lesson file in German at layer 0 and the head mean, the trace it holds)."""
    from tests.tiny import tiny_translator
    from transformer_viz.figures.lesson import lesson

    trace = tiny_translator().trace("I see the house.", max_new_tokens=6)
    path = tmp_path_factory.mktemp("lesson") / "lektion.html"
    lesson(trace, path, lang="de")
    return path, trace
