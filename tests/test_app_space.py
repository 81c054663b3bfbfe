"""On a Hugging Face Space the page offers "Duplicate this Space" beside its title, in the visitor's language; anywhere
else (a laptop, a classroom server) it has no such button, which would do nothing there."""

from __future__ import annotations

import gradio as gr
import pytest

from transformer_viz import i18n
from transformer_viz.app.common import Words
from transformer_viz.app.header import lay_out_duplicate, space_id

SPACE = {"SYSTEM": "spaces", "SPACE_ID": "owner/transformer-viz"}  # what a Space's environment holds


@pytest.mark.parametrize(
    "environ, expected",
    [
        (SPACE, "owner/transformer-viz"),
        ({}, None),  # a laptop
        ({"SPACE_ID": "owner/transformer-viz"}, None),  # the variable copied elsewhere: gradio's button would not work
        ({"SYSTEM": "spaces"}, None),
        ({"SYSTEM": "spaces", "SPACE_ID": ""}, None),
    ],
)
def test_the_page_knows_it_runs_on_a_space_as_gradio_does(environ, expected):
    assert space_id(environ) == expected


def duplicate_button(monkeypatch, environ: dict) -> tuple[gr.DuplicateButton | None, Words]:
    for name in ("SYSTEM", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    words = Words()
    with gr.Blocks():
        button = lay_out_duplicate(words)
    return button, words


def test_on_a_space_the_page_offers_to_duplicate_it_in_the_visitors_language(monkeypatch):
    button, words = duplicate_button(monkeypatch, SPACE)
    assert isinstance(button, gr.DuplicateButton) and button.elem_id == "duplicate-space"
    assert button.value == i18n.text("duplicate-space") == "Duplicate this Space"
    for lang in i18n.LANGUAGES:  # the language switch relabels it
        (update,) = words.updates(lang)
        assert update["value"] == i18n.text("duplicate-space", lang)
    assert len({i18n.text("duplicate-space", lang) for lang in i18n.LANGUAGES}) == len(i18n.LANGUAGES)


def test_anywhere_else_there_is_no_button(monkeypatch):
    button, words = duplicate_button(monkeypatch, {})
    assert button is None and words.entries == []
    button, words = duplicate_button(monkeypatch, {"SPACE_ID": "owner/transformer-viz"})
    assert button is None and words.entries == []
