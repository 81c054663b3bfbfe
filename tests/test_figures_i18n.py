"""Figures speak the visitor's language: titles, axes, legends and hovers in Japanese, Korean, Chinese and German,
English unchanged.

figures.language(lang) is a context: it must not leak out of its block, nor into another thread.
"""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import transformer_viz.figures as F
from tests.tiny import tiny_tokenizer_file, tiny_translator
from transformer_viz import i18n
from transformer_viz.app import handlers as h
from transformer_viz.app import handlers_lab as lab
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.decoding import DecodeOptions
from transformer_viz.figures.style import esc
from transformer_viz.hub.hub import save_checkpoint
from transformer_viz.lab import analysis
from transformer_viz.lab.compare import compare
from transformer_viz.probes.interventions import Intervention

SENTENCE = "the dog sees the dog."
SCRIPTS = {
    "ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"),
    "ko": re.compile(r"[\uac00-\ud7af]"),
    "zh": re.compile(r"[\u4e00-\u9fff]"),
}
# Names that stay as they are in every language: the detectors' labels and the decoding strategies (the
# explanations and the menus use them too), and the seeds.
KEPT_NAMES = re.compile(r"\b(self|previous|next|sink|alignment|mixed|greedy|beam|sample)\b|seed\s*\d+")
# Names a language keeps in Latin letters where its textbooks do: Chinese writes softmax as it is.
KEPT_IN = {"zh": re.compile(r"\bsoftmax\b")}
ENGLISH_WORD = re.compile(r"[A-Za-z]{4,}")


@pytest.fixture(scope="module")
def traces(translator, trace, beam_trace):
    """(greedy trace, beam trace, a comparison with one cross head ablated, one with the padding bug)."""
    options = DecodeOptions(max_new_tokens=6)
    ablated = compare(translator, SENTENCE, Intervention(ablate=[("cross", 0, 1)]), options)
    padded = compare(translator, SENTENCE, Intervention(bug="target_padding_unmasked"), options)
    return trace, beam_trace, ablated, padded


def builders(traces) -> dict:
    """Every figure builder, called as the app calls it (no caller-supplied titles)."""
    t, beam, ablated, padded = traces
    pe = t.positional_encoding
    out = {}
    for kind in ("encoder_self", "decoder_self", "cross"):
        out[f"grid {kind}"] = lambda kind=kind: F.attention_grid(t, kind, 1, step=1)
        out[f"head {kind}"] = lambda kind=kind: F.attention_head(t, kind, 0, "mean", step=1)
        out[f"overview {kind}"] = lambda kind=kind: F.overview(t, kind)
        out[f"summary {kind}"] = lambda kind=kind: F.head_summary_figure(t, kind)
        out[f"words {kind}"] = lambda kind=kind: F.word_attention_figure(t, kind, 1, 2)
        out[f"side by side {kind}"] = lambda kind=kind: F.attention_side_by_side(
            ablated.forced_original, ablated.forced_changed, kind, 0, 1
        )
    out.update(
        {
            "alignment": lambda: F.alignment(t, 1, head=0, step=1),
            "topk": lambda: F.topk_bar(t, 1),
            "beam tree": lambda: F.beam_tree_figure(beam),
            "no beam tree": lambda: F.beam_tree_figure(t),
            "encoder padding mask": lambda: F.encoder_padding_mask(t, partner_len=len(t.source_ids) + 2),
            "causal mask": lambda: F.decoder_causal_mask(t, 1),
            "cross mask": lambda: F.cross_mask(t, 1),
            "pipeline": lambda: F.score_pipeline(t, 1, 1, step=1),
            "pe heatmap": lambda: F.positional_heatmap(pe, tokens=t.source_tokens),
            "pe curves": lambda: F.positional_curves(pe),
            "pe similarity": lambda: F.position_similarity(pe),
            "rollout": lambda: F.rollout_figure(t, layer=1),
            "rollout words": lambda: F.rollout_figure(t, layer=0, words=True),
            "probability change": lambda: F.probability_change(ablated.forced_original, ablated.forced_changed),
            "padding": lambda: F.padding_side_by_side(
                padded.padded_original,
                padded.padded_changed,
                padded.forced_original.target_tokens,
                padded.padded_keys,
                padded.left_pad,
                1,
                0,
            ),
        }
    )
    return out


def tokens_of(traces) -> set[str]:
    """Every token label a figure may show, escaped as the figures show them."""
    tokens = set()
    for t in (traces[0], traces[1], traces[2].forced_original, traces[2].forced_changed, traces[3].forced_original):
        for pieces in (t.source_tokens, t.target_tokens, t.decoder_input_tokens):
            words = analysis.word_level(np.zeros((len(pieces), len(pieces))), pieces, pieces)[1]
            tokens |= {*pieces, *words}
        tokens |= {o["token"] for step in t.steps for o in step["top_k"]}
    tokens |= {*traces[3].padded_keys}
    return {esc(token) for token in tokens}


def words_shown(fig) -> dict[str, list[str]]:
    """The figure's words by where they appear: titles (figure, panels, axes, colour bars, legend) and the rest."""
    layout = fig.layout.to_plotly_json()
    titles = [layout["title"]["text"]] + [note["text"] for note in layout.get("annotations", [])]
    for key, value in layout.items():
        if re.fullmatch(r"[xy]axis\d*", key):
            titles.append(value.get("title", {}).get("text", ""))
            titles += value.get("ticktext", [])
        if key.startswith("coloraxis"):
            titles.append(value.get("colorbar", {}).get("title", {}).get("text", ""))
    titles.append(layout.get("legend", {}).get("title", {}).get("text", ""))
    other = []
    for trace in fig.data:
        data = trace.to_plotly_json()
        if data.get("showlegend", True):
            titles.append(data.get("name", ""))
        titles.append(data.get("colorbar", {}).get("title", {}).get("text", ""))
        titles += data.get("colorbar", {}).get("ticktext", [])
        other.append(data.get("hovertemplate", ""))
        for key in ("hovertext", "text"):
            values = data.get(key)
            other += [str(v) for v in np.ravel(np.asarray(values, dtype=object))] if values is not None else []
    return {"titles": [t for t in titles if t], "other": [t for t in other if t]}


def english_left(text: str, tokens: set[str], lang: str = "en") -> list[str]:
    """Words of four or more Latin letters, once tokens, Plotly placeholders, HTML and kept names are removed."""
    for token in sorted(tokens, key=len, reverse=True):
        if len(re.sub(r"[^A-Za-z]", "", token)) >= 4:
            text = text.replace(token, " ")
    text = re.sub(r"%\{[^}]*\}|<[^>]*>|&[a-z]+;|&#\d+;", " ", text)
    if lang in KEPT_IN:
        text = KEPT_IN[lang].sub(" ", text)
    return ENGLISH_WORD.findall(KEPT_NAMES.sub(" ", text))


@pytest.mark.parametrize("lang", ["ja", "ko", "zh"])
def test_every_figure_speaks_the_language(traces, lang):
    tokens = tokens_of(traces)
    for name, build in builders(traces).items():
        with F.language(lang):
            fig = build()
        shown = words_shown(fig)
        assert SCRIPTS[lang].search(fig.layout.title.text), (name, fig.layout.title.text)
        for where in ("titles", "other"):
            left = [
                (text, english_left(text, tokens, lang)) for text in shown[where] if english_left(text, tokens, lang)
            ]
            assert not left, (name, where, left)


def test_every_figure_has_a_german_title(traces):
    """German shares English's letters: each figure's title is the German catalogue's, not the English one."""
    for name, build in builders(traces).items():
        english = build().layout.title.text
        with F.language("de"):
            german = build().layout.title.text
        assert german != english, (name, english)


@pytest.mark.parametrize("lang", ["de", "ja", "ko", "zh"])
def test_the_mask_matrix_axis_titles_default_to_the_language(traces, lang):
    t = traces[0]
    with F.language(lang):
        fig = F.mask_matrix(t.masks["cross"], t.target_tokens, t.source_tokens, "mask")
    expected = [i18n.CATALOGUES[lang]["fig-key"], i18n.CATALOGUES[lang]["fig-query"]]
    assert [fig.layout.xaxis.title.text, fig.layout.yaxis.title.text] == expected


def test_english_is_exactly_the_default(traces):
    for name, build in builders(traces).items():
        default = F.figure_json(build())
        with F.language("en"):
            assert F.figure_json(build()) == default, name
        with F.language("en-GB"):
            assert F.figure_json(build()) == default, name


def test_the_detector_labels_are_those_of_the_analysis():
    """The English figure labels are analysis.LABEL_NAMES, so the two cannot drift apart."""
    assert {name: i18n.text(f"fig-label-{name}", "en") for name in analysis.LABEL_NAMES} == analysis.LABEL_NAMES


def test_figure_texts_keep_plotly_placeholders_in_every_language():
    """Plotly's %{x} is written %{{x}} in a template: every language fills the same Plotly fields."""
    english = i18n.CATALOGUES[i18n.DEFAULT]
    for lang, catalogue in i18n.CATALOGUES.items():
        for key, text in catalogue.items():
            if key.startswith("fig-"):
                plotly_fields = [sorted(re.findall(r"%\{\{[^}]*\}\}", words)) for words in (text, english[key])]
                assert plotly_fields[0] == plotly_fields[1], (lang, key)
                assert "%{" not in re.sub(r"%\{\{", "", text), (lang, key)  # a single brace would be a format field


def test_the_language_does_not_leak_out_of_its_block(traces):
    build = builders(traces)["grid cross"]
    english = build().layout.title.text
    with F.language("ja"):
        assert F.current_language() == "ja"
        with F.language("ko"):
            assert SCRIPTS["ko"].search(build().layout.title.text)
        assert F.current_language() == "ja" and SCRIPTS["ja"].search(build().layout.title.text)
    assert F.current_language() == "en" and build().layout.title.text == english
    with pytest.raises(RuntimeError), F.language("ko"):
        raise RuntimeError("a builder failed")
    assert F.current_language() == "en" and build().layout.title.text == english


def test_two_threads_build_in_two_languages_at_once(traces):
    build = builders(traces)["summary decoder_self"]
    both_inside = threading.Barrier(2, timeout=30)
    titles, errors = {}, []

    def visitor(lang: str) -> None:
        try:
            with F.language(lang):
                both_inside.wait()  # each thread has set its language before either builds
                titles[lang] = build().layout.title.text
                both_inside.wait()
        except Exception as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)

    threads = [threading.Thread(target=visitor, args=(lang,)) for lang in ("ja", "ko")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert SCRIPTS["ja"].search(titles["ja"]) and not SCRIPTS["ko"].search(titles["ja"])
    assert SCRIPTS["ko"].search(titles["ko"]) and not SCRIPTS["ja"].search(titles["ko"])
    assert F.current_language() == "en"


@pytest.fixture
def registered(translator, empty_registry):
    models.register_translator("tiny", translator)
    return sessions.translate(SENTENCE, "tiny", sessions.decode_options("greedy", 3, 1.0, 0, 1.0, 0, 6))


@pytest.mark.parametrize("lang", ["ja", "ko", "zh"])
def test_the_handlers_build_every_view_in_the_visitors_language(registered, translator, lang, monkeypatch, tmp_path):
    trace = registered.trace
    comparison = lab.run_comparison(registered, lab.intervention_from_ui(["cross 0 1"]))
    # The positional comparison reads bundled checkpoints: one tiny learned-positions model stands in for them.
    save_checkpoint(tmp_path / "seed004", tiny_translator("seed004").model, tiny_tokenizer_file())
    monkeypatch.setattr(models, "CHECKPOINTS_DIR", tmp_path)
    monkeypatch.setattr(models, "available_models", lambda folder=tmp_path: ["seed004"])
    models.register_translator("seed004", tiny_translator("seed004"))
    views = {
        **h.step_figures(trace, 1, 1, "2", False, lang=lang),
        **h.static_figures(trace, 1, "cross", False, lang=lang),
        **h.comparison_figures(False, lang=lang),
        **h.analysis_figures(trace, 1, False, lang=lang),
        **lab.lab_figures(comparison, "cross", 1, "mean", False, lang=lang),
    }
    for key, fig in views.items():
        assert SCRIPTS[lang].search(fig.layout.title.text), (key, fig.layout.title.text)
    assert "seed004" in views["plot-pe-learned"].layout.title.text
    assert F.current_language() == "en"
    english = h.comparison_figures(False)
    assert english["plot-pe-learned"].layout.title.text == "Learned positions of seed004 (first 64)"
    assert english["plot-pe-sinusoidal"].layout.title.text == "Sinusoidal positions, the formula at D = 32"
