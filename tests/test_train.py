"""Training: the Noam schedule, batching, and tiny end-to-end runs (loss, determinism, resume, DDP).

The corpus is a fake Ding file written here: ~1,900 combinatorial sentences, because the
default split holds out 1,000 test + 500 validation sentences (TrainOptions has no way to
ask for fewer), plus the single words, so that training sees every word.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from transformer_viz.corpus.pairs import Pair, load_corpus
from transformer_viz.hub.card import write_model_card
from transformer_viz.hub.hub import WEIGHTS_NAME
from transformer_viz.hub.model import load_transformer
from transformer_viz.model.config import PRESETS, TransformerConfig
from transformer_viz.training.batches import token_batches
from transformer_viz.training.options import MODEL_FIELDS
from transformer_viz.training.train import (
    METRICS_NAME,
    STATE_NAME,
    TrainOptions,
    average_weights,
    collate,
    encode_pairs,
    learning_rate,
    mix_kinds,
    noam_lr,
    source_word_dropout,
    train,
    validation_loss,
    weights_digest,
)
from transformer_viz.translator import load_model

ROOT = Path(__file__).resolve().parent.parent
SUBJECTS = [("I", "Ich"), ("You", "Du"), ("We", "Wir"), ("They", "Sie"), ("My brother", "Mein Bruder")]
VERBS = [
    ("see", "sehen"),
    ("like", "mögen"),
    ("have", "haben"),
    ("want", "wollen"),
    ("buy", "kaufen"),
    ("paint", "malen"),
]
OBJECTS = [
    ("the house", "das Haus"),
    ("a cat", "eine Katze"),
    ("the garden", "den Garten"),
    ("coffee", "Kaffee"),
    ("the dog", "den Hund"),
    ("a book", "ein Buch"),
    ("the car", "das Auto"),
    ("bread", "Brot"),
]
TIMES = [
    ("today", "heute"),
    ("tomorrow", "morgen"),
    ("now", "jetzt"),
    ("often", "oft"),
    ("again", "wieder"),
    ("at home", "zu Hause"),
    ("every day", "jeden Tag"),
    ("in the morning", "am Morgen"),
]


# ---------------------------------------------------------------------------- schedule and batches
def test_noam_lr_is_equation_3():
    d, warmup = 256, 100
    for step in (1, 10, 99, 100, 101, 1000, 10_000):
        assert noam_lr(step, d, warmup) == pytest.approx(d**-0.5 * min(step**-0.5, step * warmup**-1.5))
        assert noam_lr(step, d, warmup, factor=2.0) == pytest.approx(2 * noam_lr(step, d, warmup))
    lrs = [noam_lr(s, d, warmup) for s in range(1, 1000)]
    peak = max(range(len(lrs)), key=lrs.__getitem__) + 1
    assert peak == warmup and lrs[warmup - 1] == pytest.approx((d * warmup) ** -0.5)
    assert all(a < b for a, b in zip(lrs[: warmup - 1], lrs[1:warmup]))  # linear warm-up
    assert all(a > b for a, b in zip(lrs[warmup - 1 :], lrs[warmup:]))  # then ∝ step^-0.5
    assert noam_lr(400, d, warmup) == pytest.approx(noam_lr(100, d, warmup) / 2)
    assert noam_lr(0, d, warmup) == noam_lr(1, d, warmup) > 0  # step 0 is treated as step 1, no division by 0


def test_cooldown_scales_noam_linearly_to_its_last_step():
    opts = TrainOptions(warmup=100, max_steps=1000, cooldown_steps=400)
    assert [learning_rate(s, opts, 256) for s in (1, 100, 600)] == [noam_lr(s, 256, 100) for s in (1, 100, 600)]
    assert learning_rate(601, opts, 256) == pytest.approx(
        noam_lr(601, 256, 100)
    )  # the first cooled step is at full rate
    assert learning_rate(800, opts, 256) == pytest.approx(noam_lr(800, 256, 100) * 201 / 400)
    assert learning_rate(1000, opts, 256) == pytest.approx(
        noam_lr(1000, 256, 100) / 400
    )  # small, not 0: no wasted step
    cooled = [learning_rate(s, opts, 256) for s in range(601, 1001)]
    assert all(a > b for a, b in zip(cooled, cooled[1:]))
    assert learning_rate(1001, opts, 256) == 0.0  # past max_steps nothing moves
    plain = TrainOptions(warmup=100, max_steps=1000)
    assert learning_rate(1000, plain, 256) == noam_lr(1000, 256, 100)


def test_the_model_options_are_the_configs_own_fields():
    """TrainOptions sizes the model with TransformerConfig's fields and defaults; the preset decides the rest."""
    config_fields = {f.name: f for f in dataclasses.fields(TransformerConfig)}
    option_fields = {f.name: f for f in dataclasses.fields(TrainOptions)}
    for name in MODEL_FIELDS:
        assert option_fields[name].default == config_fields[name].default
        assert option_fields[name].type == config_fields[name].type
    config = TrainOptions(preset="seed004", d_model=16, n_heads=2, dropout=0.2).model_config(vocab_size=80)
    assert (config.d_model, config.n_heads, config.dropout, config.n_layers) == (16, 2, 0.2, TransformerConfig.n_layers)
    assert config.src_vocab_size == config.tgt_vocab_size == 80 and config.share_embeddings and config.tie_embeddings
    assert config.name == "seed004" and all(getattr(config, k) == v for k, v in PRESETS["seed004"].items())


def test_collate_shifts_targets_and_pads_with_zero():
    pad, bos, eos = 0, 2, 3
    examples = [([10, 11, 12, eos], [20, 21, eos]), ([13, eos], [22, 23, 24, 25, eos])]
    src, tgt_in, labels = collate(examples, pad, bos)
    assert src.tolist() == [[10, 11, 12, eos], [13, eos, pad, pad]]
    assert labels.tolist() == [[20, 21, eos, pad, pad], [22, 23, 24, 25, eos]]
    assert tgt_in.tolist() == [[bos, 20, 21, pad, pad], [bos, 22, 23, 24, 25]]
    assert src.dtype == tgt_in.dtype == labels.dtype == torch.long
    for row_in, row_out in zip(tgt_in.tolist(), labels.tolist()):  # decoder input = <s> + labels shifted right
        n = sum(t != pad for t in row_out)
        assert row_in[:n] == [bos] + row_out[: n - 1] and row_out[n - 1] == eos


def test_source_word_dropout_replaces_real_pieces_by_unk_only():
    pad, unk = 0, 1
    src = torch.tensor([[5, 6, 7, 3, pad, pad], [8, 9, 3, pad, pad, pad]])
    assert source_word_dropout(src, 0.0, unk, pad) is src  # off: the batch itself, no random numbers drawn
    assert source_word_dropout(src, 1.0, unk, pad).tolist() == [[unk] * 4 + [pad] * 2, [unk] * 3 + [pad] * 3]
    big = torch.randint(2, 50, (200, 100))
    big[:, 80:] = pad
    dropped = source_word_dropout(big, 0.25, unk, pad, generator=torch.Generator().manual_seed(0))
    assert torch.equal(dropped[:, 80:], big[:, 80:])  # padding stays padding
    changed = dropped[:, :80] != big[:, :80]
    assert (dropped[:, :80][changed] == unk).all()  # every change is to <unk>
    assert 0.23 < changed.float().mean().item() < 0.27
    assert torch.equal(big, big.clone())  # the input is not modified in place
    assert not torch.equal(source_word_dropout(big, 0.25, unk, pad), source_word_dropout(big, 0.25, unk, pad))


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(word_dropout=1.0), "word_dropout must be a probability"),
        (dict(word_dropout=-0.1), "word_dropout must be a probability"),
        (dict(average=-1), "average must be a number of validations"),
        (dict(valid_every=0), "valid_every must be at least 1"),
        (dict(warmup=0), "warmup must be at least 1"),
        (dict(max_tokens=0), "max_tokens must be at least 1"),
    ],
)
def test_bad_regularisation_options_are_refused_before_any_work(tmp_path, bad, message):
    with pytest.raises(ValueError, match=message):
        train(TrainOptions(out=str(tmp_path / "never"), corpus=str(tmp_path / "missing"), **bad))
    assert not (tmp_path / "never").exists()


def test_average_weights_is_the_elementwise_mean():
    states = [
        {"w": torch.tensor([1.0, 2.0]), "n": torch.tensor([2, 4])},
        {"w": torch.tensor([3.0, 6.0]), "n": torch.tensor([4, 8])},
        {"w": torch.tensor([5.0, 1.0]), "n": torch.tensor([6, 6])},
    ]
    mean = average_weights(states)
    assert torch.equal(mean["w"], torch.tensor([3.0, 3.0]))
    assert torch.equal(mean["n"], torch.tensor([4, 6])) and mean["n"].dtype == torch.long


def test_mix_kinds_keeps_the_chosen_kinds_and_a_sample_of_words():
    pairs = (
        [Pair(f"Sentence {i}.", f"Satz {i}.", "sentence") for i in range(5)]
        + [Pair(f"a phrase {i}", f"eine Wendung {i}", "phrase") for i in range(4)]
        + [Pair(f"word{i}", f"Wort{i}", "word") for i in range(10)]
    )
    mixed = mix_kinds(pairs, word_pairs=3, seed=0)
    assert sorted(p.kind for p in mixed) == ["phrase"] * 4 + ["sentence"] * 5 + ["word"] * 3
    assert mixed == mix_kinds(pairs, word_pairs=3, seed=0)  # seeded
    assert sorted(mix_kinds(pairs, 3, 0, kinds="sentence"), key=str) == sorted(pairs[:5], key=str)
    assert sorted(p.kind for p in mix_kinds(pairs, -1, 0, kinds="phrase, word")) == ["phrase"] * 4 + ["word"] * 10
    for bad in ("poems", "", "sentence,poems"):
        with pytest.raises(ValueError, match="kinds must name some of sentence, phrase, word"):
            mix_kinds(pairs, 3, 0, kinds=bad)
    with pytest.raises(ValueError, match="no pairs of the kinds"):
        mix_kinds(pairs[:5], 3, 0, kinds="word")


# ---------------------------------------------------------------------------- end to end
def write_fake_ding(path: Path) -> Path:
    """`German :: English` lines: every subject × verb × object × time sentence, plus the words."""
    lines = ["# a fake Ding dictionary for tests"]
    for (s, sd), (v, vd), (o, od), (w, wd) in itertools.product(SUBJECTS, VERBS, OBJECTS, TIMES):
        lines.append(f"{sd} {vd} {od} {wd}. :: {s} {v} {o} {w}.")
    lines += [f"{de} {{n}} :: {en}" for en, de in SUBJECTS + VERBS + OBJECTS + TIMES]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_fake_ding(tmp_path_factory.mktemp("ding") / "de-en")


def options(corpus: Path, out: Path, **overrides) -> TrainOptions:
    """A model of a few thousand parameters; dropout stays on so that resume must restore the RNG."""
    fields = dict(
        out=str(out),
        corpus=str(corpus),
        vocab_size=80,
        d_model=16,
        n_heads=2,
        n_layers=1,
        d_ff=32,
        dropout=0.1,
        max_len=32,
        max_tokens=512,
        max_steps=30,
        warmup=10,
        valid_every=10,
        threads=1,
        device="cpu",
        word_pairs=-1,
        seed=0,
    )
    return TrainOptions(**{**fields, **overrides})


def final_state(out: Path) -> dict[str, torch.Tensor]:
    """The weights after the last step (model.safetensors holds the best validation step instead)."""
    return torch.load(out / STATE_NAME, weights_only=True)["model"]


def assert_same_weights(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory) -> Path:
    return train(options(corpus, tmp_path_factory.mktemp("train") / "run"))


def test_fake_corpus_fills_the_default_split(corpus):
    splits = load_corpus(corpus)
    assert (len(splits.valid), len(splits.test)) == (500, 1000)
    assert len(splits.train) > 400
    held_out = {p.src for p in splits.valid + splits.test}
    assert not held_out & {p.src for p in splits.train}


def test_training_lowers_the_validation_loss(trained):
    metrics = [json.loads(line) for line in (trained / METRICS_NAME).read_text().splitlines()]
    assert [m["step"] for m in metrics] == [10, 20, 30]
    assert metrics[-1]["valid_loss"] < metrics[0]["valid_loss"] - 0.3
    assert all(math.isfinite(m["train_loss"]) for m in metrics)
    assert metrics[0]["valid_loss"] < math.log(80) + 1  # started near uniform over the vocabulary


def test_checkpoint_folder_loads_and_translates(trained):
    tr = load_model(trained, device="cpu")
    assert tr.config.d_model == 16 and tr.config.tie_embeddings and tr.config.share_embeddings
    assert isinstance(tr.translate("I see the house today.", max_new_tokens=8), str)
    record = json.loads((trained / "training.json").read_text())
    assert record["options"]["max_steps"] == 30 and record["last"]["step"] == 30


def test_training_is_deterministic(trained, corpus, tmp_path):
    again = train(options(corpus, tmp_path / "again"))
    assert_same_weights(final_state(again), final_state(trained))
    assert (again / WEIGHTS_NAME).read_bytes() == (trained / WEIGHTS_NAME).read_bytes()


def test_resume_continues_exactly(trained, corpus, tmp_path):
    """15 steps, stop, resume to 30 = 30 steps in one go, bit for bit (dropout RNG included)."""
    out = tmp_path / "resumed"
    train(options(corpus, out, max_steps=15))
    assert json.loads((out / "training.json").read_text())["last"]["step"] == 15
    train(options(corpus, out, max_steps=30, resume=True))
    assert_same_weights(final_state(out), final_state(trained))
    steps = [json.loads(line)["step"] for line in (out / METRICS_NAME).read_text().splitlines()]
    assert steps == [10, 15, 20, 30]
    runs = json.loads((out / "training.json").read_text())["runs"]  # both commands, for the model card
    assert [r["step"] for r in runs] == [15, 30] and runs[0]["started"] != runs[1]["started"]
    card = write_model_card(out).read_text()
    assert "run 1: `" in card and "→ step 15," in card and "run 2: `" in card and "→ step 30," in card
    assert (
        card.count("(this run on 1 process(es), device cpu)") == 2
        and "minutes of training in all; the last run on 1" in card
    )


def test_a_row_logged_after_the_saved_state_is_not_logged_twice(trained, corpus, tmp_path):
    """Killed after writing a validation's row but before its state: the resumed run repeats that step, once."""
    out = tmp_path / "killed"
    shutil.copytree(trained, out)
    state = torch.load(out / STATE_NAME, weights_only=True)
    torch.save({**state, "step": 20}, out / STATE_NAME)  # the state of step 20; the rows go on to step 30
    train(options(corpus, out, max_steps=30, resume=True))
    assert [json.loads(line)["step"] for line in (out / METRICS_NAME).read_text().splitlines()] == [10, 20, 30]


def test_resume_encodes_the_data_for_the_checkpoints_max_len(corpus, tmp_path, caplog):
    """A run with --max-len 16, resumed without repeating it: the pairs are cut to the model's 16, not the default."""
    out = tmp_path / "short"
    with caplog.at_level(logging.INFO, logger="transformer_viz.training.train"):
        train(options(corpus, out, max_len=16, max_steps=10))
        first = [r.message for r in caplog.records if "training pairs" in r.message]
        caplog.clear()
        train(options(corpus, out, max_steps=20, resume=True))  # options() says max_len=32
        second = [r.message for r in caplog.records if "training pairs" in r.message]
    assert first == second and len(first) == 1  # the same pairs, all within the model's positions
    assert json.loads((out / "config.json").read_text())["max_len"] == 16
    assert json.loads((out / "training.json").read_text())["last"]["step"] == 20


def test_resume_keeps_the_snapshots_to_average(corpus, tmp_path):
    """--average 3 stopped two steps before the end and resumed: the same mean, the same weights kept."""
    opts = dict(average=3, lr_factor=5.0, valid_every=2)
    whole = train(options(corpus, tmp_path / "whole", max_steps=40, **opts))
    out = tmp_path / "halves"
    train(options(corpus, out, max_steps=38, **opts))
    train(options(corpus, out, max_steps=40, resume=True, **opts))
    last = [json.loads(line) for line in (out / METRICS_NAME).read_text().splitlines()][-1]
    assert last == {
        **[json.loads(line) for line in (whole / METRICS_NAME).read_text().splitlines()][-1],
        "minutes": last["minutes"],
        "seconds": last["seconds"],  # wall clock: two runs never take the same time
    }
    assert last["averaged"] == 3
    assert (out / WEIGHTS_NAME).read_bytes() == (whole / WEIGHTS_NAME).read_bytes()


def test_continuing_from_weights_alone_must_beat_the_best_validation(trained, corpus, tmp_path, caplog):
    """Without train_state.pt (a shipped checkpoint) the saved weights are the best validated ones: a later
    validation replaces them only when it beats the lowest loss of the history, not merely the last one."""
    out = tmp_path / "weights-only"
    shutil.copytree(trained, out)
    (out / STATE_NAME).unlink()
    rows = [json.loads(line) for line in (out / METRICS_NAME).read_text().splitlines()]
    lowest = min(r["valid_loss"] for r in rows)
    rows[0]["valid_loss"] = lowest - 1.0  # a history whose best is far below anything the next steps reach
    (out / METRICS_NAME).write_text("".join(json.dumps(r) + "\n" for r in rows))
    kept = (out / WEIGHTS_NAME).read_bytes()
    with caplog.at_level(logging.INFO, logger="transformer_viz.training.train"):
        train(options(corpus, out, max_steps=40, resume=True))
    assert "continuing" in caplog.text and f"(best {lowest - 1.0:.3f})" in caplog.text
    assert (out / WEIGHTS_NAME).read_bytes() == kept


def test_a_new_run_into_a_used_folder_is_refused(trained, corpus, tmp_path):
    out = tmp_path / "used"
    shutil.copytree(trained, out)
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    with pytest.raises(FileExistsError, match="pass --resume"):
        train(options(corpus, out, max_steps=5))
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before  # nothing touched


def test_resuming_with_sentences_alone_fine_tunes_the_checkpoint(trained, corpus, tmp_path, caplog):
    """--resume --kinds sentence: the same weights and optimizer go on, on the corpus's sentences only."""
    out = tmp_path / "fine-tuned"
    shutil.copytree(trained, out)
    sentences = [p for p in load_corpus(corpus).train if p.kind == "sentence"]
    with caplog.at_level(logging.INFO, logger="transformer_viz.training.train"):
        train(options(corpus, out, max_steps=40, resume=True, kinds="sentence"))
    assert f"{len(sentences)} training pairs" in caplog.text and len(sentences) < len(load_corpus(corpus).train)
    # the saved batch position counted batches of all kinds: the sentences start an epoch of their own
    assert "the training data differ from the interrupted run's: a new epoch starts" in caplog.text
    record = json.loads((out / "training.json").read_text())
    assert record["last"]["epoch"] > json.loads((trained / "training.json").read_text())["last"]["epoch"]
    assert record["options"]["kinds"] == "sentence" and [r["step"] for r in record["runs"]] == [30, 40]
    assert [json.loads(line)["step"] for line in (out / METRICS_NAME).read_text().splitlines()] == [10, 20, 30, 40]


def test_resume_keeps_the_architecture_it_was_trained_with(trained, corpus, tmp_path):
    """Other --d-ff/--n-layers on --resume do not rebuild the model: the checkpoint's config.json wins."""
    out = tmp_path / "other-options"
    shutil.copytree(trained, out)
    train(options(corpus, out, max_steps=40, resume=True, d_ff=64, n_layers=2))
    config = json.loads((out / "config.json").read_text())
    assert (config["d_ff"], config["n_layers"]) == (32, 1)
    assert json.loads((out / "training.json").read_text())["last"]["step"] == 40


def test_weights_digest_identifies_the_weights(trained):
    state = final_state(trained)
    model = load_transformer(trained)
    assert weights_digest(state) == weights_digest(dict(state))  # a pure function of names and values
    changed = {k: v.clone() for k, v in state.items()}
    name = next(iter(changed))
    changed[name].view(-1)[0] += 1e-3
    assert weights_digest(changed) != weights_digest(state)
    assert len(weights_digest(model.state_dict())) == 64


@pytest.mark.parametrize("noisy", [True, False], ids=["noisy-rate-keeps-the-mean", "still-learning-keeps-the-last"])
def test_checkpoint_averaging_keeps_the_mean_only_when_it_validates_better(corpus, tmp_path, noisy):
    """--average 3: at the run's end the mean of the last three validations' weights is scored and kept if better.

    A rate 5× too high makes the weights wander around a minimum, where their mean is better; at a normal
    rate 30 steps in, the model is still improving quickly and the latest weights win.
    """
    opts = dict(lr_factor=5.0, max_steps=40, valid_every=2) if noisy else dict(max_steps=30, valid_every=10)
    out = train(options(corpus, tmp_path / "averaged", average=3, **opts))
    rows = [json.loads(line) for line in (out / METRICS_NAME).read_text().splitlines()]
    assert rows[-1]["averaged"] == 3 and not any("averaged" in r for r in rows[:-1])  # scored once, at the end
    assert (
        json.loads((out / "training.json").read_text())["last"]["averaged_valid_loss"]
        == rows[-1]["averaged_valid_loss"]
    )

    # The weights at the last three validations, from runs stopped there (training is deterministic).
    steps = [r["step"] for r in rows[-3:]]
    snapshots = [final_state(train(options(corpus, tmp_path / f"to{s}", **{**opts, "max_steps": s}))) for s in steps]
    mean = average_weights(snapshots)
    tokenizer = load_model(out, device="cpu").tokenizer
    examples = encode_pairs(load_corpus(corpus).valid, tokenizer, 32)
    batches = token_batches([(len(s), len(t)) for s, t in examples], 512, shuffle=False)
    model = load_transformer(out)
    model.load_state_dict(mean)
    assert validation_loss(model, examples, batches, 0, 2, "cpu") == pytest.approx(
        rows[-1]["averaged_valid_loss"], abs=1e-4
    )

    kept = load_transformer(out).state_dict()
    best_single = min(r["valid_loss"] for r in rows)
    assert (rows[-1]["averaged_valid_loss"] < best_single) == noisy  # the two regimes of the docstring
    expected = mean if noisy else final_state(out)  # still learning: the last step is also the best
    assert rows[-1]["valid_loss"] == best_single or noisy
    for name, tensor in kept.items():
        assert torch.allclose(tensor, expected[name], atol=1e-6), name
    assert (
        f"the mean of the last 3 validations' weights scored {rows[-1]['averaged_valid_loss']}"
        in write_model_card(out).read_text()
    )


# ---------------------------------------------------------------------------- torchrun, 2 CPU processes
@pytest.mark.slow
def test_distributed_ranks_end_with_identical_weights(corpus, tmp_path):
    out = tmp_path / "ddp"
    run = torchrun(corpus, tmp_path, options(corpus, out, max_steps=6, valid_every=3))
    assert run.returncode == 0, run.stderr[-3000:]
    digests = {}
    for line in run.stderr.splitlines():
        if "final weights sha256" in line:
            rank = int(line.split("rank ")[1].split()[0])
            digests[rank] = line.rsplit(" ", 1)[-1]
    assert sorted(digests) == [0, 1], run.stderr[-3000:]
    assert digests[0] == digests[1]  # DDP kept the replicas in lockstep
    assert weights_digest(final_state(out)) == digests[0]  # and rank 0 saved exactly those weights
    record = json.loads((out / "training.json").read_text())
    assert record["processes"] == 2 and record["last"]["step"] == 6
    single = train(options(corpus, tmp_path / "single", max_steps=6, valid_every=3))
    assert weights_digest(final_state(single)) != digests[0]  # two ranks saw different batches than one

    # 3 steps, then --resume to 6: each rank goes on with its own dropout masks, so the weights are the same.
    halves = tmp_path / "ddp-halves"
    first = torchrun(corpus, tmp_path, options(corpus, halves, max_steps=3, valid_every=3))
    assert first.returncode == 0, first.stderr[-3000:]
    second = torchrun(corpus, tmp_path, options(corpus, halves, max_steps=6, valid_every=3), "--resume")
    assert second.returncode == 0, second.stderr[-3000:]
    assert weights_digest(final_state(halves)) == digests[0]


def torchrun(corpus, cwd: Path, opts: TrainOptions, *extra: str) -> subprocess.CompletedProcess:
    """`python -m transformer_viz train` with these options in 2 CPU processes under torchrun."""
    args = [f"--{k.replace('_', '-')}={v}" for k, v in vars(opts).items() if k not in ("resume",)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node=2",
            "-m",
            "transformer_viz",
            "train",
            *args,
            *extra,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def write_debian_corpus(folder: Path, sources: dict[str, list[tuple[str, str]]]) -> Path:
    """A built corpus as `corpus build` leaves it: corpus.json naming the sources, one english<TAB>german TSV each."""
    folder.mkdir(parents=True)
    (folder / "corpus.json").write_text(json.dumps({"sources": {name: {} for name in sources}}), encoding="utf-8")
    for name, pairs in sources.items():
        (folder / f"{name}.tsv").write_text("".join(f"{en}\t{de}\n" for en, de in pairs), encoding="utf-8")
    return folder


def test_a_built_debian_corpus_joins_dings_pairs_without_its_held_out_sentences(corpus, tmp_path, caplog):
    splits = load_corpus(corpus)
    leaked = splits.valid[0]  # a validation sentence that a game happens to contain too
    games = [(f"Run {i}!", f"Lauf {i}!") for i in range(7)]  # short: the pairs the trainer encodes fit max_len
    manual = [("Open the file.", "Öffnen Sie die Datei.")]
    folder = write_debian_corpus(tmp_path / "debian", {"games": [*games, (leaked.src, leaked.tgt)], "manual": manual})

    def pairs_trained_on(**overrides) -> int:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="transformer_viz.training.train"):
            train(options(corpus, tmp_path / f"run-{len(list(tmp_path.iterdir()))}", max_steps=1, **overrides))
        return int(re.search(r"(\d+) training pairs", caplog.text).group(1))

    ding_alone = pairs_trained_on()
    assert ding_alone == len(splits.train)
    assert pairs_trained_on(debian_corpus=str(folder)) == ding_alone + len(games) + len(manual)  # the leak is dropped
    assert pairs_trained_on(debian_corpus=str(folder), debian_sources="manual") == ding_alone + len(manual)
    with pytest.raises(ValueError, match="has no sources"):
        train(options(corpus, tmp_path / "unknown", max_steps=1, debian_corpus=str(folder), debian_sources="poems"))
