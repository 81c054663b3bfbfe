"""The shipped checkpoints: they load offline, reproduce the outputs recorded at evaluation, and score above a floor."""

from __future__ import annotations

import json

import pytest

from transformer_viz.decoding import DecodeOptions
from transformer_viz.hub.hub import CHECKPOINT_FILES, CHECKPOINTS_DIR
from transformer_viz.training import evaluate
from transformer_viz.training.evaluate import EVALUATION_NAME, SUBSET, score
from transformer_viz.training.train import STATE_NAME
from transformer_viz.translator import load_model

SHIPPED = ["seed000", "seed004"]
MAX_CHECKPOINT_BYTES = 35 * 10**6  # a shipped model without its snapshots: a d256 model's weights are ~30 MB
MIN_SNAPSHOTS = 5  # the training replay needs a curve, not two points
CHRF_FLOOR = 10.0  # chrF on the first 100 test pairs; a broken model or decoder scores near 0 (seed004 ships at ~33)


def evaluation(name: str) -> dict:
    return json.loads((CHECKPOINTS_DIR / name / EVALUATION_NAME).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", SHIPPED)
def test_checkpoint_is_complete_and_small(name):
    folder = CHECKPOINTS_DIR / name
    for file in CHECKPOINT_FILES + ("README.md", EVALUATION_NAME, "training.json", "metrics.jsonl"):
        assert (folder / file).is_file(), f"{name} lacks {file}"
    size = sum(
        p.stat().st_size for p in folder.iterdir() if p.is_file() and p.name != STATE_NAME
    )  # resume state is not shipped
    assert size <= MAX_CHECKPOINT_BYTES, f"{name} is {size / 10**6:.1f} MB"


@pytest.mark.parametrize("name", SHIPPED)
def test_snapshots_are_listed_and_within_their_budget(name):
    """The training replay's snapshots: at least five, each file in the index exists, by step, within
    MAX_SNAPSHOTS_BYTES (80 MB) per model (so `push` and `space` upload them too)."""
    from transformer_viz.hub.hub import MAX_SNAPSHOTS_BYTES, SNAPSHOTS_DIR, snapshot_patterns
    from transformer_viz.training.snapshots import list_snapshots

    folder = CHECKPOINTS_DIR / name
    snapshots = list_snapshots(folder)
    steps = [s.step for s in snapshots]
    assert len(steps) >= MIN_SNAPSHOTS and steps == sorted(set(steps))
    assert all(s.path.is_file() for s in snapshots)
    size = sum(p.stat().st_size for p in (folder / SNAPSHOTS_DIR).iterdir())
    assert size <= MAX_SNAPSHOTS_BYTES == 80 * 10**6, f"{name}'s snapshots are {size / 10**6:.1f} MB"
    assert snapshot_patterns(folder)


def test_default_model_is_seed000():
    assert load_model().config.name == "seed000"


@pytest.mark.parametrize("name", SHIPPED)
def test_golden_translations(name):
    """Our own example sentences translate exactly as when the checkpoint was evaluated."""
    recorded = evaluation(name)["examples"]
    translator = load_model(name)
    sources = [e["source"] for e in recorded]
    assert translator.translate(sources) == [e["greedy"] for e in recorded]


@pytest.mark.parametrize("name", SHIPPED)
def test_test_split_chrf_stays_above_floor(name):
    translator = load_model(name)
    test = evaluate.test_split(CHECKPOINTS_DIR / name, limit=SUBSET)
    result = score(
        translator,
        [p.src for p in test],
        [p.tgt for p in test],
        DecodeOptions(max_new_tokens=translator.config.max_len),
    )
    assert result["chrf"] >= CHRF_FLOOR
    assert result["chrf"] == pytest.approx(evaluation(name)["subset"]["chrf"], abs=0.01)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_snapshots_replay_the_curated_sentences_forming(name):
    """The snapshots ship within their budget, end at the run's last step, and on the app's curated sentences
    the model's own translation gains probability from the first snapshot to the last (the replay's story)."""
    import numpy as np

    from transformer_viz.app.common import EXAMPLES
    from transformer_viz.hub.hub import MAX_SNAPSHOTS_BYTES
    from transformer_viz.lab.replay import replay
    from transformer_viz.training.snapshots import list_snapshots

    folder = CHECKPOINTS_DIR / name
    snapshots = list_snapshots(folder)
    steps = [s.step for s in snapshots]
    assert len(steps) >= MIN_SNAPSHOTS and steps == sorted(set(steps)), steps
    assert steps[-1] == json.loads((folder / "training.json").read_text())["last"]["step"]
    assert sum(s.path.stat().st_size for s in snapshots) <= MAX_SNAPSHOTS_BYTES
    translator = load_model(name)
    for sentence in EXAMPLES:
        trace = translator.trace(sentence)
        log_p = np.log(replay(translator, folder, trace.source_ids, trace.target_ids).probs).mean(axis=1)
        assert log_p[-1] > log_p[0] + 1.0, (sentence, log_p)
