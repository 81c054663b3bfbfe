"""The app's handlers as plain functions: no browser, no gradio, tiny random models."""

from __future__ import annotations

import dataclasses
import html
import json
import math
import os
import time
from urllib.parse import parse_qsl

import numpy as np
import pytest
import torch

from tests.tiny import EVIL, MARKUP, bundle_learned_model, shown, tiny_tokenizer_file, tiny_translator
from transformer_viz import i18n
from transformer_viz.app import downloads, models, share
from transformer_viz.app import handlers as h
from transformer_viz.app import session as sessions
from transformer_viz.app.model_card import model_card
from transformer_viz.decoding import DecodeOptions
from transformer_viz.errors import Notice
from transformer_viz.figures import esc
from transformer_viz.figures.style import WORD_START, piece_label
from transformer_viz.hub.hub import save_checkpoint
from transformer_viz.model.hooks import hook_names
from transformer_viz.translator import Translator

SENTENCE = "I see the house."
UI_DEFAULTS = dict(strategy="greedy", beam_size=4, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_new_tokens=64)

pytestmark = pytest.mark.usefixtures("empty_registry")  # each test registers the models it uses, and leaves none


@pytest.fixture(scope="module")
def translators():
    """Two tiny presets with different positional encodings and block layouts."""
    return {"tiny-a": tiny_translator("seed000", max_len=24), "tiny-b": tiny_translator("seed004", max_len=24)}


@pytest.fixture
def session(translators):
    for name, tr in translators.items():
        models.register_translator(name, tr)
    return sessions.translate(SENTENCE, "tiny-a", sessions.decode_options(*UI_DEFAULTS.values()))


def axis_ticks(fig) -> list[list[str]]:
    """The tick labels of every axis of a figure (x before y, subplots in order)."""
    layout = fig.layout.to_plotly_json()
    return [
        list(layout[key]["ticktext"])
        for key in sorted(layout)
        if key.startswith(("xaxis", "yaxis")) and layout[key].get("ticktext") is not None
    ]


def escaped(tokens) -> list[str]:
    return [esc(piece_label(t)) for t in tokens]


# ---------------------------------------------------------------- translate and decode options
def test_translate_records_the_translators_trace(session, translators):
    expected = translators["tiny-a"].trace(SENTENCE, options=DecodeOptions(**UI_DEFAULTS))
    trace = session.trace
    assert (session.model, session.original, session.branches) == ("tiny-a", None, [])
    assert session.options == dataclasses.asdict(DecodeOptions(**UI_DEFAULTS))
    assert trace.source_ids == expected.source_ids and trace.target_ids == expected.target_ids
    assert trace.target_text == expected.target_text == translators["tiny-a"].translate(SENTENCE)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(trace.attention[kind], expected.attention[kind], atol=1e-6)


def test_decode_options_casts_slider_floats():
    options = sessions.decode_options("beam", 3.0, 0.5, 10.0, 0.9, 7.0, 20.0)
    assert options == DecodeOptions(
        strategy="beam", beam_size=3, temperature=0.5, top_k=10, top_p=0.9, seed=7, max_new_tokens=20
    )
    assert isinstance(options.beam_size, int) and isinstance(options.max_new_tokens, int)


def test_a_cleared_seed_box_means_the_default_seed():
    """Gradio sends None for an emptied number box: that is seed 0, not a TypeError."""
    assert sessions.decode_options(*{**UI_DEFAULTS, "seed": None}.values()) == sessions.decode_options(
        *UI_DEFAULTS.values()
    )
    sampled = sessions.decode_options(*{**UI_DEFAULTS, "strategy": "sample", "seed": None}.values())
    assert sampled.seed == 0


def test_trace_files_are_swept_after_an_hour(trace, monkeypatch, tmp_path):
    """Every translation writes one download file; this process's files older than the limit are deleted."""
    monkeypatch.setattr(downloads, "trace_folder", lambda: tmp_path)
    first, second = downloads.trace_file(trace), downloads.trace_file(trace)
    assert first != second and json.loads(first.read_text(encoding="utf-8")) == trace.to_dict()
    lesson = downloads.new_file("lesson", "html")  # a lesson file asked for, as large as it is, is swept alike
    lesson.write_text("<!DOCTYPE html>", encoding="utf-8")
    assert lesson.name.startswith("lesson-") and lesson.suffix == ".html"
    hour_ago = time.time() - downloads.TRACE_FILE_AGE_S - 1
    for old in (first, lesson):
        os.utime(old, (hour_ago, hour_ago))
    third = downloads.trace_file(trace)
    assert sorted(tmp_path.iterdir()) == sorted([second, third])


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("temperature", -0.5, "temperature"),
        ("temperature", 0.0, "temperature"),
        ("beam_size", 0, "beam_size"),
        ("top_p", 0.0, "top_p"),
        ("top_k", -1, "top_k"),
        ("max_new_tokens", 0, "max_new_tokens"),
        ("strategy", "magic", "strategy"),
    ],
)
def test_decode_options_rejects_bad_values(field, value, message):
    with pytest.raises(ValueError, match=message):
        sessions.decode_options(*{**UI_DEFAULTS, field: value}.values())


def test_translate_refuses_an_empty_sentence(session):
    with pytest.raises(ValueError, match="empty"):
        sessions.translate("  ", "tiny-a", DecodeOptions())


# ---------------------------------------------------------------- branching
def test_branch_forces_the_token_and_lets_the_model_continue(session, translators):
    trace, t = session.trace, 2
    forced = next(alt["id"] for alt in trace.steps[t]["top_k"] if alt["id"] != trace.target_ids[t])
    new = sessions.branch(session, t, forced)
    ids = new.trace.target_ids
    assert ids[:t] == trace.target_ids[:t] and ids[t] == forced
    assert new.trace.forced_prefix == t + 1
    assert new.original is trace and session.trace is trace  # the visitor's session is not mutated
    piece = translators["tiny-a"].tokenizer.id_to_piece(forced)
    assert new.branches == [(t, trace.target_tokens[t], piece)]
    # the pieces as the axes show them ("·t" continues a word), never with SentencePiece's "▁"
    assert (
        shown(h.branch_info(new, "en"))[1]
        == f"Branch: step {t}: {piece_label(trace.target_tokens[t])} → {piece_label(piece)}"
    )
    assert f"{t}단계" in h.branch_info(new, "ko") and "step" not in h.branch_info(
        new, "ko"
    )  # all in the visitor's language
    assert h.branch_info(session, "en") == ""
    # A branch at an earlier step decodes the later steps afresh: only the earlier branches stay listed.
    later = sessions.branch(new, t + 2, forced)
    assert [b[0] for b in later.branches] == [t, t + 2]
    earlier = sessions.branch(later, t - 1, forced)
    assert [b[0] for b in earlier.branches] == [t - 1] and earlier.trace.forced_prefix == t
    again = sessions.branch(new, t, forced)  # the same step twice: listed once
    assert [b[0] for b in again.branches] == [t]
    # The label is Markdown: a forced `</s>` must read as text, not vanish as an HTML tag.
    eos = shown(h.branch_info(sessions.branch(session, t, translators["tiny-a"].config.eos_id)))
    assert eos[1].endswith("→ </s>") and "</s>" not in eos[0]

    # After the forced token every step is the model's own greedy choice: recompute it with one teacher-forced pass.
    model, cfg = translators["tiny-a"].model, translators["tiny-a"].config
    src = torch.tensor([new.trace.source_ids])
    with torch.no_grad():
        logits = model(src, torch.tensor([[cfg.bos_id] + ids[:-1]]))[0]  # (T, V)
    assert logits[t + 1 :].argmax(-1).tolist() == ids[t + 1 :]
    assert len(ids) > t + 1


def test_branch_twice_keeps_the_first_original_and_unbranch_returns_it(session):
    trace = session.trace
    first = sessions.branch(session, 1, trace.steps[1]["top_k"][1]["id"])
    second = sessions.branch(first, 3, first.trace.steps[3]["top_k"][1]["id"])
    assert second.original is trace and len(second.branches) == 2
    back = sessions.unbranch(second)
    assert back.trace is trace and back.original is None and back.branches == []
    assert sessions.unbranch(back) is back  # nothing to undo


@pytest.mark.parametrize("step", [-1, 10_000])
def test_branch_outside_the_translation_is_an_error(session, step):
    with pytest.raises(ValueError, match="outside the translation"):
        sessions.branch(session, step, 5)


# ---------------------------------------------------------------- stepping and figures
def test_clamp_step(session):
    last = len(session.trace.target_ids) - 1
    assert [h.clamp_step(session.trace, s) for s in (-3, 0, 2, 2.0, None, last, last + 5)] == [
        0,
        0,
        2,
        2,
        0,
        last,
        last,
    ]


def test_notices_are_a_list_in_the_visitors_language(session):
    trace = dataclasses.replace(session.trace, notices=[Notice("notice-cut-tokens", n=24)])
    assert h.notices_info(trace, "en").startswith("- input cut to the model's limit of 24 tokens")
    assert h.notices_info(trace, "ja").startswith("- 入力はモデルの上限 24 トークンで切り詰めました")
    assert h.notices_info(dataclasses.replace(trace, notices=[]), "ko") == ""


def test_layer_and_head_are_kept_where_the_model_has_them():
    from transformer_viz.model.config import TransformerConfig

    cfg = TransformerConfig(src_vocab_size=10, tgt_vocab_size=10, d_model=8, n_heads=2, n_layers=3, d_ff=8)
    assert h.layer_and_head(cfg, 2, "1") == (2, "1")
    assert h.layer_and_head(cfg, 2.0, "mean") == (2, "mean")
    assert h.layer_and_head(cfg, 5, "2") == (2, "mean")  # a layer and a head this model lacks
    assert h.layer_and_head(cfg, None, None) == (0, "mean")


def test_step_label_counts_from_zero_and_escapes_html(session):
    trace = session.trace
    steps = [dict(s) for s in trace.steps]
    steps[1] = {**steps[1], "token": EVIL}
    evil = dataclasses.replace(trace, steps=steps)
    rendered, text = shown(h.step_label(evil, 1))
    shown_evil = piece_label(EVIL)  # pieces read as the axes show them: "·" where a piece continues a word
    assert text.startswith(f"Step 1 (token 2 of {len(trace.steps)}): the model produced {shown_evil} with p = ")
    assert "<img" not in rendered
    assert (
        f"produced <strong>{html.escape(piece_label(trace.steps[0]['token']), quote=False)}</strong>"
        in shown(h.step_label(trace, 0))[0]
    )
    for lang, words in (
        ("ja", f"ステップ 1 ({len(trace.steps)} トークン中 2 番目): モデルは {shown_evil} を"),
        ("ko", f"1단계 (전체 {len(trace.steps)}개 중 2번째 토큰): 모델이 {shown_evil}을(를)"),
    ):
        rendered, text = shown(h.step_label(evil, 1, lang))
        assert text.startswith(words) and "<img" not in rendered


@pytest.mark.parametrize("piece", MARKUP)
def test_tokens_and_names_in_markdown_read_as_typed(session, translators, piece):
    """A step label, a branch line and a model card show a token or name as it is: no emphasis, link, tag or formula."""
    steps = [dict(s) for s in session.trace.steps]
    steps[0] = {**steps[0], "token": piece}
    rendered, text = shown(h.step_label(dataclasses.replace(session.trace, steps=steps), 0))
    assert f"the model produced {piece_label(piece)} with" in text
    assert (
        rendered.count("<strong>") == 1 and "<em>" not in rendered and "<a " not in rendered and "<img" not in rendered
    )
    branched = dataclasses.replace(session, branches=[(0, piece, piece)])
    assert shown(h.branch_info(branched))[1] == f"Branch: step 0: {piece_label(piece)} → {piece_label(piece)}"
    card = model_card(Translator(translators["tiny-a"].model, translators["tiny-a"].tokenizer, name=piece))
    assert shown(card.split("\n", 1)[0])[1] == f"{piece} (preset seed000)"


def test_alternatives_are_the_top_k_of_that_step(session):
    for t in (0, len(session.trace.steps) - 1):
        choices = h.alternatives(session.trace, t)
        top = session.trace.steps[t]["top_k"]
        assert [ident for _, ident in choices] == [alt["id"] for alt in top]
        assert all(label.startswith(piece_label(alt["token"]) + "  (p = ") for (label, _), alt in zip(choices, top))
        assert not any("▁" in label for label, _ in choices)


def test_step_figures_label_their_axes_with_the_tokens(session):
    trace, t = session.trace, 3
    figs = h.step_figures(trace, t, 1, "2", False)
    assert set(figs) == {"plot-topk", "plot-cross", "plot-alignment", "plot-dec-self", "plot-masks", "plot-pipeline"}
    source, target, dec_in = (
        escaped(trace.source_tokens),
        escaped(trace.target_tokens),
        escaped(trace.decoder_input_tokens),
    )
    assert escaped(alt["token"] for alt in trace.steps[t]["top_k"]) in axis_ticks(figs["plot-topk"])
    assert figs["plot-topk"].layout.title.text.startswith(f"Step {t}:")
    cross, rows = axis_ticks(figs["plot-cross"]), figs["plot-cross"].layout.yaxis.tickvals
    stride = rows[1] - rows[0]  # every row labelled, or (too many for the lesson's box) every second one
    assert cross == [source, target[::stride]]  # the lesson's map: the chosen head alone, keys across, queries down
    assert "Head 2" in figs["plot-cross"].layout.title.text
    assert [list(d.text) for d in figs["plot-alignment"].data if d.name in ("source tokens", "target tokens")] == [
        source,
        target,
    ]
    for key in ("plot-cross", "plot-alignment", "plot-dec-self"):
        assert "Layer 1" in figs[key].layout.title.text and f"step {t}: producing" in figs[key].layout.title.text, key
    assert "Head 2" in figs["plot-alignment"].layout.title.text
    dec_self = axis_ticks(figs["plot-dec-self"])
    assert dec_self.count(dec_in) == dec_self.count(target) == trace.n_heads + 1 and dec_in[0] == esc("<s>")
    assert dec_in in axis_ticks(figs["plot-masks"]) and target in axis_ticks(figs["plot-masks"])


@pytest.mark.parametrize("head", [None, "mean", "0"])
def test_step_figures_accept_every_head_choice(session, head):
    assert h.step_figures(session.trace, 0, 0, head, True)["plot-pipeline"].data


def test_static_figures_label_their_axes_with_the_tokens(session):
    trace = session.trace
    figs = h.static_figures(trace, 1, "decoder self", False)
    source, target = escaped(trace.source_tokens), escaped(trace.target_tokens)
    enc = axis_ticks(figs["plot-enc-self"])
    assert enc.count(source) == 2 * (trace.n_heads + 1) and "Layer 1" in figs["plot-enc-self"].layout.title.text
    assert [esc(f"{p} {piece_label(t)}") for p, t in enumerate(trace.source_tokens)] in axis_ticks(figs["plot-pe"])
    assert source + [esc("<pad>")] * 3 in axis_ticks(figs["plot-enc-mask"])
    assert source in axis_ticks(figs["plot-cross-mask"]) and target in axis_ticks(figs["plot-cross-mask"])
    assert "Decoder self-attention" in figs["plot-overview"].layout.title.text
    assert len(figs["plot-overview"].data) >= trace.n_layers * trace.n_heads


def test_tokens_table_lists_both_sides(session):
    table = h.tokens_table(session.trace)
    rows = table["data"]
    assert table["headers"] == ["side", "position", "piece", "id"]
    assert len(rows) == len(session.trace.source_ids) + len(session.trace.target_ids)
    assert rows[0] == ["source", 0, piece_label(session.trace.source_tokens[0]), session.trace.source_ids[0]]
    assert rows[-1] == [
        "target",
        len(session.trace.target_ids) - 1,
        piece_label(session.trace.target_tokens[-1]),
        session.trace.target_ids[-1],
    ]


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_tokens_table_speaks_the_visitors_language(session, lang):
    table = h.tokens_table(session.trace, lang)
    assert table["headers"] == [i18n.text(key, lang) for key in h.TOKEN_COLUMNS]
    assert not set(table["headers"]) & {"side", "position", "piece"}
    sides = [row[0] for row in table["data"]]
    assert set(sides) == {i18n.text("tokens-source", lang), i18n.text("tokens-target", lang)}
    assert [row[2:] for row in table["data"]] == [row[2:] for row in h.tokens_table(session.trace)["data"]]
    assert h.tokens_table(None, lang) == {"headers": table["headers"], "data": []}  # before the first translation


def test_the_token_tables_headers_follow_a_language_switch(empty_registry):
    """The empty table is built with English headers; the switch relabels it, pieces and all, in the new language."""
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out
    from transformer_viz.app.page import relabel

    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    with gr.Blocks():
        top = lay_out(Words(), ["tiny-a"])
    assert isinstance(top.tokens, gr.Dataframe) and top.tokens.value["headers"] == ["side", "position", "piece", "id"]
    # the switch's outputs end with the notices, the branch, the token table and what is said under the sentence
    assert relabel(Words(), "ko", None, [])[-2] == h.tokens_table(None, "ko")
    sess = sessions.translate("the dog.", "tiny-a", DecodeOptions(max_new_tokens=4))
    assert relabel(Words(), "ja", sess, [])[-2] == h.tokens_table(sess.trace, "ja")


# ---------------------------------------------------------------- share links
def test_share_query_round_trips():
    options = DecodeOptions(
        strategy="sample", beam_size=2, temperature=0.7, top_k=5, top_p=0.9, seed=3, max_new_tokens=30
    )
    sentence = "Where is the station? <b>&</b> 100% #1"
    query = share.share_query(sentence, "seed004", options)
    assert query.startswith("?")
    values = share.parse_query(dict(parse_qsl(query[1:])))
    assert values == dict(
        sentence=sentence,
        model="seed004",
        strategy="sample",
        beam=2,
        temperature=0.7,
        top_k=5,
        top_p=0.9,
        seed=3,
        max_len=30,
    )
    assert (
        sessions.decode_options(
            values["strategy"],
            values["beam"],
            values["temperature"],
            values["top_k"],
            values["top_p"],
            values["seed"],
            values["max_len"],
        )
        == options
    )


def test_share_query_carries_the_branches_and_the_view_comes_back_checked():
    """The server's query holds the forced tokens; the page's step, layer, head and tab come back as the controls
    take them, and anything malformed is left out rather than refused."""
    query = share.share_query("Hi.", "seed000", DecodeOptions(), [(2, 40), (5, 7)])
    assert dict(parse_qsl(query[1:]))["branch"] == "2:40,5:7"
    values = share.parse_query(
        dict(parse_qsl(query[1:])) | dict(step="3", layer="2", head="1", tab="tab-pe", lang="ja")
    )
    assert values["branch"] == [(2, 40), (5, 7)]
    assert {k: values[k] for k in ("step", "layer", "head", "tab", "lang")} == dict(
        step=3, layer=2, head="1", tab="tab-pe", lang="ja"
    )
    bad = share.parse_query(dict(step="-1", layer="x", head="all", tab="<script>", branch="2:40,oops"))
    assert bad == {}
    assert (
        share.parse_query(dict(head="mean", branch=",".join(["1:2"] * 40)))["branch"] == [(1, 2)] * share.MAX_BRANCHES
    )


def test_parse_query_ignores_malformed_and_unknown_values():
    values = share.parse_query(
        {
            "beam": "four",
            "temperature": "hot",
            "seed": "1e9x",
            "top_k": "",
            "evil": "<script>",
            "max_len": "12",
            "sentence": "x" * 5000,
        }
    )
    assert values == {"max_len": 12, "sentence": "x" * 2000}
    assert share.parse_query({}) == {}


def test_parse_query_keeps_only_a_strategy_the_radio_offers():
    """?strategy=Beam would make the strategy radio refuse every later event of the page."""
    assert share.parse_query({"strategy": "Beam"}) == {"strategy": "beam"}
    assert share.parse_query({"strategy": " sample "}) == {"strategy": "sample"}
    assert share.parse_query({"strategy": "nucleus", "beam": "3"}) == {"beam": 3}


def test_parse_query_holds_numbers_to_the_sliders_ranges():
    """A hand-edited link cannot set a slider beyond its range (Gradio would refuse the whole page load)."""
    values = share.parse_query(
        {"beam": "100", "temperature": "9", "top_k": "-5", "top_p": "0", "max_len": "100000", "seed": "12345678901"}
    )
    assert values == dict(beam=8, temperature=2.0, top_k=0, top_p=0.05, max_len=128, seed=12345678901)
    assert share.parse_query({"temperature": "nan", "top_p": "inf"}) == {}
    for key, (low, high) in sessions.SLIDER_RANGES.items():  # every value in range is a valid decoding option
        sessions.decode_options(
            "sample", *(dict(beam=4, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_len=64) | {key: low}).values()
        )
        sessions.decode_options(
            "sample", *(dict(beam=4, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_len=64) | {key: high}).values()
        )


# ---------------------------------------------------------------- models
def test_available_models_lists_checkpoint_folders_default_first(tmp_path, monkeypatch):
    monkeypatch.delenv(models.HUB_MODEL_ENV, raising=False)
    for name in ("aaa", "seed004", "seed000", "zzz"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text("{}")
    (tmp_path / "not-a-checkpoint").mkdir()
    (tmp_path / "notes.txt").write_text("")
    assert models.available_models(tmp_path) == ["seed000", "aaa", "seed004", "zzz"]
    monkeypatch.setenv(models.HUB_MODEL_ENV, "someone/transformer-viz-seed000")
    assert models.available_models(tmp_path)[-1] == "someone/transformer-viz-seed000"
    assert models.available_models(tmp_path / "missing") == ["someone/transformer-viz-seed000"]


def test_model_card_lists_every_hook_with_its_shape(translators):
    tr = translators["tiny-b"]
    card = model_card(tr)
    names = hook_names(tr.model)
    assert names and all(f"| `{name}` |" in card for name in names)
    assert "| `decoder.layers.0.cross_attn.hook_pattern` | (B, H, T, S) |" in card
    assert "| `decoder.layers.1.self_attn.hook_pattern` | (B, H, T, T) |" in card
    assert "| `encoder.layers.0.self_attn.hook_pattern` | (B, H, S, S) |" in card
    assert "| `encoder.layers.0.self_attn.hook_q` | (B, H, S, Dh) |" in card
    assert "| `decoder.hook_logits` | (B, T, V) |" in card
    assert f"{tr.model.num_parameters():,} parameters" in card


def test_get_translator_loads_each_model_once(tmp_path, monkeypatch):
    folder = save_checkpoint(tmp_path / "ckpt", tiny_translator("seed004", max_len=24).model, tiny_tokenizer_file())
    calls, load = [], models.load_model
    monkeypatch.setattr(models, "load_model", lambda name: calls.append(name) or load(name))
    first = models.get_translator(str(folder))
    assert models.get_translator(str(folder)) is first
    assert calls == [str(folder)]
    assert first.translate(SENTENCE) == tiny_translator("seed004", max_len=24).translate(SENTENCE)


def test_get_translator_names_the_fix_for_a_missing_model(tmp_path):
    with pytest.raises(ValueError, match="neither a checkpoint folder nor a Hub repo id"):
        models.get_translator(str(tmp_path / "no" / "such" / "folder"))


def test_positional_comparison_shows_the_learned_table_beside_the_sinusoidal_one(tmp_path, monkeypatch):
    """Each bundled model's encoder table, read from the model itself; the formula fills in a missing kind."""
    learned = bundle_learned_model(tmp_path, monkeypatch)
    tables = models.learned_and_sinusoidal(n_positions=10)
    np.testing.assert_array_equal(tables["learned"][1], learned.model.encoder.pos.table.weight[:10].detach().numpy())
    d = learned.config.d_model
    pos, i = 7, 3  # PE(pos, 2i+1) = cos(pos / 10000^(2i/d))
    assert tables["sinusoidal"][1][pos, 2 * i + 1] == pytest.approx(math.cos(pos / 10000 ** (2 * i / d)), abs=1e-6)
    figs = h.comparison_figures(presentation=False)
    np.testing.assert_allclose(
        np.asarray(figs["plot-pe-learned"].data[0].z),
        learned.model.encoder.pos.table.weight[:64].detach().numpy(),
        atol=1e-6,
    )
    assert "Learned positions of seed004" in figs["plot-pe-learned"].layout.title.text


def test_no_view_shows_sentencepieces_word_start_mark(session):
    """Titles, ticks, texts and hovers of every view, and every text beside them, show pieces as the axes do."""
    from tests.plots import strings

    trace = session.trace
    figs = {
        **h.step_figures(trace, 2, 1, "mean", False),
        **h.step_figures(trace, 3, 0, "1", True),
        **h.static_figures(trace, 0, "cross", False),
        **h.analysis_figures(trace, 0, False),
    }
    assert any(WORD_START in piece for piece in trace.target_tokens + trace.source_tokens)  # there is one to hide
    for name, fig in figs.items():
        if fig is None:
            continue
        found = [s for s in strings(fig.to_plotly_json()) if WORD_START in s]
        assert not found, (name, found[:3])
    texts = [h.step_label(trace, t) for t in range(len(trace.steps))] + [h.beam_node_info(trace, 0, 2)]
    texts += [label for t in range(len(trace.steps)) for label, _ in h.alternatives(trace, t)]
    assert not any(WORD_START in text for text in texts)
