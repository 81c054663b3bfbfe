"""What the page shows a teacher: download names, readable tokens, notices, model names and the model card."""

from __future__ import annotations

import json

import pytest

from tests.tiny import bundle_learned_model, shown, tiny_translator
from transformer_viz import figures, i18n
from transformer_viz.app import handlers as h
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.markdown import md
from transformer_viz.app.page import SHOWN
from transformer_viz.app.registry import PLOTS, View
from transformer_viz.figures.style import piece_label

SENTENCE = "I see the house."
UI_DEFAULTS = dict(strategy="beam", beam_size=3, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_new_tokens=8)


@pytest.fixture
def session(empty_registry, tmp_path, monkeypatch):
    """A beam translation with tiny-a, and a bundled learned-positions model for the positional comparison."""
    bundle_learned_model(tmp_path, monkeypatch)
    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    return sessions.translate(SENTENCE, "tiny-a", sessions.decode_options(*UI_DEFAULTS.values()))


def download_names(trace, **view) -> dict[str, str]:
    """Each registered plot's download name, as its config on the page says it."""
    figs = h.view_figures(PLOTS, trace, **view)
    return {
        plot_id: json.loads(figures.figure_json(fig))["config"]["toImageButtonOptions"]["filename"]
        for plot_id, fig in figs.items()
        if fig is not None
    }


def test_every_plots_download_is_named_after_what_it_shows(session):
    trace = session.trace
    names = download_names(trace, step=2, layer=1, head="3", kind="decoder self")
    assert set(names) == {plot.id for plot in PLOTS}
    assert len(set(names.values())) == len(names), names  # unique on the page
    assert "transformer-viz" not in names.values()
    assert names["plot-cross"] == "cross-attention_L1-H3_step-2"  # the chosen head, as the issue asks
    assert names["plot-alignment"] == "cross-attention-alignment_L1-H3_step-2"
    assert names["plot-dec-self"] == "decoder-self-attention_L1_step-2"
    assert names["plot-enc-self"] == "encoder-self-attention_L1"  # every step shares it
    assert names["plot-overview"] == "decoder-self-attention-overview"
    assert names["plot-topk"] == "next-token-top-k_step-2"
    assert names["plot-pe"] == "positional-encodings"
    assert names["plot-beam"] == "beam-tree"
    assert names["plot-pipeline"] == "score-pipeline_L1-H3_step-2"
    assert names["plot-rollout"] == "attention-rollout_L1"
    assert names["plot-pe-learned"] == "positional-encodings-learned"


def test_download_names_follow_the_view(session):
    trace = session.trace
    first = download_names(trace, step=0, layer=0, head="mean", kind="cross")
    later = download_names(trace, step=1, layer=1, head="0", kind="cross")
    for plot in PLOTS:
        changes = plot.follows & {"step", "layer", "head"}
        assert (first[plot.id] != later[plot.id]) == bool(changes), plot.id
    assert first["plot-alignment"] == "cross-attention-alignment_L0-mean_step-0"
    assert later["plot-pipeline"] == "score-pipeline_L1-H0_step-1"


def test_views_opened_by_a_click_or_a_lab_are_named_too(session):
    trace = session.trace
    assert (
        figures.download_name_of(figures.attention_head(trace, "cross", 0, 3, step=3)) == "cross-attention_L0-H3_step-3"
    )
    assert figures.download_name_of(figures.attention_side_by_side(trace, trace, "decoder_self", 1, "mean")) == (
        "decoder-self-attention-comparison_L1-mean"
    )
    text = figures.figure_json(figures.attention_head(trace, "decoder_self", 1, "mean", step=0), fmt="svg")
    options = json.loads(text)["config"]["toImageButtonOptions"]
    assert options["filename"] == "decoder-self-attention_L1-mean_step-0"
    assert options["format"] == "svg" and options["scale"] == 1


def test_a_view_draws_the_same_names_as_the_page(session):
    view = View(session.trace, step=1, layer=0, head=2)
    for plot in PLOTS:
        fig = plot.figure(view)
        assert fig is None or figures.download_name_of(fig) != figures.style.DEFAULT_NAME, plot.id


def test_the_pages_beam_tree_names_every_node_by_its_piece(session):
    """Pruned nodes' tokens are in no step's top-k: the page reads them from the model's tokenizer."""
    trace = session.trace
    fig = h.analysis_figures(trace, 0, False)["plot-beam"]
    tokenizer = models.loaded_translator(trace.model["name"]).tokenizer
    texts = {node: text for d in fig.data if d.customdata is not None for node, text in zip(d.customdata, d.text)}
    assert len(texts) == len(trace.beam_tree)
    for node, text in texts.items():
        assert text == figures.esc(piece_label(tokenizer.id_to_piece(trace.beam_tree[node]["id"])))


def test_unreadable_input_is_announced_in_the_visitors_language(empty_registry):
    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    sess = sessions.translate("🙂🙂🙂", "tiny-a", sessions.decode_options(*UI_DEFAULTS.values()))
    assert "the model reads English; 1 of 1 pieces are unknown to it" in h.notices_info(sess.trace, "en")
    assert "このモデルが読めるのは英語です" in h.notices_info(sess.trace, "ja")
    assert "이 모델은 영어를 읽습니다" in h.notices_info(sess.trace, "ko")


def test_a_long_paste_reaches_the_translator_which_says_it_cut_it(empty_registry):
    """The sentence box must not cut a paste silently: it lets more through than the translator reads."""
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out
    from transformer_viz.translator import MAX_CHARS

    with gr.Blocks():
        top = lay_out(Words(), ["tiny-a"])
    assert top.sentence.max_length is None or top.sentence.max_length >= 3 * MAX_CHARS // 2
    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    sess = sessions.translate("the dog. " * 400, "tiny-a", sessions.decode_options(*UI_DEFAULTS.values()))
    assert f"input cut to its first {MAX_CHARS} characters" in h.notices_info(sess.trace, "en")


# ---------------------------------------------------------------- plain names for the models and the labs
def test_the_model_menu_names_each_model_by_its_architecture(empty_registry):
    """Bundled models are described from their folder's config.json, without loading them."""
    assert models.model_label("seed000") == "pre-LN · sinusoidal (seed000)"
    assert models.model_label("seed004") == "post-LN · learned positions (seed004)"
    assert models._models == {}  # read from config.json: nothing loaded
    assert models.model_choices(["seed000", "seed004"], "ja") == [
        ("pre-LN (前置) · 正弦波の位置 (seed000)", "seed000"),
        ("post-LN (後置) · 学習した位置 (seed004)", "seed004"),
    ]
    assert models.model_label("owner/unknown-repo") == "owner/unknown-repo"  # no config to read: its name


def test_a_loaded_models_label_comes_from_its_config(empty_registry):
    post = tiny_translator("seed004")
    models.register_translator("tiny-b", post)
    assert models.model_label("tiny-b", "ko") == "post-LN(후치) · 학습한 위치 (tiny-b)"
    models.register_translator("tiny-pre", tiny_translator("seed004", norm_first=True, positional="sinusoidal"))
    assert models.model_label("tiny-pre") == "pre-LN · sinusoidal (tiny-pre)"  # the config decides, not the name


def test_the_pages_model_menu_keeps_the_folder_name_as_its_value(empty_registry):
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out

    words = Words()
    with gr.Blocks():
        top = lay_out(words, ["seed000", "seed004"])
    assert top.model.choices == [
        ("pre-LN · sinusoidal (seed000)", "seed000"),
        (models.model_label("seed004"), "seed004"),
    ]
    assert top.model.value == "seed000"
    updates = dict(zip(map(id, words.components), words.updates("ja")))
    assert updates[id(top.model)]["choices"][1] == ("post-LN (後置) · 学習した位置 (seed004)", "seed004")


def test_the_keys_help_panel_speaks_the_pages_language(empty_registry):
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out
    from transformer_viz.figures.keys import keys_help

    words = Words()
    with gr.Blocks():
        lay_out(words, ["seed000"])
    panel = next(c for c in words.components if c.elem_id == "keys-help")
    assert panel.value == keys_help("en")
    updates = dict(zip(map(id, words.components), words.updates("ja")))
    assert updates[id(panel)]["value"] == keys_help("ja") != keys_help("en")


def test_the_bug_lab_names_each_bug_by_what_it_does_and_says_what_the_notes_are():
    from transformer_viz import i18n
    from transformer_viz.probes.interventions import SEED_BUGS

    for lang in i18n.LANGUAGES:
        labels = [i18n.text(f"iv-label-{bug}", lang) for bug in SEED_BUGS]
        assert not any("seed" in label.lower() for label in labels), labels
        assert len(set(labels)) == len(labels)
    assert i18n.text("iv-label-mask_ignored").startswith("Mask without effect")
    notes = i18n.text("explain-bugs")
    assert "two study notes" in notes and "seed000" in notes and "seed004" in notes and "fixed" in notes


# ---------------------------------------------------------------- the model card leads with what a teacher needs
def test_the_model_card_leads_with_scores_data_and_mistakes(empty_registry):
    """A model from a bundled folder: its evaluation.json and training.json, before the hook table."""
    from transformer_viz.app.model_card import model_card
    from transformer_viz.translator import Translator

    tiny = tiny_translator("seed000")
    card = model_card(Translator(tiny.model, tiny.tokenizer, name="seed000"))
    evaluation = models.read_record("seed000", "evaluation.json")
    training = models.read_record("seed000", "training.json")
    assert card.startswith("### seed000 (preset `seed000`)")
    assert "A small model that is often wrong." in card
    assert f"BLEU **{evaluation['greedy']['bleu']}** greedy" in card
    assert f"{evaluation['beam']['bleu']} with beam search" in card and f"chrF {evaluation['greedy']['chrf']}" in card
    assert f"{training['last']['tokens']:,} target tokens" in card and "Ding dictionary" in card
    for sample in evaluation["samples"][:3]:
        assert f"| {md(sample['source'])} | {md(sample['reference'])} | {md(sample['greedy'])} |" in card
    assert md(evaluation["samples"][3]["source"]) not in card  # a few, not all
    hooks = card.index("| hook point | shape |")
    assert card.index("Test scores") < card.index("**Data**") < card.index("| English |") < hooks


def test_the_card_of_a_model_trained_on_the_corpus_says_so_and_gives_its_everyday_score(empty_registry, monkeypatch):
    from transformer_viz.app import model_card as card_module
    from transformer_viz.translator import Translator

    row = dict(bleu=20.5, chrf=50.25, sentences=1000)
    records = {
        "evaluation.json": dict(greedy=row, everyday=dict(bleu=18.5, chrf=47.75, exact=12.5, sentences=2664)),
        "training.json": dict(
            options=dict(word_pairs=40_000, debian_corpus="data/corpus", debian_sources="wesnoth,naev"),
            last=dict(tokens=1_000, epoch=2, step=500, minutes=3, valid_loss=3.1, valid_ppl=22.2),
            device="cpu",
        ),
    }
    monkeypatch.setattr(models, "read_record", lambda name, file: records.get(file))
    tiny = tiny_translator("seed000")
    card = card_module.lead(Translator(tiny.model, tiny.tokenizer, name="trained-on-corpus"))
    assert "On 2,664 everyday learner phrases it never saw (auf-deutsch): chrF **47.75**, BLEU 18.5, 12.5%" in card
    assert "Ding dictionary" in card and "free programs that Debian ships (wesnoth, naev;" in card
    records["training.json"]["options"].pop("debian_corpus")
    del records["evaluation.json"]["everyday"]
    card = card_module.lead(Translator(tiny.model, tiny.tokenizer, name="ding-alone"))
    assert "Debian ships" not in card and "auf-deutsch" not in card


def test_a_model_without_records_shows_its_own_translations_live(empty_registry):
    from transformer_viz.app.common import EXAMPLES
    from transformer_viz.app.model_card import model_card

    tiny = tiny_translator("seed004", seed=5)
    card = model_card(tiny)
    assert "No test scores were recorded" in card and "A small model that is often wrong." in card
    for sentence in EXAMPLES[:3]:
        assert f"| {md(sentence)} | {md(tiny.translate(sentence))} |" in card
    assert md(EXAMPLES[3]) not in card and "| hook point | shape |" in card


# ---------------------------------------------------------------- a sentence's problems, in place under it
OPTIONS = list(UI_DEFAULTS.values())


@pytest.fixture
def page_handlers(empty_registry):
    """One tiny model registered; the page's header laid out with it, and its translate handler."""
    import gradio as gr

    from transformer_viz.app.common import Words
    from transformer_viz.app.header import lay_out
    from transformer_viz.app.page import translated

    models.register_translator("tiny-a", tiny_translator("seed000", max_len=24))
    with gr.Blocks():
        top = lay_out(Words(), ["tiny-a"])
    return top, translated


def said_in(said: list, lang: str) -> str:
    """What the box under the sentence shows of `said`, as text."""
    return shown(h.sentence_message(said, lang))[1]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_empty_sentence_is_refused_in_place_and_leaves_the_page_as_it_was(page_handlers, lang):
    from transformer_viz import i18n
    from transformer_viz.app.page import on_translate

    said, values = on_translate(lang, "  \u200b ", "tiny-a", 0, "mean", *OPTIONS)
    assert values is None and [err.key for err in said] == ["err-empty"]
    assert i18n.text("err-empty", lang)[1:] in said_in(said, lang)
    _, translated = page_handlers
    on_page = sessions.translate(SENTENCE, "tiny-a", sessions.decode_options(*OPTIONS))  # the translation shown
    out = translated(on_page, lang, "   ", "tiny-a", 0, "mean", "screen", "pieces", *OPTIONS)
    # why, and that what the page still shows is the sentence before's, greyed out by the box's class
    assert [err.key for err in out[1]] == ["err-empty", "notice-previous-kept"]  # kept, to be said again
    assert out[0]["visible"] is True and out[0]["value"] == h.sentence_message(out[1], lang)
    assert i18n.text("notice-previous-kept", lang)[1:] in out[0]["value"] and out[0]["elem_classes"] == ["tv-refused"]
    assert out[0]["value"].startswith(h.sentence_message(said, lang))
    assert out[2] is False  # no new session: the redraws after it leave the maps alone
    assert all(value == {"__type__": "update"} for value in out[3:])  # gr.skip(): translation, strip, link kept
    assert len(out) == 3 + len(SHOWN) + 1  # the box, what is said, the flag, the session's outputs, the lesson


def test_a_sentence_the_model_cannot_read_at_all_is_refused_with_its_notice(page_handlers):
    from transformer_viz.app.page import on_translate

    said, values = on_translate("ko", "🙂🙂🙂", "tiny-a", 0, "mean", *OPTIONS)
    assert values is None
    assert "이 모델은 영어를 읽습니다. 조각 1개 중 1개는 모델이 모르는 것입니다" in said_in(said, "ko")
    said, values = on_translate("en", "", None, 0, "mean", *OPTIONS)  # no model at all: said there too
    assert values is None and said_in(said, "en").startswith("⚠ No model is available")


def test_a_good_sentence_clears_the_message_and_a_long_paste_says_where_it_was_cut(page_handlers):
    from transformer_viz.app.page import on_translate
    from transformer_viz.translator import MAX_CHARS

    said, values = on_translate("en", SENTENCE, "tiny-a", 0, "mean", *OPTIONS)
    assert said == [] and values.session.trace.source_text == SENTENCE
    # a translation the output limit stopped says so beside the translation, not under the sentence
    (limited,) = [n for n in values.session.trace.notices if n.key == "notice-output-limit"]  # the tiny model rambles
    assert i18n.message(limited, "en") in h.notices_info(values.session.trace, "en")
    _, translated = page_handlers
    out = translated(None, "en", SENTENCE, "tiny-a", 0, "mean", "screen", "pieces", *OPTIONS)
    assert out[0]["visible"] is False and out[0]["value"] == "" and out[1:3] == [[], True]
    assert out[0]["elem_classes"] == []  # a translation takes the grey off again
    # the lesson's map and top-k at step 0 come with the translation, before every step's frames
    assert len(out) == 3 + len(SHOWN) + 1 and out[-1]["only"] == 0
    assert out[-1]["shown"] == json.dumps([out[3].trace.target_text, "tiny-a"], separators=(",", ":"))
    long = "the dog. " * 334  # 3,006 characters, as pasted
    said, values = on_translate("ja", long, "tiny-a", 0, "mean", *OPTIONS)
    assert values is not None and values.session.trace.source_text == long  # translated: its first part, said so
    assert f"入力は先頭の {MAX_CHARS} 文字で切り詰めました" in said_in(said, "ja")


def test_what_is_said_under_the_sentence_follows_a_language_switch(page_handlers):
    from transformer_viz import i18n
    from transformer_viz.app.common import Words
    from transformer_viz.app.page import relabel
    from transformer_viz.errors import UserError

    # the switch's last output is the box under the sentence (page.wire_language)
    assert shown(relabel(Words(), "ko", None, [UserError("err-empty")])[-1])[1] == "⚠ " + i18n.text("err-empty", "ko")
    assert relabel(Words(), "ja", None, [])[-1] == ""


def test_what_follows_a_translation_waits_for_a_new_session():
    from transformer_viz.app.page import only_when
    from transformer_viz.app.tabs import Event

    calls = []
    event = Event(lambda a, b: calls.append((a, b)) or ["drawn", "too"], ["in a", "in b"], ["out 1", "out 2"])
    gated = only_when("flag", event)
    assert gated.inputs == ["flag", "in a", "in b"] and gated.outputs == event.outputs
    assert gated.fn(False, 1, 2) == {"__type__": "update"} and calls == []
    assert gated.fn(True, 1, 2) == ["drawn", "too"] and calls == [(1, 2)]


def test_a_branch_takes_any_of_the_steps_candidates_the_page_drew_and_refuses_others(page_handlers):
    """The page draws a step's candidates in the browser, so the server never learns the dropdown's choices: the
    dropdown passes the value through, and the branch itself checks it against that step's top-k."""
    import gradio as gr

    from transformer_viz.app.page import on_branch

    top, _ = page_handlers
    alt = top.alt
    sess = sessions.translate(SENTENCE, "tiny-a", sessions.decode_options(*UI_DEFAULTS.values()))
    first = {i for _, i in h.alternatives(sess.trace, 0)}
    t, forced = next(
        (t, i) for t in range(1, len(sess.trace.target_ids)) for _, i in h.alternatives(sess.trace, t) if i not in first
    )
    assert alt.preprocess(forced) == forced  # the server's choices are the first step's, or none
    out = on_branch("en", sess, t, forced)
    new = next(value for value in out if isinstance(value, sessions.Session))
    assert new.trace.target_ids[t] == forced and new.trace.target_ids[:t] == sess.trace.target_ids[:t]
    stranger = next(i for i in range(100) if i not in {j for _, j in h.alternatives(sess.trace, t)})
    with pytest.raises(gr.Error, match=f"step {t}: pick one from the list"):
        on_branch("en", sess, t, stranger)
    with pytest.raises(gr.Error, match="候補ではありません"):
        on_branch("ja", sess, t, "not a token")


def test_the_slide_looks_differ_only_in_their_download(session):
    """Every plot in the PNG and the SVG slide look is the same figure; only the camera's format differs (so the
    browser's fit checks draw one of them)."""
    from transformer_viz.app.common import LOOKS, plot, slides

    png, svg = LOOKS[1:]
    assert slides(png) and slides(svg)
    figs = h.view_figures(PLOTS, session.trace, presentation=True)
    assert len([fig for fig in figs.values() if fig is not None]) > 10
    for plot_id, fig in figs.items():
        if fig is None:
            continue
        a, b = (json.loads(plot(fig, look).plot) for look in (png, svg))
        assert a["config"]["toImageButtonOptions"]["format"] == "png", plot_id
        assert b["config"]["toImageButtonOptions"]["format"] == "svg", plot_id
        for drawn in (a, b):  # the camera's format and scale (a PNG is drawn at 3x), and its tooltip naming them
            del drawn["config"]["toImageButtonOptions"]["format"], drawn["config"]["toImageButtonOptions"]["scale"]
            del drawn["config"]["locales"]
        assert a == b, plot_id


def test_a_share_links_branches_and_step_are_made_again(page_handlers):
    """The link of a branched lesson reopens on the same branched translation, its way back and its step; a
    hand-edited branch that does not fit the translation is dropped with those after it."""
    from urllib.parse import parse_qsl

    from transformer_viz.app import share
    from transformer_viz.app.page import on_translate

    greedy = ["greedy", *OPTIONS[1:]]  # forced tokens are decoded afresh: greedy makes the run repeatable
    _, values = on_translate("en", SENTENCE, "tiny-a", 1, "2", *greedy)
    first = values.session
    forced = next(i for i in range(5, 50) if i != first.trace.target_ids[2])
    branched = sessions.branch(sessions.branch(first, 2, forced), 4, 7)
    query = values.share
    assert "branch" not in dict(parse_qsl(query[1:]))  # no branch yet
    link = dict(
        parse_qsl(
            share.share_query(
                SENTENCE, "tiny-a", sessions.DecodeOptions(**first.options), share.forced_tokens(branched)
            )[1:]
        )
    )
    assert link["branch"] == f"2:{forced},4:7"
    restored = share.parse_query(link | {"step": "3"})
    said, values = on_translate("en", SENTENCE, "tiny-a", 1, "2", *greedy, branches=restored["branch"], step=3)
    again = values.session
    assert again.trace.target_ids == branched.trace.target_ids and again.branches == branched.branches
    assert again.original.target_ids == first.trace.target_ids  # "back to the original" leads where it did
    assert values.step["value"] == 3 and values.layer["value"] == 1 and values.head["value"] == "2"
    assert dict(parse_qsl(values.share[1:]))["branch"] == link["branch"]  # the reopened page shares the same lesson
    too_far = len(first.trace.target_ids) + 5
    _, values = on_translate("en", SENTENCE, "tiny-a", 0, "mean", *greedy, branches=[(2, forced), (too_far, 7), (3, 9)])
    assert [b[0] for b in values.session.branches] == [2]
    _, values = on_translate("en", SENTENCE, "tiny-a", 0, "mean", *greedy, branches=[(1, 10**9)])
    assert values.session.original is None and values.session.trace.target_ids == first.trace.target_ids
