"""Choosing the data mixture: pausing a run, recipes of phases, branching, bf16, and the curves' table."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import torch

from tests.test_train import assert_same_weights, final_state, options, write_debian_corpus, write_fake_ding
from transformer_viz.corpus.pairs import load_corpus
from transformer_viz.errors import UserError
from transformer_viz.training import mixtures
from transformer_viz.training.evaluate import exact_share
from transformer_viz.training.mixtures import EVERYTHING, Phase, Recipe, curves_table, phase_options, run_recipes
from transformer_viz.training.options import uses_bf16
from transformer_viz.training.records import METRICS_NAME
from transformer_viz.training.snapshots import list_snapshots
from transformer_viz.training.train import train


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_fake_ding(tmp_path_factory.mktemp("ding") / "de-en")


@pytest.fixture(scope="module")
def debian(tmp_path_factory) -> Path:
    games = [(f"Run {i} times!", f"Lauf {i} Mal!") for i in range(40)]
    manual = [(f"Open file {i}.", f"Öffnen Sie Datei {i}.") for i in range(40)]
    return write_debian_corpus(tmp_path_factory.mktemp("built") / "corpus", {"games": games, "manual": manual})


def steps_of(out: Path) -> list[int]:
    return [json.loads(line)["step"] for line in (out / METRICS_NAME).read_text().splitlines()]


def record(out: Path) -> dict:
    return json.loads((out / "training.json").read_text())


def test_a_paused_run_resumed_is_the_run_never_paused(corpus, tmp_path):
    """pause_at stops and saves mid-schedule; --resume goes on to the same weights and the same snapshot steps."""
    whole = train(options(corpus, tmp_path / "whole", snapshots=4))
    paused = tmp_path / "paused"
    train(options(corpus, paused, snapshots=4, pause_at=15))
    assert record(paused)["last"]["step"] == 15 and steps_of(paused) == [10, 15]
    assert [s.step for s in list_snapshots(paused)] == [s.step for s in list_snapshots(whole) if s.step <= 15]
    train(options(corpus, paused, snapshots=4, pause_at=15, resume=True))  # already there: nothing to train
    assert record(paused)["last"]["step"] == 15
    train(options(corpus, paused, snapshots=4, resume=True))
    assert_same_weights(final_state(paused), final_state(whole))
    assert [s.step for s in list_snapshots(paused)] == [s.step for s in list_snapshots(whole)]


def test_end_step_is_max_steps_unless_paused_before_it(corpus, tmp_path):
    assert options(corpus, tmp_path).end_step == 30
    assert options(corpus, tmp_path, pause_at=12).end_step == 12
    assert options(corpus, tmp_path, pause_at=99).end_step == 30


def test_a_phase_names_its_data_and_stops_at_its_share_of_the_steps(corpus, tmp_path, debian):
    base = options(corpus, tmp_path / "unused", max_steps=40)
    ding = phase_options(base, tmp_path / "a", Phase(1.0), debian)
    assert (ding.debian_corpus, ding.end_step, ding.resume, ding.out) == ("", 40, True, str(tmp_path / "a"))
    every = phase_options(base, tmp_path / "b", Phase(0.75, EVERYTHING), debian)
    assert (every.debian_corpus, every.debian_sources, every.end_step) == (str(debian), "", 30)
    some = phase_options(base, tmp_path / "c", Phase(1.0, ("games", "manual"), kinds="sentence"), debian)
    assert (some.debian_sources, some.kinds, some.max_steps) == ("games,manual", "sentence", 40)


def test_the_shipped_recipes_compare_the_mixtures_the_issue_names():
    names = [r.name for r in mixtures.RECIPES]
    assert names[:3] == ["ding", "ding+dialogue", "ding+everything"]
    ends_on = mixtures.RECIPES[3]
    assert ends_on.phases[0].sources == EVERYTHING and ends_on.phases[-1].kinds == "sentence"
    assert ends_on.branch_of == "ding+everything" and ends_on.phases[-1].until == 1.0


RECIPES = (
    Recipe("games", (Phase(1.0, ("games",)),)),
    Recipe("games→manual", (Phase(0.5, ("games",)), Phase(1.0, ("manual",), kinds="sentence")), branch_of="games"),
)


def test_a_branch_copies_its_parent_where_their_data_part(corpus, debian, tmp_path):
    base = options(corpus, tmp_path / "unused", max_steps=20, snapshots=3)
    runs = run_recipes(base, tmp_path / "runs", debian, RECIPES)
    parent, child = runs["games"], runs["games→manual"]
    assert [r["step"] for r in record(parent)["runs"]] == [10, 20]  # paused at the split, then on to the end
    assert [r["step"] for r in record(child)["runs"]] == [10, 20]
    assert record(child)["options"]["debian_sources"] == "manual" and record(child)["options"]["kinds"] == "sentence"
    assert record(parent)["options"]["debian_sources"] == "games"
    shared = [s for s in list_snapshots(child) if s.step <= 10]
    assert shared and all(s.path.read_bytes() == (parent / "snapshots" / s.path.name).read_bytes() for s in shared)
    later = [s.step for s in list_snapshots(child) if s.step > 10]
    assert (
        later
        and (child / "snapshots" / f"step-{later[-1]:07d}.safetensors").read_bytes()
        != (parent / "snapshots" / f"step-{later[-1]:07d}.safetensors").read_bytes()
    )

    again = run_recipes(base, tmp_path / "runs", debian, RECIPES)  # everything is there: nothing trains again
    assert again == runs and [r["step"] for r in record(child)["runs"]] == [10, 20]

    shutil.rmtree(child)  # the parent is past the split: the branch cannot be taken from it any more
    with pytest.raises(ValueError, match="past step 10"):
        run_recipes(base, tmp_path / "runs", debian, RECIPES)


def test_a_branch_must_start_as_its_parent_does(corpus, debian, tmp_path):
    unlike = (RECIPES[0], Recipe("x", (Phase(0.5, ("manual",)), Phase(1.0)), branch_of="games"))
    with pytest.raises(ValueError, match="does not start as games does"):
        run_recipes(options(corpus, tmp_path / "u", max_steps=4), tmp_path / "runs", debian, unlike)


def test_bf16_trains_under_autocast_and_other_precisions_are_refused(corpus, tmp_path):
    with pytest.raises(UserError, match="precision must be one of fp32, bf16"):
        train(options(corpus, tmp_path / "bad", precision="fp16"))
    fp32 = train(options(corpus, tmp_path / "fp32", max_steps=20))
    bf16 = train(options(corpus, tmp_path / "bf16", max_steps=20, precision="bf16"))
    losses = {p: [json.loads(x)["valid_loss"] for x in (o / METRICS_NAME).read_text().splitlines()] for p, o in
              (("fp32", fp32), ("bf16", bf16))}  # fmt: skip
    assert losses["bf16"][-1] < losses["bf16"][0] and all(math.isfinite(v) for v in losses["bf16"])
    assert abs(losses["bf16"][-1] - losses["fp32"][-1]) < 0.2  # the same run, to bfloat16's precision
    a, b = final_state(fp32), final_state(bf16)
    assert any(not torch.equal(a[name], b[name]) for name in a)  # the products really ran in bfloat16
    assert all(t.dtype == torch.float32 for t in b.values() if t.is_floating_point())  # weights stay fp32


@pytest.mark.parametrize("avx512_bf16, amx", [(False, False), (True, False), (False, True)])
def test_auto_precision_takes_bf16_only_where_the_cpu_multiplies_it(monkeypatch, avx512_bf16, amx):
    """Emulated bfloat16 is several times slower than fp32: "auto" takes it only with AVX-512 BF16 or AMX."""
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
    cpu = torch.device("cpu")
    assert uses_bf16("auto", cpu) is (avx512_bf16 or amx)
    assert uses_bf16("bf16", cpu) and not uses_bf16("fp32", cpu)  # an explicit choice stands


def test_auto_precision_on_a_cpu_without_bf16_trains_as_fp32_does(monkeypatch, corpus, tmp_path, caplog):
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    fp32 = train(options(corpus, tmp_path / "fp32", max_steps=6))
    auto = train(options(corpus, tmp_path / "auto", max_steps=6, precision="auto"))
    assert_same_weights(final_state(fp32), final_state(auto))
    with caplog.at_level("WARNING"):
        train(options(corpus, tmp_path / "bf16", max_steps=1, precision="bf16"))
    assert "no bfloat16 arithmetic" in caplog.text  # an explicit bf16 runs, but says what it costs here


def test_snapshots_are_scored_in_step_order(corpus, debian, tmp_path):
    base = options(corpus, tmp_path / "unused", max_steps=20, snapshots=3)
    runs = run_recipes(base, tmp_path / "runs", debian, RECIPES[:1])
    test = load_corpus(corpus).test[:6]
    rows = mixtures.score_snapshots(runs["games"], test)
    assert [r["step"] for r in rows] == [s.step for s in list_snapshots(runs["games"])]
    assert all(0 <= r["chrf"] <= 100 and r["sentences"] == 6 and "hypotheses" not in r for r in rows)
    assert [r["valid_loss"] for r in rows] == [s.valid_loss for s in list_snapshots(runs["games"])]


def test_exact_share_counts_identical_translations():
    assert exact_share(["Ja.", " Nein. "], ["Ja.", "Nein."]) == 100.0
    assert exact_share(["Ja.", "Nein"], ["Ja.", "Nein."]) == 50.0
    assert exact_share([], []) == 0.0


def test_the_curves_table_has_a_column_per_step_and_blanks_where_a_run_has_none():
    result = {
        "a": [dict(step=10, chrf=20.0), dict(step=30, chrf=41.25)],
        "b": [dict(step=10, chrf=25.5), dict(step=20, chrf=30.0)],
    }
    lines = curves_table(result).splitlines()
    assert lines[0] == "| recipe | step 10 | step 20 | step 30 |"
    assert lines[2] == "| a | 20.0 |  | 41.2 |" and lines[3] == "| b | 25.5 | 30.0 |  |"
