"""The server's paths warmed at start (app/warm.py): in launch(), beside the server, never in build_demo()."""

from __future__ import annotations

import threading

import gradio as gr
import pytest

from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz.app import models, page, traces, warm
from transformer_viz.app.common import LESSON_EXAMPLE
from transformer_viz.app.model_card import model_card
from transformer_viz.app.session import translate
from transformer_viz.decoding import DecodeOptions
from transformer_viz.hub import hub

BUNDLED = {"seed000": dict(max_len=16), "seed004": dict(n_layers=1, n_heads=2, max_len=16)}


@pytest.fixture
def bundled(tmp_path, monkeypatch, empty_registry):
    """Two tiny models as the bundled checkpoints, none of them loaded yet; a trace cache of the test's own."""
    for preset, shape in BUNDLED.items():
        hub.save_checkpoint(tmp_path / preset, tiny_translator(preset, **shape).model, tiny_tokenizer_file())
    for module in (hub, models, warm):
        monkeypatch.setattr(module, "CHECKPOINTS_DIR", tmp_path)
    monkeypatch.delenv(models.HUB_MODEL_ENV, raising=False)
    monkeypatch.setattr(traces, "TRACES", traces.TraceCache())
    return list(BUNDLED)


def warm_up_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "warm-up"]


def test_warm_up_loads_each_model_makes_its_card_and_traces_a_sentence_with_it(bundled):
    parts = warm.warm_up()
    assert list(parts) == ["models", "cards", "traces", "figures"] and all(s >= 0 for s in parts.values())
    assert sorted(models._models) == bundled  # loaded once, shared from now on
    cards = model_card.cache_info().hits
    for name in bundled:
        model_card(models.get_translator(name))
    assert model_card.cache_info().hits == cards + len(bundled)  # made already
    computed = traces.TRACES.counts["computed"]
    for name in bundled:
        translate(warm.WARM_SENTENCE, name, DecodeOptions())
    assert traces.TRACES.counts["computed"] == computed  # traced already: a visitor asking for it is served at once


def test_building_the_page_warms_nothing_and_launching_it_warms_once_the_server_answers(bundled, monkeypatch):
    """The server answers first (its start does not wait for the warm-up, nor share the processor with it); the
    warm-up follows in its own thread, while the process serves."""
    said = []

    def answering(demo, **options):
        said.append(("answers", options, bool(warm_up_threads()) or bool(models._models)))

    monkeypatch.setattr(gr.Blocks, "launch", answering)
    monkeypatch.setattr(gr.Blocks, "block_thread", lambda demo: said.append(("serves", warm_up_threads())))
    page.build_demo()
    assert models._models == {} and not warm_up_threads()  # tests build the page often: it stays cheap
    page.launch(server_port=7999)
    (answers, options, warming), (serves, threads) = said
    assert (answers, serves) == ("answers", "serves") and options["prevent_thread_lock"] and not warming
    assert options["server_port"] == 7999
    for thread in threads:  # started once the server answered; it may have ended already
        thread.join(timeout=120)
    assert sorted(models._models) == bundled and traces.TRACES.counts["computed"] == len(bundled)


def test_a_first_visit_after_the_warm_up_finds_the_examples_trace_made(bundled):
    """The example a first visit opens on is what the warm-up traces, with the options the page opens with: the
    page's load translates it without running the model."""
    from tests.test_page_first_visit import default_options

    assert warm.WARM_SENTENCE == LESSON_EXAMPLE
    warm.warm_up()
    computed = traces.TRACES.counts["computed"]
    out = page.open_link({}, None, "en", LESSON_EXAMPLE, bundled[0], 0, "mean", "screen", "pieces", *default_options())
    assert out[2] is True and out[3].trace.source_text == LESSON_EXAMPLE
    assert traces.TRACES.counts["computed"] == computed and traces.TRACES.counts["found"] >= 1
