"""The command line, as a user runs it: `python -m transformer_viz …` in a fresh process, offline.

Each subprocess pays for importing torch, so they all start at once (module fixture) and the
tests read their results; cheaper checks call `main([...])` in this process.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz import __version__
from transformer_viz.__main__ import build_parser, main
from transformer_viz.errors import UserError
from transformer_viz.hub.hub import save_checkpoint
from transformer_viz.score import SCHEMA as SCORE_SCHEMA
from transformer_viz.score import table
from transformer_viz.trace import SCHEMA
from transformer_viz.translator import load_model

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = ["I see the house.", "my brother wants a cat."]
MAX_NEW = "8"
GERMAN = "ich sehe das Haus."


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    return save_checkpoint(
        tmp_path_factory.mktemp("cli") / "tiny", tiny_translator("seed000").model, tiny_tokenizer_file()
    )


@pytest.fixture(scope="module")
def runs(model_dir) -> dict[str, subprocess.CompletedProcess]:
    """Start every CLI process in parallel, then wait for all of them."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(ROOT),
        "TRANSFORMER_VIZ_MODEL": "",
    }
    model = ["--model", str(model_dir), "--max-new-tokens", MAX_NEW]
    out = model_dir.parent / "trace.json"
    commands = {
        "translate": (["translate", *SENTENCES, *model], None),
        "trace": (["trace", SENTENCES[0], "--out", str(out), *model], None),
        "missing": (["translate", "I see the house.", "--model", "/nonexistent"], None),
        "score": (["score", SENTENCES[0], GERMAN, "--model", str(model_dir)], None),
        "score-refused": (["score", SENTENCES[0], "<b> </b>", "--model", str(model_dir)], None),
        "version": (["--version"], None),
    }
    procs = {
        name: (
            subprocess.Popen(
                [sys.executable, "-m", "transformer_viz", *args],
                cwd=model_dir.parent,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
            stdin,
        )
        for name, (args, stdin) in commands.items()
    }
    results = {}
    for name, (proc, stdin) in procs.items():
        stdout, stderr = proc.communicate(stdin, timeout=300)
        results[name] = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    results["trace"].json_path = out
    return results


@pytest.fixture(scope="module")
def expected(model_dir):
    return load_model(model_dir, device="cpu")


def test_translate_prints_one_line_per_sentence(runs, expected):
    run = runs["translate"]
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == expected.translate(SENTENCES, max_new_tokens=int(MAX_NEW))
    assert "Traceback" not in run.stderr


def test_trace_writes_schema_json(runs, expected):
    run = runs["trace"]
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""  # the JSON went to the file; the translation and a note go to stderr
    data = json.loads(run.json_path.read_text(encoding="utf-8"))
    reference = expected.trace(SENTENCES[0], max_new_tokens=int(MAX_NEW))
    assert data["target"]["text"] in run.stderr and str(run.json_path) in run.stderr
    assert data["schema"] == SCHEMA
    assert {"source", "target", "steps", "attention", "masks", "positional_encoding", "model"} <= set(data)
    assert data["source"]["tokens"][-1] == "</s>"
    assert data["source"]["ids"] == reference.source_ids and data["target"]["ids"] == reference.target_ids
    S, T, cfg = len(data["source"]["ids"]), len(data["target"]["ids"]), expected.config
    assert len(data["steps"]) == T
    assert len(data["attention"]["cross"]) == cfg.n_layers and len(data["attention"]["cross"][0]) == cfg.n_heads
    assert len(data["attention"]["cross"][0][0]) == T and len(data["attention"]["cross"][0][0][0]) == S
    assert len(data["masks"]["decoder"]) == T and len(data["positional_encoding"]) == S
    assert len(data["positional_encoding"][0]) == cfg.d_model
    assert data["model"]["config"] == cfg.to_dict()


def test_missing_model_is_a_one_line_error(runs):
    run = runs["missing"]
    assert run.returncode != 0
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "/nonexistent" in lines[0]
    assert "Traceback" not in run.stderr


def test_score_prints_a_row_per_piece_and_both_totals(runs, expected):
    run = runs["score"]
    assert run.returncode == 0, run.stderr
    score = expected.score(SENTENCES[0], GERMAN)
    assert run.stdout.strip() == table(score)  # the library's table, as printed
    lines = run.stdout.splitlines()
    assert [line.split()[1] for line in lines[1 : 1 + len(score.pieces)]] == score.german.tokens
    assert f"your German: total log p = {score.german.total:.3f}" in run.stdout and "greedy" in run.stdout


def test_score_refuses_bad_german_with_its_message_and_a_non_zero_exit(runs):
    run = runs["score-refused"]
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == f"error: {UserError('err-german-only-markup')}"


def test_version(runs):
    run = runs["version"]
    assert run.returncode == 0
    assert run.stdout.strip() == f"transformer-viz {__version__}"


# ---------------------------------------------------------------------------- in process
def test_translate_reads_stdin_and_skips_blank_lines(model_dir, expected, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{SENTENCES[0]}\n\n  \n{SENTENCES[1]}\n"))
    assert main(["translate", "--model", str(model_dir), "--max-new-tokens", MAX_NEW]) == 0
    assert capsys.readouterr().out.splitlines() == expected.translate(SENTENCES, max_new_tokens=int(MAX_NEW))


def test_trace_to_stdout(model_dir, capsys):
    assert main(["trace", SENTENCES[1], "--model", str(model_dir), "--max-new-tokens", "4", "--compact"]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1  # --compact: one line
    data = json.loads(out)
    assert data["schema"] == SCHEMA and len(data["steps"]) == len(data["target"]["ids"]) <= 4


@pytest.mark.parametrize(
    "args, message",
    [
        (["translate", "   "], "empty"),
        (["translate", "hello", "--strategy", "beam", "--beam-size", "0"], "beam_size"),
        (["translate", "hello", "--temperature", "-1", "--strategy", "sample"], "temperature"),
        (["trace", "hello", "--top-p", "0"], "top_p"),
        (["translate", "hello", "--device", "gpu0"], "unknown device 'gpu0'"),
        pytest.param(
            ["translate", "hello", "--device", "cuda"],
            "no usable CUDA GPU",
            marks=pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA"),
        ),
    ],
)
def test_user_errors_exit_non_zero_with_one_line(model_dir, capsys, args, message):
    assert main([*args, "--model", str(model_dir)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0]


def test_score_json_is_the_scores_own(model_dir, expected, capsys):
    assert main(["score", SENTENCES[1], "mein Bruder will eine Katze 😀.", "--model", str(model_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(expected.score(SENTENCES[1], "mein Bruder will eine Katze 😀.").to_json())
    assert data["schema"] == SCORE_SCHEMA and data["pieces"][-1]["token"] == "</s>"
    assert any(p["unknown"] and p["rank"] is None for p in data["pieces"])


@pytest.mark.parametrize(
    "german, key",
    [
        ("", "err-german-empty"),
        ("Haus " * 600, "err-german-too-many-chars"),
        ("der Hund. " * 30, "err-german-too-long"),
    ],
)
def test_score_refuses_each_bad_german_with_its_keyed_line(model_dir, expected, capsys, german, key):
    assert main(["score", SENTENCES[0], german, "--model", str(model_dir)]) == 2
    out = capsys.readouterr()
    with pytest.raises(UserError) as refused:
        expected.score(SENTENCES[0], german)
    assert refused.value.key == key
    assert out.out == "" and out.err == f"error: {refused.value}\n"  # one line: the key's English text, filled in


def test_score_json_refuses_alike_and_prints_no_json(model_dir, capsys):
    assert main(["score", SENTENCES[0], "<b></b>", "--model", str(model_dir), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == f"error: {UserError('err-german-only-markup')}\n"  # nothing half-written


def test_training_into_a_checkpoint_without_resume_is_one_line(model_dir, capsys):
    before = {f.name: f.read_bytes() for f in model_dir.iterdir()}
    assert main(["train", "--out", str(model_dir), "--max-steps", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already holds a training run; pass --resume" in err[0]
    assert {f.name: f.read_bytes() for f in model_dir.iterdir()} == before


def test_train_has_a_typed_flag_for_every_option():
    from transformer_viz.training.train import TrainOptions

    args = build_parser().parse_args(
        ["train", "--d-model", "64", "--dropout", "0.2", "--snapshots", "3", "--kinds", "sentence", "--resume"]
    )
    assert (args.d_model, args.dropout, args.snapshots, args.kinds, args.resume) == (64, 0.2, 3, "sentence", True)
    assert args.n_heads is None and args.max_steps is None  # unset flags leave TrainOptions' defaults
    defaults = build_parser().parse_args(["train"])
    assert {f.name for f in dataclasses.fields(TrainOptions)} <= set(vars(defaults))


def test_unknown_command_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["translat", "x"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_serve_launches_the_app_from_the_package_with_analytics_off(tmp_path, monkeypatch):
    """`serve` needs no app.py beside the package (an installed copy has none) and turns Gradio's analytics off."""
    import transformer_viz.app.page as ui

    launched = []
    monkeypatch.setattr(ui, "launch", lambda: launched.append(os.environ.get("GRADIO_ANALYTICS_ENABLED")))
    monkeypatch.delenv("GRADIO_ANALYTICS_ENABLED", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["serve"]) == 0
    assert launched == ["False"]


def test_the_decoding_flags_are_the_chosen_options_with_their_defaults():
    """decoding.CHOSEN is the one definition: each option is a flag named after its field, defaulting to
    DecodeOptions', read as its type, and comes back as that field."""
    from transformer_viz.__main__ import decode_overrides
    from transformer_viz.decoding import CHOSEN, DecodeOptions

    defaults = decode_overrides(build_parser().parse_args(["translate", "Hi."]))
    assert defaults == {option.field: getattr(DecodeOptions(), option.field) for option in CHOSEN}
    given = dict(strategy="sample", beam_size="3", temperature="0.5", top_k="7", top_p="0.8", seed="9")
    given["max_new_tokens"] = "12"
    argv = [f"--{field.replace('_', '-')}={value}" for field, value in given.items()]
    got = decode_overrides(build_parser().parse_args(["trace", "Hi.", *argv]))
    assert got == {option.field: option.kind(given[option.field]) for option in CHOSEN}
    assert DecodeOptions(**got).validate().beam_size == 3
