"""The logit lens and attention-vs-attribution figures draw exactly the lab's numbers; the tab's handler fills the
visitor's trace without touching the shared model."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch

from tests.tiny import tiny_translator
from transformer_viz import figures, i18n
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.tabs import beyond_attribution
from transformer_viz.figures.style import esc, piece_label
from transformer_viz.lab import agreement as ag
from transformer_viz.lab.attribution import attribute
from transformer_viz.trace import residual_points

SENTENCE = "the dog wants a cat."


@pytest.fixture(scope="module", params=["seed000", "seed004"])
def made(request):
    """(one preset's tiny translator, its trace of SENTENCE)."""
    translator = tiny_translator(request.param)
    return translator, translator.trace(SENTENCE, max_new_tokens=6)


@pytest.fixture(scope="module")
def translator(made):
    return made[0]


@pytest.fixture(scope="module")
def trace(made):
    return made[1]


@pytest.fixture(scope="module")
def attributed(translator, trace):
    return dataclasses.replace(trace, attribution=attribute(translator.model, trace.source_ids, trace.target_ids, 8))


def test_the_lens_figure_shows_the_lens(trace):
    fig = figures.logit_lens_figure(trace)
    top, contributions = fig.data
    lens = trace.logit_lens
    np.testing.assert_allclose(np.asarray(top.z), lens["chosen_probs"], atol=1e-6)
    np.testing.assert_allclose(np.asarray(contributions.z), lens["contributions"], atol=1e-6)
    shown = [[text.rstrip("…") for text in row] for row in top.text]
    for row, pieces in zip(shown, lens["top_tokens"]):
        assert all(esc(piece_label(p)).startswith(text) for text, p in zip(row, pieces))
    assert len(fig.layout.yaxis.ticktext) == len(residual_points(trace.n_layers))
    assert list(fig.layout.xaxis.ticktext) == [esc(piece_label(tok)) for tok in trace.target_tokens]
    assert fig.layout.meta["download"] == "logit-lens"
    norm = "LayerNorm" in fig.layout.title.text
    assert norm == trace.logit_lens["final_norm"]


def test_long_pieces_are_cut_to_their_cells():
    texts, font = figures.lens.fitted_texts([["▁Donaudampfschifffahrt", "a"]], cell_px=40, font_size=12)
    assert font == 8 and texts[0][0].endswith("…") and len(texts[0][0]) * 0.6 * font <= 40
    assert texts[0][1] == "a"


def test_the_attribution_maps_before_and_after_the_gradients(trace, attributed):
    before = figures.attribution_figure(trace, layer=0)
    assert len(before.data) == 3 and i18n.text("fig-attr-not-yet") in before.layout.title.text
    layer, best, words, weights = ag.attention_words(trace, 0)
    np.testing.assert_allclose(np.asarray(before.data[0].z), weights["attention"], atol=1e-6)
    after = figures.attribution_figure(attributed, layer=0)
    assert len(after.data) == 5 and i18n.text("fig-attr-not-yet") not in after.layout.title.text
    ig = ag.agreement(attributed, 0).signed["integrated_gradients"]
    np.testing.assert_allclose(np.asarray(after.data[3].z), ig / np.abs(ig).max(-1, keepdims=True), atol=1e-6)
    assert np.abs(np.asarray(after.data[3].z)).max(-1) == pytest.approx(1.0)
    assert f"L{best[0]} H{best[1]}" in after.layout.annotations[1].text
    assert after.layout.meta["download"] == "attention-vs-attribution_L0"


def test_the_agreement_table_holds_rho_and_top1(attributed):
    found = ag.agreement(attributed, 1)
    fig = figures.agreement_figure(attributed, layer=1)
    z = np.asarray(fig.data[0].z)
    T = len(attributed.target_ids)
    assert z.shape == (T + 1, len(ag.METHODS))
    for j, method in enumerate(ag.METHODS):
        np.testing.assert_allclose(z[:T, j], found.rho[method], atol=1e-6)
        assert z[T, j] == pytest.approx(found.mean_rho(method), nan_ok=True)
        marks = [text.endswith("✓") for text in np.asarray(fig.data[0].text)[:T, j]]
        assert marks == list(found.top1[method])
        assert fig.data[0].text[T][j].endswith(f"{int(found.top1[method].sum())}/{T}")


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_the_figures_speak_the_language(trace, attributed, lang):
    with figures.language(lang):
        titles = [
            figures.logit_lens_figure(trace).layout.title.text,
            figures.attribution_figure(attributed).layout.title.text,
            figures.agreement_figure(attributed).layout.title.text,
        ]
    keys = ("fig-lens-title", "fig-attr-title", "fig-attr-agreement-title")
    for title, key in zip(titles, keys):
        assert i18n.CATALOGUES[lang][key].split("{")[0].split(":")[0] in title


def test_the_button_fills_the_visitors_trace_and_leaves_the_model_alone(translator, empty_registry):
    models.register_translator("tiny", translator)
    sess = sessions.translate(SENTENCE, "tiny", sessions.decode_options("greedy", 3, 1.0, 0, 1.0, 0, 6))
    before = {name: p.detach().clone() for name, p in translator.model.state_dict().items()}
    new, maps, table, download = beyond_attribution.on_attribute("ja", sess, 0, "screen")
    assert sess.trace.attribution is None and new.trace.attribution is not None  # a new session, the old kept
    assert all(p.grad is None for p in translator.model.parameters())
    assert all(torch.equal(before[name], p) for name, p in translator.model.state_dict().items())
    assert table["visible"] is True and "スピアマン" in json.loads(table["value"].plot)["layout"]["title"]["text"]
    assert len(json.loads(maps.plot)["data"]) == 5
    written = json.loads(open(download["value"], encoding="utf-8").read())
    np.testing.assert_allclose(
        written["attribution"]["integrated_gradients"], new.trace.attribution["integrated_gradients"], atol=1e-5
    )
    assert beyond_attribution.agreement_view(sess, 0, "screen", "en")["visible"] is False
