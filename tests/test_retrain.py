"""`retrain`: presets × recipes trained side by side within a budget, scored, the best of each preset made ready."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.test_train import options, write_debian_corpus, write_fake_ding
from transformer_viz.__main__ import main
from transformer_viz.hub.hub import CHECKPOINT_FILES
from transformer_viz.training import retrain as R
from transformer_viz.training.snapshots import list_snapshots
from transformer_viz.translator import load_model

BUDGET = 0.1  # minutes: a schedule of a few hundred tiny steps on two cores
SLOWER = 2  # the runs train this many times slower than their calibration measured


@pytest.fixture(scope="module")
def retrained(tmp_path_factory):
    """seed000 on Ding alone and on Ding + a one-source Debian corpus (tiny models on the fake dictionary), side by
    side within BUDGET, with one sentence of one's own to score; on a machine SLOWER times slower than its
    calibration saw: the speed the calibration measures is multiplied by SLOWER, so each run plans SLOWER times the
    steps the machine has time for. The budget's clock stands still, so that each run plans on the whole BUDGET
    after its calibration, however long that took on this machine: a few hundred steps, whatever its speed."""
    folder = tmp_path_factory.mktemp("retrain")
    corpus = write_fake_ding(folder / "de-en")
    games = [(f"Run {i} times!", f"Lauf {i} Mal!") for i in range(40)]
    debian = write_debian_corpus(folder / "debian", {"games": games})
    (debian / "games.test.tsv").write_text("Run home!\tLauf nach Hause!\n", encoding="utf-8")
    own = folder / "own.tsv"
    own.write_text("# my sentences\nI see the house today.\tIch sehe das Haus heute.\n", encoding="utf-8")
    base = options(corpus, folder / "unused", max_tokens=512, snapshots=3, average=2, valid_every=1000)
    opts = R.RetrainOptions(
        out=folder / "runs", minutes=BUDGET, presets=("seed000",), recipes=("ding", "ding+everything"),
        calibration=40, corpus=debian, own_test=own, cache=folder / "no-cache", base=base,
    )  # fmt: skip
    measured = R.steps_per_second
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(R, "steps_per_second", lambda out: SLOWER * measured(out))
        patch.setattr(R, "clock", lambda: 0.0)
        return opts, R.retrain(opts)


@pytest.mark.slow
def test_retrain_trains_each_run_to_its_plan_on_a_machine_slower_than_its_calibration(retrained):
    """Each run reaches its planned step and cools down over the planned last steps, though it trains SLOWER times
    slower than planned: no clock stops it before its plan (a slower machine only ends it later)."""
    opts, summary = retrained
    assert sorted(summary["runs"]) == ["seed000/ding", "seed000/ding+everything"]
    for row in summary["runs"].values():
        plan = row["plan"]
        assert row["steps"] == plan["max_steps"] > opts.calibration  # calibrated, then trained to the plan
        assert plan["cooldown_steps"] == round(opts.cooldown * plan["max_steps"])
        record = json.loads((R.Path(row["folder"]) / "training.json").read_text())
        assert record["options"]["cooldown_steps"] == plan["cooldown_steps"]
        assert [run["step"] for run in record["runs"]] == [opts.calibration, plan["max_steps"]]
        assert record["runs"][1]["command"].startswith("python -m transformer_viz -v train --out ")
        assert set(row["scores"]) == {"ding_test", "own"}  # no everyday wheel in this cache
        assert row["scores"]["own"]["sentences"] == 1 and 0 <= row["scores"]["ding_test"]["chrf"] <= 100


@pytest.mark.slow
def test_the_best_run_of_each_preset_is_ready_to_ship(retrained):
    opts, summary = retrained
    runs = summary["runs"]
    assert summary["best"] == {"seed000": max(runs, key=lambda name: runs[name]["scores"]["ding_test"]["chrf"])}
    assert json.loads((R.Path(runs["seed000/ding+everything"]["folder"]) / "training.json").read_text())["options"][
        "debian_corpus"
    ] == str(opts.corpus)  # the recipe's data reached the run
    for preset, folder in summary["ready"].items():
        ready = R.Path(folder)
        assert ready == opts.out / R.READY_DIR / preset
        assert all((ready / name).is_file() for name in (*CHECKPOINT_FILES, "README.md", "evaluation.json"))
        assert not (ready / "train_state.pt").exists() and not (ready / "plan.json").exists()
        assert len(list_snapshots(ready)) >= 2
        translator = load_model(ready, device="cpu")
        assert translator.config.name == preset and isinstance(translator.translate("I see the house."), str)
        evaluation = json.loads((ready / "evaluation.json").read_text())
        assert evaluation["greedy"]["chrf"] == summary["runs"][summary["best"][preset]]["scores"]["ding_test"]["chrf"]
    table = R.summary_table(summary)
    assert (
        f"**{summary['best']['seed000']}**" in table and "ding_test chrF / BLEU" in table and "own chrF / BLEU" in table
    )


@pytest.mark.slow
def test_retrain_again_goes_on_where_it_stopped(retrained):
    """The same out again: each run keeps its plan and has reached it, so nothing trains; the scores are the same."""
    opts, summary = retrained
    records = {name: (R.Path(row["folder"]) / "training.json").read_text() for name, row in summary["runs"].items()}
    again = R.retrain(R.dataclasses.replace(opts, card=False))
    for name, row in again["runs"].items():
        assert row["plan"] == summary["runs"][name]["plan"] and row["steps"] == summary["runs"][name]["steps"]
        timeless = [
            {s: {k: v for k, v in r[s].items() if k != "seconds"} for s in r}
            for r in (row["scores"], summary["runs"][name]["scores"])
        ]
        assert timeless[0] == timeless[1]
        assert (R.Path(row["folder"]) / "training.json").read_text() == records[name]  # no leg was trained again


def write_calibration(out, steps: int, speed: float) -> None:
    """A run folder as its calibration leaves it: `steps` reached, validated halfway and at the end, `speed` steps a
    second between (metrics.jsonl and training.json, the two records plan() reads)."""
    out.mkdir(parents=True)
    rows = [dict(step=steps // 2, seconds=steps / 2 / speed), dict(step=steps, seconds=steps / speed)]
    (out / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (out / "training.json").write_text(json.dumps(dict(last=dict(step=steps))))


def test_a_plan_is_steps_that_end_inside_the_budget_after_a_second_start(tmp_path):
    """200 calibration steps in 20 s (10 steps/s) of a leg that took 26 s: 6 s of a process's start. With 300 s left
    the plan keeps that start and the margin back; the leg trains to its step with no clock to stop it."""
    opts = R.RetrainOptions(calibration=200, margin=0.1, cooldown=0.3)
    write_calibration(tmp_path / "run", 200, speed=10.0)
    chosen = R.plan(opts, tmp_path / "run", seconds_left=300.0, calibration_seconds=26.0)
    assert chosen["steps_per_second"] == 10 and chosen["startup_seconds"] == 6
    assert chosen["max_steps"] == 200 + int((300 - 6) * 0.9 * 10)  # the start, then 90% of the rest at 10 steps/s
    assert chosen["cooldown_steps"] == round(0.3 * chosen["max_steps"])
    assert chosen["planned_minutes"] * 60 <= 300 * (1 - opts.margin / 2)  # at the calibrated speed: inside
    assert R.plan(opts, tmp_path / "run", 5.0, 0.0) == chosen  # made once: kept in plan.json, whatever comes after
    write_calibration(tmp_path / "slow start", 200, speed=10.0)
    later = R.plan(opts, tmp_path / "slow start", seconds_left=300.0, calibration_seconds=56.0)
    assert later["max_steps"] == 200 + int((300 - 36) * 0.9 * 10)  # a slower start leaves fewer steps
    leg = R.planned_leg(R.TrainOptions(valid_every=500), chosen)
    assert (leg.max_steps, leg.cooldown_steps, leg.max_minutes) == (chosen["max_steps"], chosen["cooldown_steps"], 0)
    assert leg.end_step == chosen["max_steps"]  # no pause before it


def test_a_larger_batch_scales_the_rate_and_shortens_the_warm_up():
    base = R.TrainOptions(max_tokens=R.REFERENCE_TOKENS, warmup=1500, lr_factor=1.0)
    assert R.scaled_schedule(base) is base
    quadruple = R.scaled_schedule(R.dataclasses.replace(base, max_tokens=4 * R.REFERENCE_TOKENS))
    assert (quadruple.lr_factor, quadruple.warmup) == (2.0, 375)  # √4 × the rate, the same warm-up tokens


def test_only_one_phase_recipes_can_be_retrained():
    assert R.single_phase("ding+dialogue").phases[0].sources == R.RECIPES[1].phases[0].sources
    with pytest.raises(ValueError, match="one-phase recipes"):
        R.single_phase("everything→sentences+dialogue")
    with pytest.raises(ValueError, match="got 'nonsense'"):
        R.single_phase("nonsense")


def test_train_command_names_what_differs_and_parses_back(tmp_path):
    from transformer_viz.__main__ import build_parser

    opts = R.TrainOptions(out=str(tmp_path / "r"), d_model=32, resume=True, lr_factor=1.5, debian_sources="a,b")
    command = R.train_command(opts)
    assert command[1:5] == ["-m", "transformer_viz", "-v", "train"]
    assert "--d-model" in command and "--seed" not in command  # the default seed is not spelt out
    parsed = vars(build_parser().parse_args(command[3:]))
    fields = {f.name for f in R.dataclasses.fields(R.TrainOptions)}
    assert R.TrainOptions(**{k: v for k, v in parsed.items() if k in fields and v is not None}) == opts


def test_pack_cuts_a_folder_into_parts_that_put_it_together_again(tmp_path):
    folder = tmp_path / "seed000"
    (folder / "snapshots").mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(bytes(range(256)) * 1000)  # 256 kB
    (folder / "snapshots" / "index.json").write_text("{}")
    parts = R.pack(folder, tmp_path / "pack", part_mb=0.1)
    assert [p.name for p in parts] == [f"seed000.tar.{i:03d}" for i in range(len(parts))] and len(parts) == 3
    assert all(p.stat().st_size <= 100_000 for p in parts)
    out = tmp_path / "unpacked"
    out.mkdir()
    subprocess.run(f"cat {tmp_path / 'pack'}/seed000.tar.* | tar x -C {out}", shell=True, check=True)
    assert (out / "seed000" / "model.safetensors").read_bytes() == (folder / "model.safetensors").read_bytes()
    assert (out / "seed000" / "snapshots" / "index.json").read_text() == "{}"


def test_own_test_lines_must_be_pairs(tmp_path):
    bad = tmp_path / "own.tsv"
    bad.write_text("I see.\tIch sehe.\nno tab here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="english<TAB>german"):
        R.own_pairs(bad)
    assert R.own_pairs(None) == []


def test_retrain_needs_a_budget(capsys):
    with pytest.raises(SystemExit):
        main(["retrain"])
    assert "--minutes" in capsys.readouterr().err


def test_runs_share_out_the_gpus_one_each_in_turn(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert R.devices("auto", 3) == ["cuda:0", "cuda:1", "cuda:0"]
    assert R.devices("cpu", 2) == ["cpu", "cpu"]  # a device asked for by name is every run's
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert R.devices("auto", 2) == ["auto", "auto"]  # one GPU: side by side on it
