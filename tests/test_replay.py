"""Training replay: a tiny model trained a few steps with snapshots, its translations teacher-forced through each.

The run is test_train's: 30 steps on the fake Ding corpus, a validation every 10, four snapshots (10, 14, 21, 30).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.test_train import SUBJECTS, VERBS, options, write_fake_ding
from transformer_viz.figures import replay as figures_replay
from transformer_viz.hub.hub import CheckpointError
from transformer_viz.lab import analysis
from transformer_viz.lab import replay as R
from transformer_viz.lab.compare import teacher_forced_trace
from transformer_viz.trace import Trace
from transformer_viz.training.snapshots import list_snapshots, load_snapshot
from transformer_viz.training.train import train
from transformer_viz.translator import Translator, load_model

# Sentences the run trained on, with the German it was taught (the fake corpus' subject × verb × object × time).
TRAINED = [
    (f"{s} {v} the house today.", f"{sd} {vd} das Haus heute.") for (s, sd), (v, vd) in zip(SUBJECTS[:4], VERBS[:4])
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    corpus = write_fake_ding(tmp_path_factory.mktemp("ding") / "de-en")
    return train(options(corpus, tmp_path_factory.mktemp("replay") / "run", snapshots=4, max_steps=60))


@pytest.fixture(scope="module")
def translator(run):
    return load_model(run, device="cpu")


def pair_ids(translator: Translator, english: str, german: str) -> tuple[list[int], list[int]]:
    source = translator.encode_sources([english])[0][0].tolist()
    return source, translator.tokenizer.encode(german)


def test_replay_loads_every_snapshot_and_reads_the_learning_curve(run, translator):
    trace = translator.trace(TRAINED[0][0], max_new_tokens=10)
    result = R.replay(translator, run, trace.source_ids, trace.target_ids)
    snapshots = list_snapshots(run)
    assert result.steps == [s.step for s in snapshots] and len(result) == len(snapshots) >= 4
    assert result.valid_loss == [s.valid_loss for s in snapshots]
    L, H, T, S = trace.attention["cross"].shape
    assert result.probs.shape == (len(result), T) and result.cross.shape == (len(result), L, H, T, S)
    assert np.allclose(result.cross.sum(-1), 1, atol=1e-5)  # each snapshot's rows are distributions
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert result.curve["step"] == [r["step"] for r in rows]
    assert result.curve["valid_loss"] == [r["valid_loss"] for r in rows]


def test_each_snapshots_numbers_are_its_own_teacher_forced_trace(run, translator):
    """The probabilities, patterns and head labels of each snapshot are those of a full teacher-forced Trace made
    with that snapshot's weights by the library's own teacher forcing and head summary."""
    english = TRAINED[1][0]
    trace = translator.trace(english, max_new_tokens=10)
    result = R.replay(translator, run, trace.source_ids, trace.target_ids)
    for n, snapshot in enumerate(list_snapshots(run)):
        own = Translator(load_snapshot(run, snapshot), translator.tokenizer, name="snapshot")
        forced = teacher_forced_trace(own, english, trace.target_ids)
        assert np.allclose(result.probs[n], [s["prob"] for s in forced.steps], atol=1e-5)
        assert np.allclose(result.cross[n], forced.attention["cross"], atol=1e-6)
        assert result.labels[n] == analysis.head_summary(forced, "cross").labels


def test_p_of_the_taught_translation_rises_along_training(run, translator):
    """On sentences the model trained on, every snapshot gives their German more probability than the one before:
    the mean log p over the steps rises from snapshot to snapshot, and the final translation's own tokens too."""
    means = []
    for english, german in TRAINED:
        source, target = pair_ids(translator, english, german)
        means.append(np.log(R.replay(translator, run, source, target).probs).mean(axis=1))  # (N,)
    curve = np.mean(means, axis=0)
    assert all(b > a for a, b in zip(curve, curve[1:])), curve
    assert curve[-1] > curve[0] + 0.5, curve
    trace = translator.trace(TRAINED[0][0], max_new_tokens=10)
    own = np.log(R.replay(translator, run, trace.source_ids, trace.target_ids).probs).mean(axis=1)
    assert own[-1] > own[0], own


def test_a_replay_leaves_the_shared_model_as_it_was(run, translator):
    before = {name: t.clone() for name, t in translator.model.state_dict().items()}
    trace = translator.trace(TRAINED[2][0], max_new_tokens=10)
    R.replay(translator, run, trace.source_ids, trace.target_ids)
    after = translator.model.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.equal(before[name], after[name]) for name in before)
    assert not translator.model.training


def test_the_replay_is_cached_per_model_and_sentence_and_fills_a_copy_of_the_trace(run, translator):
    trace = translator.trace(TRAINED[3][0], max_new_tokens=10)
    first, replayed = R.replay_of_trace(translator, run, trace)
    assert R.replay_of_trace(translator, run, trace)[0] is first  # computed once
    other = translator.trace(TRAINED[0][0], max_new_tokens=10)
    assert R.replay_of_trace(translator, run, other)[0] is not first
    assert trace.replay is None and replayed is not trace  # the trace given is left as it is: it may be shared
    assert list(replayed.replay["steps"]) == first.steps and np.array_equal(replayed.replay["probs"], first.probs)
    assert replayed.target_ids == trace.target_ids and replayed.attention is trace.attention
    again = Trace.from_dict(json.loads(replayed.to_json()))
    assert list(again.replay["steps"]) == first.steps
    assert np.allclose(again.replay["probs"], first.probs, atol=1e-6)
    no_replay = Trace.from_dict(json.loads(other.to_json()) | {"replay": None})
    assert no_replay.replay is None


def test_a_folder_without_snapshots_has_no_replay(tmp_path, translator):
    assert not R.has_snapshots(tmp_path) and not R.has_snapshots(None)
    with pytest.raises(CheckpointError, match="no training snapshots"):
        R.replay(translator, tmp_path, [5, 3], [6, 3])
    assert R.learning_curve(tmp_path) == {"step": [], "train_loss": [], "valid_loss": []}


def test_replay_figures_show_the_chosen_snapshot(run, translator):
    trace = translator.trace(TRAINED[0][0], max_new_tokens=10)
    result = R.replay(translator, run, trace.source_ids, trace.target_ids)
    for presentation in (False, True):
        figs = figures_replay.replay_figures(trace, result, 1, layer=0, presentation=presentation)
        probs, loss = figs["probs"], figs["loss"]
        heat = next(d for d in probs.data if d.type == "heatmap")
        assert np.allclose(np.asarray(heat.z), result.probs.T, atol=1e-6)  # rows: steps, columns: snapshots
        assert str(result.steps[1]) in probs.layout.title.text and str(result.steps[1]) in loss.layout.title.text
        marked = [s for s in loss.layout.shapes if s.type == "line"]
        assert [s.x0 for s in marked] == [result.steps[1]]
        grid = figs["grid"]
        assert np.allclose(np.asarray(grid.data[0].z), result.cross[1, 0, 0], atol=1e-6)
        assert str(result.steps[1]) in grid.layout.title.text
        assert figs["heads"].layout.title.text


# ---------------------------------------------------------------------------- the tab's handlers (no browser)
def test_the_tab_replays_a_model_with_snapshots_and_says_when_there_are_none(run, translator, tmp_path, monkeypatch):
    from tests.tiny import tiny_tokenizer_file, tiny_translator
    from transformer_viz.app import models
    from transformer_viz.app import session as sessions
    from transformer_viz.app.tabs import beyond_replay as tab
    from transformer_viz.hub.hub import save_checkpoint

    monkeypatch.setattr(models, "_models", {})
    name = str(run)  # a folder is a model name the page can load
    models.register_translator(name, translator)
    sess = sessions.translate(TRAINED[0][0], name, sessions.decode_options("greedy", 4, 1, 0, 1, 0, 10))
    said, button, slider, replayed, *boxes = tab.closed(sess, "ja", None)
    assert "4" in said and button["interactive"] and replayed is None and all(not b["visible"] for b in boxes)
    said, slider, replayed, replayed_sess, *boxes, download = tab.on_run("en", sess, 0, "screen")
    # the slider counts snapshots as its line does: 1 to 4, at the last
    assert replayed == tab.replayed_key(sess) and (slider["minimum"], slider["maximum"], slider["value"]) == (1, 4, 4)
    assert said.startswith("Snapshot 4 of 4:")
    assert f"training step {list_snapshots(run)[-1].step}" in said and all(b["visible"] for b in boxes)
    steps = [s.step for s in list_snapshots(run)]
    assert list(replayed_sess.trace.replay["steps"]) == steps and sess.trace.replay is None  # a copy holds it
    offered = json.loads(Path(download["value"]).read_text(encoding="utf-8"))  # the download, offered anew, has it
    assert offered["replay"]["steps"] == steps and len(offered["replay"]["probs"]) == len(steps)
    said, *boxes = tab.redraw("ko", sess, replayed, 1, 0, "screen")  # the slider at its first value
    assert "스냅숏 1 / 4" in said
    grid = json.loads(boxes[0]["value"].plot)
    assert "학습 단계 10" in grid["layout"]["title"]["text"]

    bare = tmp_path / "bare"  # the shipped checkpoints: no snapshots yet
    save_checkpoint(bare, tiny_translator("seed000").model, tiny_tokenizer_file())
    models.register_translator(str(bare), tiny_translator("seed000"))
    plain = sessions.translate("I see the house.", str(bare), sessions.decode_options("greedy", 4, 1, 0, 1, 0, 6))
    for lang, words in (("en", "no training snapshots"), ("ja", "スナップショットがありません")):
        said, button, *_ = tab.closed(plain, lang, None)
        assert words in said and not button["interactive"]
    assert "Translate a sentence first" in tab.closed(None, "en", None)[0]


def test_a_late_new_session_event_keeps_a_replay_of_its_own_translation(run, translator, monkeypatch):
    """The new-session events can reach the page after the visitor pressed "Replay training" for that session:
    the replay stays. A replay of another translation is closed, and the slider does not redraw it."""
    import gradio as gr

    from transformer_viz.app import models
    from transformer_viz.app import session as sessions
    from transformer_viz.app.tabs import beyond_replay as tab

    monkeypatch.setattr(models, "_models", {})
    name = str(run)
    models.register_translator(name, translator)
    options = sessions.decode_options("greedy", 4, 1, 0, 1, 0, 10)
    sess = sessions.translate(TRAINED[0][0], name, options)
    replayed = tab.on_run("en", sess, 0, "screen")[2]
    again = sessions.translate(TRAINED[0][0], name, options)  # the same translation, a new session
    assert all(value == gr.skip() for value in tab.closed(again, "en", replayed))
    other = sessions.translate(TRAINED[1][0], name, options)
    assert tab.replayed_key(other) != replayed  # another source sentence
    said, button, slider, key, *boxes = tab.closed(other, "en", replayed)
    assert key is None and button["interactive"] and not any(b["visible"] for b in boxes)
    said, *boxes = tab.redraw("en", other, replayed, 1, 0, "screen")  # the slider, before closed arrives
    assert said == tab.status(other, "en")[0] and all(b == gr.skip() for b in boxes)


PAGE_WIDTHS = {"grid": 1230, "heads": 610, "probs": 610, "loss": 1230}  # each box's width on a 1280 px page


@pytest.mark.browser
@pytest.mark.parametrize("presentation", [False, True], ids=["screen", "slides"])
def test_the_replay_figures_keep_their_text_inside_and_apart(browser, run, translator, presentation):
    """Drawn by Plotly in Chromium at the widths the tab gives them: no text outside its SVG, no two overlapping."""
    from tests.test_figures_fit import misfits, settled
    from transformer_viz.figures.style import style

    trace = translator.trace(TRAINED[0][0], max_new_tokens=10)
    result = R.replay(translator, run, trace.source_ids, trace.target_ids)
    figs = figures_replay.replay_figures(trace, result, 1, layer=0, presentation=presentation)
    boxes = "".join(
        f'<div id="box-{name}" style="width:{PAGE_WIDTHS[name]}px">'
        + fig.to_html(full_html=False, include_plotlyjs=(name == "grid"))
        + "</div>"
        for name, fig in figs.items()
    )
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        page.set_content(f"<html><body style='margin:0'>{boxes}</body></html>")
        found = {name: misfits(settled(page, f"box-{name}", style(presentation).font_size)) for name in figs}
        assert not any(found.values()), found
    finally:
        context.close()
