"""A language is added by adding its catalogue: a sixth one, French with a handful of texts, is offered by the
page's language menu, chosen by a link or the browser, and spoken by the page and the figures; what it lacks is
said in English. No browser: the page is built with gradio's Blocks and its language switch called as the page
calls it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import transformer_viz.figures as F
from tests.tiny import tiny_translator
from transformer_viz import i18n
from transformer_viz.app import models

ROOT = Path(__file__).resolve().parents[1]
FRENCH = {
    "language-name": "Français",
    "translate": "Traduire",
    "tab-cross": "Attention croisée",
    "fig-kind-cross": "Attention croisée (décodeur → encodeur)",
    "fig-grid-title": "{kind} · Couche {layer} · Têtes 0–{last} et leur moyenne",
}


def write_catalogue(folder: Path, code: str, texts: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{code}.json").write_text(json.dumps(texts, ensure_ascii=False, indent=2), encoding="utf-8")
    return folder


@pytest.fixture
def french(tmp_path, monkeypatch):
    """French loaded from a folder of its own beside the shipped catalogues, for one test."""
    monkeypatch.setattr(i18n, "CATALOGUES", {lang: dict(texts) for lang, texts in i18n.CATALOGUES.items()})
    monkeypatch.setattr(i18n, "LANGUAGES", dict(i18n.LANGUAGES))
    assert i18n.load(write_catalogue(tmp_path / "more", "fr", FRENCH)) == ["fr"]


def test_a_sixth_catalogue_is_a_language_of_the_page(french):
    shipped = {"en": "English", "de": "Deutsch", "ja": "日本語", "ko": "한국어", "zh": "简体中文"}
    assert i18n.LANGUAGES == {**shipped, "fr": "Français"}  # offered after the shipped ones
    assert i18n.language("fr-CA") == "fr"  # a link's ?lang=fr-CA
    assert i18n.from_accept_language("fr-FR,fr;q=0.9,en;q=0.5") == "fr"  # the browser's choice
    assert i18n.text("translate", "fr") == "Traduire"
    assert i18n.text("sentence", "fr") == i18n.text("sentence", "en") == "English sentence"  # not in French: English
    assert i18n.text("notice-cut-tokens", "fr", n=7) == i18n.text("notice-cut-tokens", "en", n=7)


def test_the_language_menu_offers_it_and_the_switch_speaks_it(french, empty_registry):
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out
    from transformer_viz.app.page import relabel

    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    words = Words()
    with gr.Blocks():
        top = lay_out(words, ["tiny-a"])
    menu = top.lang
    assert [tuple(choice) for choice in menu.choices] == [(name, code) for code, name in i18n.LANGUAGES.items()]
    assert ("Français", "fr") in [tuple(choice) for choice in menu.choices]
    # the switch: every text of the first screen in the chosen language, English where French lacks one
    relabelled = words.components + [top.notices, top.branch_md, top.tokens, top.sentence_error]
    said = dict(zip([c.elem_id for c in relabelled], relabel(words, "fr", None, []), strict=True))
    assert said["translate"]["value"] == "Traduire"
    assert said["sentence"]["label"] == "English sentence"


def test_a_figure_speaks_it(french, trace):
    english = F.attention_grid(trace, "cross", 1, step=1).layout.title.text
    with F.language("fr"):
        french_title = F.attention_grid(trace, "cross", 1, step=1).layout.title.text
    assert french_title.startswith("Attention croisée (décodeur → encodeur) · Couche 1 · Têtes 0–")
    assert french_title.split("<br>")[1:] == english.split("<br>")[1:]  # the step line: not in French, English


def test_a_folder_named_in_the_environment_is_read_at_import(tmp_path):
    folder = write_catalogue(tmp_path / "more", "fr", FRENCH)
    env = {**os.environ, i18n.EXTRA_FOLDERS: str(folder), "PYTHONPATH": str(ROOT)}
    shown = "from transformer_viz import i18n; print(i18n.LANGUAGES['fr'], i18n.text('translate', 'fr-FR'))"
    result = subprocess.run([sys.executable, "-c", shown], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Français", "Traduire"]


def test_a_later_folder_rewords_a_language_it_already_has(french, tmp_path):
    i18n.load(write_catalogue(tmp_path / "reworded", "en", {"translate": "Translate it"}))
    assert i18n.text("translate", "en") == "Translate it" and i18n.LANGUAGES["en"] == "English"
    assert i18n.text("sentence", "en") == "English sentence"  # the rest as shipped


@pytest.mark.parametrize(
    "name, texts, refused",
    [
        ("French", FRENCH, "named by its language's code"),
        ("xx", {"translate": "?"}, "name its language in itself"),
        ("xx", {"language-name": "X", "translate": {"nested": "?"}}, "one JSON object of key → text"),
    ],
)
def test_a_catalogue_the_page_could_not_use_is_refused_and_leaves_the_others(french, tmp_path, name, texts, refused):
    folder = write_catalogue(tmp_path / "bad", name, texts)
    before = {lang: dict(texts) for lang, texts in i18n.CATALOGUES.items()}, dict(i18n.LANGUAGES)
    with pytest.raises(ValueError, match=refused):
        i18n.load(folder)
    assert (i18n.CATALOGUES, i18n.LANGUAGES) == before
    with pytest.raises(FileNotFoundError):
        i18n.load(tmp_path / "nowhere")
