"""`train --snapshots N`: weights at log-spaced steps in snapshots/, for replaying how attention forms.

Tiny runs on the fake Ding corpus of test_train: 30 steps, a validation every 10.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import math
import shutil
from pathlib import Path

import huggingface_hub
import pytest
import torch
from safetensors import safe_open

from tests.test_train import final_state, options, write_fake_ding
from transformer_viz.__main__ import main
from transformer_viz.hub import hub
from transformer_viz.hub.hub import WEIGHTS_NAME, CheckpointError, push_to_hub
from transformer_viz.hub.model import load_transformer
from transformer_viz.training import train as train_module
from transformer_viz.training.snapshots import (
    INDEX_NAME,
    Snapshot,
    list_snapshots,
    load_snapshot,
    load_snapshots,
    snapshot_steps,
    thin_snapshots,
    write_index,
)
from transformer_viz.training.train import METRICS_NAME, STATE_NAME, train, weights_digest
from transformer_viz.translator import load_model

SNAPSHOTS = 4


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_fake_ding(tmp_path_factory.mktemp("ding") / "de-en")


@pytest.fixture(scope="module")
def snapshotted(corpus, tmp_path_factory) -> Path:
    return train(options(corpus, tmp_path_factory.mktemp("snap") / "run", snapshots=SNAPSHOTS))


def outputs(model: torch.nn.Module) -> torch.Tensor:
    """Logits for a fixed batch of token ids, dropout off: (B, T, V)."""
    src = torch.tensor([[5, 6, 7, 8, 3], [9, 10, 11, 3, 0]])
    tgt = torch.tensor([[2, 12, 13, 14], [2, 15, 16, 0]])
    with torch.no_grad():
        return model.eval()(src, tgt)


# ---------------------------------------------------------------------------- the schedule
def test_snapshot_steps_are_log_spaced_from_the_first_validation_to_the_last_step():
    steps = snapshot_steps(8, 250, 100_000)
    assert len(steps) == 8 and steps[0] == 250 and steps[-1] == 100_000
    ratio = (100_000 / 250) ** (1 / 7)  # a constant factor between neighbours, up to rounding
    for a, b in zip(steps, steps[1:]):
        assert b / a == pytest.approx(ratio, rel=0.01)
    assert snapshot_steps(SNAPSHOTS, 10, 30) == [round(10 * 3 ** (i / 3)) for i in range(4)]


def test_snapshot_steps_stay_distinct_and_within_the_run():
    assert snapshot_steps(0, 10, 30) == [] and snapshot_steps(3, 10, 0) == []
    assert snapshot_steps(1, 10, 30) == [30]
    assert snapshot_steps(5, 100, 40) == [40]  # a run shorter than one validation: its last step
    assert snapshot_steps(10, 3, 6) == [3, 4, 5, 6]  # more snapshots than steps: every step
    for count, first, last in [(5, 1, 6), (6, 2, 9), (12, 1, 40), (7, 250, 300)]:
        steps = snapshot_steps(count, first, last)
        assert len(steps) == count and steps[0] == first and steps[-1] == last, steps
        assert all(a < b for a, b in zip(steps, steps[1:])), steps


# ---------------------------------------------------------------------------- a run with --snapshots
def test_a_run_writes_its_snapshots_at_the_scheduled_steps(snapshotted):
    snapshots = list_snapshots(snapshotted)
    assert [s.step for s in snapshots] == snapshot_steps(SNAPSHOTS, 10, 30) == [10, 14, 21, 30]
    index = json.loads((snapshotted / "snapshots" / INDEX_NAME).read_text())
    assert index["dtype"] == "float16" and [e["step"] for e in index["snapshots"]] == [10, 14, 21, 30]
    rows = {r["step"]: r for r in map(json.loads, (snapshotted / METRICS_NAME).read_text().splitlines())}
    assert sorted(rows) == [10, 20, 30]  # the learning curve is the run's validations, as without snapshots
    for snapshot in snapshots:
        assert snapshot.path.parent == snapshotted / "snapshots" and math.isfinite(snapshot.valid_loss)
        with safe_open(str(snapshot.path), framework="pt") as f:
            assert f.metadata()["step"] == str(snapshot.step)
            assert float(f.metadata()["valid_loss"]) == snapshot.valid_loss
            assert {f.get_slice(name).get_dtype() for name in f.keys()} == {"F16"}
        if snapshot.step in rows:  # a validation step: the same loss the learning curve logged
            assert snapshot.valid_loss == rows[snapshot.step]["valid_loss"]
        assert snapshot.path.stat().st_size < 0.6 * (snapshotted / WEIGHTS_NAME).stat().st_size  # fp16: half
    losses = [s.valid_loss for s in snapshots]
    assert losses[-1] < losses[0] - 0.3  # the model learnt between the first snapshot and the last


def test_snapshots_do_not_change_the_training(snapshotted, corpus, tmp_path):
    """Validating at the extra snapshot steps draws no random numbers: the same weights as a run without them."""
    plain = train(options(corpus, tmp_path / "plain"))
    assert weights_digest(final_state(snapshotted)) == weights_digest(final_state(plain))
    assert (snapshotted / WEIGHTS_NAME).read_bytes() == (plain / WEIGHTS_NAME).read_bytes()


def test_each_snapshot_loads_into_the_model(snapshotted):
    final = load_transformer(snapshotted)
    final.load_state_dict(final_state(snapshotted))  # the weights after the last step
    loaded = load_snapshots(snapshotted)
    assert [step for step, _, _ in loaded] == [10, 14, 21, 30]
    for step, valid_loss, model in loaded:
        assert not model.training and model.config == final.config
        assert next(model.parameters()).dtype == torch.float32  # fp16 on disk, fp32 to run
        assert valid_loss == next(s.valid_loss for s in list_snapshots(snapshotted) if s.step == step)
    first, last = outputs(loaded[0][2]), outputs(final)
    assert (first - last).abs().max() > 0.1  # step 10's model is not the trained one
    assert torch.allclose(outputs(loaded[-1][2]), last, atol=0.05)  # step 30 is the last step, in fp16


def test_a_folder_with_snapshots_still_loads_as_a_checkpoint(snapshotted):
    tr = load_model(snapshotted, device="cpu")
    expected = load_transformer(snapshotted)
    assert torch.equal(outputs(tr.model), outputs(expected))
    assert isinstance(tr.translate("I see the house today.", max_new_tokens=8), str)


def test_the_cli_flag_trains_with_snapshots(corpus, tmp_path, capsys):
    out = tmp_path / "cli"
    flags = {**vars(options(corpus, out, max_steps=12, snapshots=2))}
    args = [f"--{k.replace('_', '-')}={v}" for k, v in flags.items() if k != "resume"]
    assert main(["train", *args]) == 0
    assert f"checkpoint written to {out}" in capsys.readouterr().out
    assert [s.step for s in list_snapshots(out)] == [10, 12]


# ---------------------------------------------------------------------------- resume
def contents(path: Path) -> tuple[dict, str]:
    """A safetensors file's metadata and tensors' digest (its header's key order is the writer's hash order)."""
    with safe_open(str(path), framework="pt") as f:
        return f.metadata(), weights_digest({name: f.get_tensor(name) for name in f.keys()})


class Killed(Exception):
    """The process ends here, as a kill would end it."""


def test_resume_continues_the_schedule(snapshotted, corpus, tmp_path, monkeypatch, caplog):
    """Killed at step 17 (after the snapshot of step 14, before any state past step 10) and resumed: the run
    drops the snapshot it will take again and ends with the uninterrupted run's snapshots, bit for bit."""
    out = tmp_path / "killed"
    rate = train_module.learning_rate

    def killed_at_17(step, *args):
        if step == 17:
            raise Killed
        return rate(step, *args)

    monkeypatch.setattr(train_module, "learning_rate", killed_at_17)
    with pytest.raises(Killed):
        train(options(corpus, out, snapshots=SNAPSHOTS))
    monkeypatch.undo()
    assert [s.step for s in list_snapshots(out)] == [10, 14]
    assert torch.load(out / STATE_NAME, weights_only=True)["step"] == 10

    with caplog.at_level(logging.INFO, logger="transformer_viz.training.train"):
        train(options(corpus, out, snapshots=SNAPSHOTS, resume=True))
    assert "dropped 1 weight snapshots after step 10" in caplog.text
    assert [s.step for s in list_snapshots(out)] == [10, 14, 21, 30]
    for mine, whole in zip(list_snapshots(out), list_snapshots(snapshotted)):
        assert contents(mine.path) == contents(whole.path)
    assert (out / "snapshots" / INDEX_NAME).read_bytes() == (snapshotted / "snapshots" / INDEX_NAME).read_bytes()


def test_a_longer_resumed_run_follows_its_own_schedule_and_keeps_n_snapshots_in_all(corpus, tmp_path):
    """Steps 10, 11, 13, 15 taken to step 15; going on to 30 takes 21 and 30 too, then thins back to four: of
    the pairs between 10 and 30, keeping 15 and 21 gives the evenest ratios (1.5, 1.4, 1.43)."""
    out = tmp_path / "longer"
    train(options(corpus, out, max_steps=15, snapshots=SNAPSHOTS))
    taken = snapshot_steps(SNAPSHOTS, 10, 15)
    assert [s.step for s in list_snapshots(out)] == taken == [10, 11, 13, 15]
    train(options(corpus, out, max_steps=30, snapshots=SNAPSHOTS, resume=True))
    later = [s for s in snapshot_steps(SNAPSHOTS, 10, 30) if s > 15]
    assert later == [21, 30] and [s.step for s in list_snapshots(out)] == [10, 15, 21, 30]
    assert sorted(p.name for p in (out / "snapshots").iterdir()) == sorted(
        [INDEX_NAME] + [s.path.name for s in list_snapshots(out)]
    )
    for snapshot in list_snapshots(out):
        load_snapshot(out, snapshot)  # what is left still loads


def fake_snapshots(folder: Path, steps: list[int]) -> None:
    """An index and a (contentless) file for each step, named as save_snapshot names them."""
    where = folder / "snapshots"
    where.mkdir(parents=True)
    snapshots = [Snapshot(step, 1.0, where / f"step-{step:07d}.safetensors") for step in steps]
    for snapshot in snapshots:
        snapshot.path.write_bytes(b"weights")
    write_index(where, snapshots)


def test_thinning_drops_the_snapshot_that_leaves_the_evenest_log_spacing(tmp_path, caplog):
    """A run of 8 snapshots to step 15,000 continued to 21,000: dropping step 15,000 leaves 10,000 -> 21,000 (2.1)
    beside ratios of 1.5-2.2; dropping any other leaves a gap of 2.35 or more. Its file goes with it."""
    steps = [500, 767, 1177, 1805, 2770, 4500, 10000, 15000, 21000]
    fake_snapshots(tmp_path, steps)
    with caplog.at_level(logging.INFO, logger="transformer_viz.training.train"):
        kept = thin_snapshots(tmp_path, 8)
    assert [s.step for s in kept] == [s.step for s in list_snapshots(tmp_path)] == [s for s in steps if s != 15000]
    assert not (tmp_path / "snapshots" / "step-0015000.safetensors").exists()
    assert "dropped the snapshots of step 15000 to keep 8" in caplog.text
    assert [s.step for s in thin_snapshots(tmp_path, 8)] == [s.step for s in kept]  # nothing more to drop


def test_thinning_keeps_the_first_and_last_and_spreads_the_rest(tmp_path):
    fake_snapshots(tmp_path, list(range(1, 101)))
    kept = [s.step for s in thin_snapshots(tmp_path, 5)]
    assert kept[0] == 1 and kept[-1] == 100 and len(kept) == 5
    ratios = [b / a for a, b in zip(kept, kept[1:])]
    assert max(ratios) < 1.2 * min(ratios)  # each near 100^(1/4) = 3.16, not crowded at either end
    assert [s.step for s in thin_snapshots(tmp_path, 2)] == [1, 100]
    assert [s.step for s in thin_snapshots(tmp_path, 1)] == [100]
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == [INDEX_NAME, "step-0000100.safetensors"]


def test_a_new_run_into_a_folder_keeps_no_stale_snapshots(snapshotted, corpus, tmp_path):
    """Only snapshots/ left from an earlier run (the checkpoint deleted): a new run starts its own index."""
    out = tmp_path / "fresh"
    shutil.copytree(snapshotted / "snapshots", out / "snapshots")
    train(options(corpus, out, snapshots=2))
    assert [s.step for s in list_snapshots(out)] == [10, 30]
    assert sorted(p.name for p in (out / "snapshots").iterdir()) == sorted(
        [INDEX_NAME] + [s.path.name for s in list_snapshots(out)]
    )


# ---------------------------------------------------------------------------- hostile or broken folders
def test_a_bad_index_or_snapshot_is_refused_with_a_clear_error(snapshotted, tmp_path):
    folder = tmp_path / "bad"
    shutil.copytree(snapshotted, folder)
    index = folder / "snapshots" / INDEX_NAME
    good = index.read_text()
    index.write_text(good.replace("step-0000010.safetensors", "../model.safetensors"))
    with pytest.raises(CheckpointError, match="not a snapshot file name"):
        list_snapshots(folder)
    index.write_text("{not json")
    with pytest.raises(CheckpointError, match="is not a snapshot index"):
        load_snapshots(folder)
    index.write_text(good)
    snapshot = list_snapshots(folder)[0]
    snapshot.path.write_bytes(snapshot.path.read_bytes()[:200])  # truncated
    with pytest.raises(CheckpointError, match="not a readable safetensors file"):
        load_snapshot(folder, snapshot)
    snapshot.path.unlink()
    with pytest.raises(CheckpointError, match="has no such file"):
        load_snapshot(folder, snapshot)
    assert list_snapshots(tmp_path) == []  # a folder without snapshots has none


# ---------------------------------------------------------------------------- the Hub
def test_push_carries_the_snapshots_when_they_fit_the_budget(snapshotted, tmp_path, uploads, monkeypatch, caplog):
    folder = tmp_path / "push"
    shutil.copytree(snapshotted, folder)
    (folder / "snapshots" / ".step-0000030.safetensors.123.partial").write_bytes(b"half written")
    push_to_hub(folder, "owner/name")
    snapshot_files = [p for p in uploads.paths if p.startswith("snapshots/")]
    expected = [f"snapshots/{s.path.name}" for s in list_snapshots(folder)] + [f"snapshots/{INDEX_NAME}"]
    assert snapshot_files == sorted(expected)
    assert WEIGHTS_NAME in uploads.paths and STATE_NAME not in uploads.paths

    size = sum(p.stat().st_size for p in (folder / "snapshots").iterdir() if not p.name.startswith("."))
    monkeypatch.setattr(hub, "MAX_SNAPSHOTS_BYTES", size - 1)
    with caplog.at_level(logging.WARNING, logger="transformer_viz.hub.hub"):
        push_to_hub(folder, "owner/name")
    assert WEIGHTS_NAME in uploads.paths and not any(p.startswith("snapshots/") for p in uploads.paths)
    assert "left out" in caplog.text and "fewer --snapshots" in caplog.text


def test_download_asks_for_the_snapshots(snapshotted, tmp_path, monkeypatch):
    asked = []

    def fake_download(repo_id, revision=None, allow_patterns=None, local_files_only=False, **hub_options):
        asked.append(allow_patterns)
        return str(snapshotted)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_download)
    assert hub.download("owner/name") == snapshotted
    names = [f"snapshots/{s.path.name}" for s in list_snapshots(snapshotted)] + [f"snapshots/{INDEX_NAME}"]
    assert all(any(fnmatch.fnmatch(n, p) for p in asked[0]) for n in names)
    assert [step for step, _, _ in load_snapshots(hub.download("owner/name"))] == [10, 14, 21, 30]
