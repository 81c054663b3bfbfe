"""Errors a user can cause carry a key: every raise site raises its key, and the UI translates by key alone."""

from __future__ import annotations

import copy
import json
import pickle
import re
import string
from pathlib import Path

import gradio as gr
import huggingface_hub
import pytest
from huggingface_hub.errors import LocalEntryNotFoundError, RepositoryNotFoundError

from tests.tiny import tiny_translator
from transformer_viz import i18n
from transformer_viz.app import common, models, session
from transformer_viz.app import handlers as h
from transformer_viz.app import handlers_lab as lab
from transformer_viz.app.page import translate_api
from transformer_viz.decoding import DecodeOptions
from transformer_viz.errors import Notice, UserError
from transformer_viz.hub import hub
from transformer_viz.hub.hub import CheckpointError, resolve_checkpoint
from transformer_viz.model.config import TransformerConfig
from transformer_viz.probes.interventions import Intervention, bug_hooks
from transformer_viz.trace import Trace
from transformer_viz.training.options import TrainOptions
from transformer_viz.translator import MAX_CHARS

PACKAGE = Path(__file__).resolve().parents[1] / "transformer_viz"


def placeholders(template: str) -> list[tuple[str, str | None, str | None]]:
    """Each {name!conversion:spec} of a template, sorted: the translations must fill the same ones the same way."""
    return sorted((name, conv, spec or None) for _, name, spec, conv in string.Formatter().parse(template) if name)


MESSAGES = sorted(key for key in i18n.CATALOGUES[i18n.DEFAULT] if key.startswith(("err-", "notice-")))


@pytest.mark.parametrize("key", MESSAGES)
def test_every_message_has_english_japanese_and_korean_with_the_same_placeholders(key):
    texts = [i18n.CATALOGUES[lang][key] for lang in ("en", "ja", "ko")]
    assert placeholders(texts[1]) == placeholders(texts[0]) == placeholders(texts[2])


def test_every_key_the_library_raises_is_in_the_catalogue():
    """A raise site with a key the catalogue lacks would fail only when a user hits it."""
    raised = set()
    for path in PACKAGE.rglob("*.py"):
        raised |= set(re.findall(r'(?:UserError|Notice|CheckpointNotFound)\(\s*"([a-z-]+)"', path.read_text()))
    assert len(raised) > 20 and raised <= set(MESSAGES), raised - set(MESSAGES)


# ---------------------------------------------------------------- each raise site raises its key
@pytest.fixture(scope="module")
def translator():
    return tiny_translator("seed000", max_len=8)


def raised(fn, *args, **kwargs) -> UserError:
    with pytest.raises(UserError) as err:
        fn(*args, **kwargs)
    return err.value


def test_the_translator_names_an_empty_sentence_and_too_long_a_text(translator):
    assert raised(translator.trace, "  \u200b ").key == "err-empty"
    long_text = "one two three four five six seven eight nine ten"
    err = raised(translator.translate, long_text, truncate=False)
    assert (err.key, err.params) == ("err-text-too-long", dict(tokens=8, chars=MAX_CHARS))
    err = raised(translator.translate, ["Hello.", long_text], truncate=False)
    assert (err.key, err.params["index"]) == ("err-texts-too-long", 1)
    assert str(err).startswith("text 1 is too long: the model reads at most 8 tokens")


@pytest.mark.parametrize(
    "bad, key",
    [
        (dict(beam_size=2.5), "err-option-whole"),
        (dict(top_p="0.9"), "err-option-number"),
        (dict(use_cache=1), "err-option-use-cache"),
        (dict(seed=2**64), "err-option-seed"),
        (dict(strategy="Beam"), "err-option-strategy"),
        (dict(max_new_tokens=0), "err-option-max-new-tokens"),
        (dict(beam_size=1000), "err-option-beam-size"),
        (dict(temperature=-1.0), "err-option-temperature"),
        (dict(top_k=-1), "err-option-top-k"),
        (dict(top_p=2.0), "err-option-top-p"),
        (dict(length_penalty=6.0), "err-option-length-penalty"),
        (dict(n_alternatives=0), "err-option-n-alternatives"),
    ],
)
def test_each_decoding_option_out_of_range_raises_its_key(bad, key):
    err = raised(DecodeOptions(**bad).validate)
    assert err.key == key
    assert repr(next(iter(bad.values()))) in str(err)  # English names the value, as before


def test_the_handlers_raise_their_keys(translator, empty_registry):
    models.register_translator("tiny", translator)
    visit = session.translate("I see the house.", "tiny", DecodeOptions(max_new_tokens=4))
    err = raised(session.branch, visit, 99, 5)
    assert (err.key, err.params) == ("err-step-outside", dict(step=99, last=len(visit.trace.target_ids) - 1))
    assert raised(h.parse_click, "cross 1", 3).key == "err-click"
    assert raised(lab.run_comparison, visit, lab.intervention_from_ui([])).key == "err-lab-nothing"


@pytest.mark.parametrize(
    "bad, key, english_end",
    [
        (dict(ablation="max"), "err-lab-ablation", "got 'max'"),
        (dict(bug="typo"), "err-lab-bug", "got 'typo'"),
        (dict(no_positions=1), "err-lab-switch", "no_positions must be True or False, got 1"),
        (dict(ablate=[("cross", 0)]), "err-lab-head-shape", "got ('cross', 0)"),
        (dict(ablate=[("encoder", 0, 0)]), "err-lab-head-kind", "got 'encoder'"),
        (dict(ablate=[("cross", -1, 0)]), "err-lab-head-index", "got -1 in ('cross', -1, 0)"),
    ],
)
def test_each_bad_intervention_raises_its_key(bad, key, english_end):
    err = raised(Intervention, **bad)
    assert err.key == key and str(err).endswith(english_end)  # the English as before
    assert i18n.message(err, "ja") == i18n.CATALOGUES["ja"][key].format(**err.params)


def test_interventions_beyond_the_model_raise_their_keys(translator):
    config = translator.model.config
    err = raised(Intervention(ablate=(("cross", config.n_layers, 0),)).validate, config)
    assert (err.key, err.params) == ("err-lab-no-layer", dict(layer=config.n_layers, last=config.n_layers - 1))
    assert (
        i18n.message(err, "ja")
        == f"オフにする層 {config.n_layers} はありません。モデルの層は 0..{config.n_layers - 1} です"
    )
    err = raised(Intervention(ablate=(("cross", 0, config.n_heads),)).validate, config)
    assert (err.key, err.params["last"]) == ("err-lab-no-head", config.n_heads - 1)
    err = raised(bug_hooks, "typo", config)
    assert err.key == "err-lab-unknown-bug" and str(err).endswith("got 'typo'")
    assert i18n.message(err, "ko").startswith("bug는 ('mask_ignored', ")


def test_a_forced_prefix_that_cannot_be_generated_raises_its_key(translator):
    config = translator.model.config
    err = raised(translator.trace, "I see.", forced_prefix=[config.pad_id])
    assert (err.key, err.params) == ("err-prefix-ids", dict(bad=[config.pad_id]))
    assert i18n.message(err, "ja") == f"強制する接頭辞に生成できないトークン ID があります: [{config.pad_id}]"
    err = raised(translator.trace, "I see.", forced_prefix=[config.eos_id, 5])
    assert err.key == "err-prefix-eos" and str(err) == "a forced prefix may end with </s> but not contain it earlier"


def test_the_api_names_an_unknown_model_by_its_key():
    err = raised(translate_api(["tiny"]).__wrapped__, "Hello.", "huge")
    assert (err.key, err.params) == ("err-api-model", dict(name="huge", choices=["tiny"]))
    assert str(err) == "unknown model 'huge'; choose one of ['tiny']"
    assert i18n.message(err, "ja") == "不明なモデル 'huge' です。['tiny'] のどれかを選んでください"


@pytest.mark.parametrize(
    "bad, key",
    [
        (dict(word_dropout=1.0), "err-train-word-dropout"),
        (dict(average=-1), "err-train-average"),
        (dict(snapshots=-1), "err-train-snapshots"),
        (dict(warmup=0), "err-train-at-least-one"),
    ],
)
def test_each_bad_training_option_raises_its_key(bad, key):
    err = raised(TrainOptions(**bad).check)
    assert err.key == key and str(err).endswith(f"got {next(iter(bad.values()))}")
    assert i18n.message(err, "ja") == i18n.CATALOGUES["ja"][key].format(**err.params)


@pytest.mark.parametrize(
    "make, key, english",
    [
        (lambda: TransformerConfig(d_ff=0), "err-config-positive", "d_ff must be a positive integer, got 0"),
        (lambda: TransformerConfig(d_model=30, n_heads=4), "err-config-divisible", "try n_heads in [1, 2, 3, 5, 6"),
        (lambda: TransformerConfig(d_model=15, n_heads=3), "err-config-even", "need an even d_model, got 15"),
        (lambda: TransformerConfig(dropout=1.0), "err-config-dropout", "dropout must be in [0, 1), got 1.0"),
        (lambda: TransformerConfig(positional="rope"), "err-config-positional", "got 'rope'"),
        (lambda: TransformerConfig(bos_id=0, pad_id=0), "err-config-specials-distinct", "must be distinct"),
        (lambda: TransformerConfig(eos_id=10**6), "err-config-special-outside", "eos_id=1000000 is outside"),
        (lambda: TransformerConfig.from_dict([]), "err-config-not-object", "a JSON object, got list"),
        (lambda: TransformerConfig.from_dict({"d_modle": 8}), "err-config-unknown-fields", "fields ['d_modle']"),
        (lambda: TransformerConfig.from_dict({"d_model": "8"}), "err-config-field-type", "must be int, got '8'"),
        (lambda: TransformerConfig.preset("seed999"), "err-config-unknown-preset", "unknown preset 'seed999'"),
    ],
)
def test_each_bad_model_config_raises_its_key(make, key, english):
    err = raised(make)
    assert err.key == key and english in str(err)
    assert i18n.message(err, "ja") == i18n.CATALOGUES["ja"][key].format(**err.params)


def test_embeddings_shared_across_two_vocabularies_raise_their_key():
    err = raised(TransformerConfig, src_vocab_size=100, tgt_vocab_size=120, share_embeddings=True)
    assert err.key == "err-config-share"
    assert i18n.message(err, "ja").startswith("share_embeddings には src_vocab_size == tgt_vocab_size")


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRANSFORMER_VIZ_MODEL", raising=False)
    monkeypatch.setattr(hub, "CHECKPOINTS_DIR", tmp_path / "checkpoints")
    return tmp_path


def checkpoint_key(name: str) -> str:
    with pytest.raises(CheckpointError) as err:  # still a CheckpointError, for the callers that catch those
        resolve_checkpoint(name)
    assert isinstance(err.value, UserError)
    return err.value.key


def test_unknown_checkpoints_raise_their_keys(isolated):
    assert checkpoint_key("  ") == "err-no-model-given"
    assert checkpoint_key("seed000") == "err-default-missing"
    assert checkpoint_key("no such model") == "err-unknown-model"
    assert checkpoint_key("owner/name") == "err-repo-offline"  # HF_HUB_OFFLINE=1 in the tests
    (isolated / "checkpoints").mkdir()
    assert checkpoint_key("checkpoints/seed999") == "err-no-folder"  # a local folder misspelt


def hub_answers(monkeypatch, online, cached=None, offline="0"):
    """snapshot_download: `cached` (a folder) or nothing from the cache, then `online` (an exception or a folder)."""

    def fake(repo_id, local_files_only=False, **kwargs):
        answer = (cached or LocalEntryNotFoundError("not cached")) if local_files_only else online
        if isinstance(answer, Exception):
            raise answer
        return str(answer)

    monkeypatch.setenv("HF_HUB_OFFLINE", offline)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)


class NoSuchRepo(RepositoryNotFoundError):
    def __init__(self):  # the Hub's own needs an HTTP response
        Exception.__init__(self, "404")


def test_hub_failures_raise_their_keys(isolated, monkeypatch):
    hub_answers(monkeypatch, OSError("connection refused"))
    assert checkpoint_key("owner/name") == "err-repo-download"
    hub_answers(monkeypatch, NoSuchRepo())
    assert checkpoint_key("owner/name") == "err-repo-not-found"
    (isolated / "partial").mkdir()
    (isolated / "partial" / hub.CONFIG_NAME).write_text("{}")
    hub_answers(monkeypatch, isolated / "partial")
    assert checkpoint_key("owner/name") == "err-repo-not-checkpoint"
    hub_answers(monkeypatch, AssertionError("offline: never asked"), cached=isolated / "partial", offline="1")
    assert checkpoint_key("owner/name") == "err-repo-offline-partial"


# ---------------------------------------------------------------- the lookup never reads the English
def test_a_reworded_english_text_keeps_its_translations(translator, monkeypatch):
    monkeypatch.setitem(i18n.CATALOGUES[i18n.DEFAULT], "err-empty", "Nothing to translate.")
    err = raised(translator.trace, "")
    assert str(err) == "Nothing to translate."  # library users read the new English
    assert i18n.message(err, "ja") == "文が空です。翻訳する英語の文を入力してください"
    assert i18n.message(err, "ko") == i18n.CATALOGUES["ko"]["err-empty"]


def test_the_translation_fills_in_the_parameters():
    err = UserError("err-option-beam-size", high=16, value=1000)
    assert str(err) == "beam_size must be between 1 and 16, got 1000"
    assert i18n.message(err, "ja") == "ビーム幅 (beam_size) は1から 16 まででなければなりません (入力値: 1000)"
    assert i18n.message(err, "en") == str(err)


def test_an_error_without_a_key_keeps_its_english_detail():
    err = ValueError("layer must be in 0..1")
    assert i18n.message(err, "en") == "layer must be in 0..1"
    assert i18n.message(err, "ko") == "오류: layer must be in 0..1"


def test_keyed_errors_and_notices_survive_pickling_and_copying(translator):
    err = UserError("err-step-outside", step=3, last=2)
    for copied in (pickle.loads(pickle.dumps(err)), copy.deepcopy(err)):
        assert type(copied) is UserError and (copied.key, copied.params, str(copied)) == (err.key, err.params, str(err))
    trace = translator.trace("one two three four five six seven eight nine ten")
    keys = [n.key for n in trace.notices]
    assert keys[0] == "notice-cut-tokens" and set(keys[1:]) <= {"notice-output-limit"}
    assert [n.key for n in copy.deepcopy(trace).notices] == keys  # gr.State deep-copies a trace
    assert Trace.from_dict(json.loads(trace.to_json())).notices[0] == "input cut to the model's limit of 8 tokens"
    long_trace = translator.trace("word " * (MAX_CHARS // 4))  # 2500 characters
    # in the order the cuts are made: the characters first, then the tokens (then the output limit, if reached)
    assert [n.key for n in long_trace.notices][:2] == ["notice-cut-chars", "notice-cut-tokens"]
    notice = pickle.loads(pickle.dumps(Notice("notice-cut-chars", n=5)))
    assert (notice, notice.key, notice.params) == ("input cut to its first 5 characters", "notice-cut-chars", {"n": 5})


# ---------------------------------------------------------------- the UI path
def test_the_app_shows_a_keyed_error_in_the_visitors_language(translator, empty_registry):
    models.register_translator("tiny", translator)
    on_translate = common.localised_errors(lambda lang, text: session.translate(text, "tiny", DecodeOptions()))
    for lang in ("ja", "ko", "en"):
        with pytest.raises(gr.Error) as shown:
            on_translate(lang, "   ")
        assert shown.value.message == i18n.text("err-empty", lang)
    options = common.localised_errors(lambda lang, beam: session.decode_options("beam", beam, 1.0, 0, 1.0, 0, 64))
    with pytest.raises(gr.Error) as shown:
        options("ko", 1000)
    assert shown.value.message == "빔 크기(beam_size)는 1에서 16 사이여야 합니다(입력값: 1000)"


def test_a_keyed_reason_inside_an_error_is_translated_too(isolated):
    (isolated / "checkpoints").mkdir()
    with pytest.raises(UserError) as err:
        resolve_checkpoint("checkpoints/seed999")
    reason = err.value.params["reason"]
    assert reason.key == "err-repo-offline" and str(reason) in str(err.value)  # English: the reason's English
    shown = i18n.message(err.value, "ja")
    assert shown.startswith("チェックポイントのフォルダ checkpoints/seed999 がありません")
    assert shown.endswith(i18n.message(reason, "ja")) and "HF_HUB_OFFLINE が設定されています" in shown
