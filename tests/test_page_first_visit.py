"""A first visit opens on a lesson: the example translated at step 0, its trace made once and shared read-only, its
lesson drawn for each visitor in their language and look; an empty link's box says only that it is empty."""

from __future__ import annotations

import json
from types import SimpleNamespace

import gradio as gr
import pytest

from tests.tiny import tiny_translator
from transformer_viz import i18n
from transformer_viz.app import handlers as h
from transformer_viz.app import models, traces
from transformer_viz.app.common import LESSON_EXAMPLE, LOOKS, Words
from transformer_viz.app.header import lay_out
from transformer_viz.app.links import link_reader
from transformer_viz.app.page import open_link as page_open_link
from transformer_viz.app.session import decode_options


def default_options() -> list:
    """The decoding options' controls' values as the page opens with them (header.options' order)."""
    with gr.Blocks():
        top = lay_out(Words(), ["tiny-a"])
    return [control.value for control in top.options]


@pytest.fixture
def page(empty_registry, monkeypatch):
    """The page's reader of its link, with one tiny model and a trace cache of its own."""
    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    monkeypatch.setattr(traces, "TRACES", traces.TraceCache())
    return link_reader(["tiny-a"], [], {})


def load(on_load, **query) -> SimpleNamespace:
    """What the page's load sets from a link with `query`: the sentence box, what to restore, the controls."""
    out = on_load(SimpleNamespace(query_params=query, headers={}))
    return SimpleNamespace(sentence=out[0], restored=out[3 + len(default_options())])


def open_link(page, sentence: str, lang="en", look=LOOKS[0], restored=None, shown=None) -> list:
    """The page load's translation of what is in the sentence box, for a page showing `shown` (`page`: its
    fixture, which registers the tiny model)."""
    return page_open_link(restored or {}, shown, lang, sentence, "tiny-a", 0, "mean", look, "pieces", *OPTIONS)


OPTIONS = default_options()


@pytest.mark.parametrize("query", [{}, {"lang": "ja"}, {"tab": "tab-pe", "model": "tiny-a"}])
def test_a_link_without_a_sentence_puts_the_example_in_the_box(page, query):
    loaded = load(page, **query)
    assert loaded.sentence["value"] == LESSON_EXAMPLE  # real text, not the placeholder
    assert "interactive" not in loaded.sentence  # the box stays disabled until the translation is on the page
    assert load(page, step="3", layer="1", head="2", **query).restored == {"layer": 1, "head": "2"}  # at step 0


def test_a_links_own_sentence_and_an_empty_one_stay_as_they_are(page):
    loaded = load(page, sentence="I see the house.", step="3", branch="1:7")
    assert loaded.sentence["value"] == "I see the house." and loaded.restored == {"step": 3, "branch": [(1, 7)]}
    assert load(page, sentence="", lang="ko").sentence["value"] == ""


def test_the_example_is_traced_once_and_each_visit_draws_its_lesson_in_its_language_and_look(page):
    first = open_link(page, LESSON_EXAMPLE, "ja")
    box, said, fresh, sess = first[:4]
    assert fresh is True and said == h.input_notices(sess.trace) and box["visible"] is bool(said)
    assert sess.trace.source_text == LESSON_EXAMPLE and sess.options == decode_options(*OPTIONS).__dict__
    lesson = first[-1]
    assert lesson["only"] == 0 and json.loads(lesson["key"])[2:4] == [LOOKS[0], "ja"]
    assert lesson["label"][0].startswith("ステップ 0") and lesson["plots"][lesson["ids"].index("plot-cross")][0]
    second = open_link(page, LESSON_EXAMPLE, "de", LOOKS[1])
    assert second[3].trace is sess.trace  # shared: the model ran once for both
    assert traces.TRACES.counts["computed"] == 1 and traces.TRACES.counts["found"] == 1
    assert all(not a.flags.writeable for a in sess.trace.attention.values())  # read-only
    again = second[-1]
    assert json.loads(again["key"])[2:4] == [LOOKS[1], "de"] and again["label"][0].startswith("Schritt 0")


def test_an_empty_link_is_answered_by_the_empty_box_message_alone(page):
    out = open_link(page, "", "en")
    box, said, fresh = out[:3]
    assert [err.key for err in said] == ["err-empty"] and fresh is False
    assert box["visible"] is True and box["value"] == h.sentence_message(said, "en")
    assert box["elem_classes"] == []  # no answer on the page to grey out
    assert i18n.text("notice-previous-kept", "en")[1:] not in box["value"]
    assert all(value == {"__type__": "update"} for value in out[3:])


def test_after_the_example_an_empty_box_keeps_it_and_says_so(page):
    sess = open_link(page, LESSON_EXAMPLE)[3]
    said = open_link(page, "  ", shown=sess)[1]
    assert [err.key for err in said] == ["err-empty", "notice-previous-kept"]
