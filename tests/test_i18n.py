"""The five UI languages: complete catalogues, the browser's choice, and library messages put into each language
by key. (test_i18n_keys.py checks the catalogues against the code; test_i18n_languages.py a language added.)"""

from __future__ import annotations

import json
import re

import pytest

from tests.tiny import tiny_translator
from transformer_viz import i18n
from transformer_viz.decoding import DecodeOptions
from transformer_viz.probes.interventions import EXPLANATIONS, LABELS, SEED_BUGS

SHIPPED = sorted(path.stem for path in i18n.FOLDER.glob("*.json"))  # the package's own catalogues
ENGLISH = i18n.CATALOGUES[i18n.DEFAULT]


# Each language but English and German in its own script (German: Latin letters, checked against English instead).
SCRIPTS = {
    "ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"),  # kana and kanji
    "ko": re.compile(r"[\uac00-\ud7af]"),  # hangul
    "zh": re.compile(r"[\u4e00-\u9fff]"),  # han characters
}
KANA = re.compile(r"[\u3040-\u30ff]")


def test_the_package_ships_five_languages_english_first():
    assert SHIPPED == ["de", "en", "ja", "ko", "zh"]
    names = {"en": "English", "de": "Deutsch", "ja": "日本語", "ko": "한국어", "zh": "简体中文"}
    assert i18n.LANGUAGES == names and list(i18n.LANGUAGES)[0] == i18n.DEFAULT  # the menu's order: English first
    assert len(ENGLISH) > 400


@pytest.mark.parametrize("key", sorted(ENGLISH))
def test_every_text_exists_in_every_shipped_language(key):
    for lang in SHIPPED:
        assert i18n.CATALOGUES[lang].get(key, "").strip(), f"{key} lacks its {lang} text"
        # Backticked tokens (`<s>`, `</s>`) must survive: unquoted, Markdown would treat them as HTML tags.
        assert re.findall(r"`[^`]+`", i18n.CATALOGUES[lang][key]) == re.findall(r"`[^`]+`", ENGLISH[key]), key


@pytest.mark.parametrize("lang", SHIPPED)
def test_no_key_is_written_twice_in_a_catalogue(lang):
    """JSON keeps the last of two equal keys without a word: the first text would be lost."""
    pairs = json.loads((i18n.FOLDER / f"{lang}.json").read_text(encoding="utf-8"), object_pairs_hook=list)
    keys = [key for key, _ in pairs]
    assert sorted({key for key in keys if keys.count(key) > 1}) == []
    assert keys[0] == i18n.NAME and keys[1:] == [key for key in ENGLISH if key in keys[1:]]  # in English's order


def test_each_language_is_written_in_its_own_words():
    """Not English copied across: every sentence-like text carries kana/kanji, hangul or han characters, and
    German's differs from English's; Chinese is not Japanese (no kana)."""
    for key, english in ENGLISH.items():
        if len(re.sub(r"[^A-Za-z]", "", english)) < 6 or key in ("top-p",):
            continue  # names such as "Top-p" stay as they are
        for lang, script in SCRIPTS.items():
            assert script.search(i18n.CATALOGUES[lang][key]), (lang, key)
        assert not KANA.search(i18n.CATALOGUES["zh"][key]), key
        if " " in english.strip() and not key.startswith("err-config"):  # a sentence, not a name
            assert i18n.CATALOGUES["de"][key] != english, key


@pytest.mark.parametrize(
    "header, expected",
    [
        ("ja-JP,ja;q=0.9,en-US;q=0.8", "ja"),
        ("ko-KR,ko;q=0.9", "ko"),
        ("fr-FR,fr;q=0.9,ko;q=0.5,ja;q=0.4", "ko"),  # the best-ranked language we have
        ("de-DE,de;q=0.9,en;q=0.5", "de"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("zh-SG", "zh"),
        ("zh-Hans-HK", "zh"),  # simplified characters asked for by name, in Hong Kong
        ("zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", "en"),  # traditional Chinese: the bare zh after it means it too
        ("zh-HK,zh;q=0.9", "en"),
        ("zh-MO", "en"),
        ("zh-Hant,zh;q=0.9,ja;q=0.5", "ja"),  # a language it does read, ranked below
        ("zh,zh-TW;q=0.9", "zh"),  # plain Chinese first: simplified is what it asks for
        ("en;q=0.2,ja;q=0.8", "ja"),  # q-values, not order, decide
        ("fr-FR,es;q=0.9", "en"),  # nothing supported: English
        ("ja;q=0", "en"),  # q=0 means "not this one"
        ("", "en"),
        (None, "en"),
    ],
)
def test_language_from_the_browser(header, expected):
    assert i18n.from_accept_language(header) == expected


def test_the_interventions_english_texts_live_beside_their_translations():
    assert (
        set(LABELS) == set(EXPLANATIONS) == {"ablate_zero", "ablate_mean", "no_positions", "no_causal_mask", *SEED_BUGS}
    )
    for name in LABELS:
        assert i18n.text(f"iv-label-{name}", "en") == LABELS[name]
        assert i18n.text(f"iv-explain-{name}", "en") == EXPLANATIONS[name]
        assert i18n.text(f"iv-explain-{name}", "ja") != EXPLANATIONS[name]


@pytest.mark.parametrize(
    "tag, expected",
    [("zh", "zh"), ("zh-CN", "zh"), ("zh_Hans", "zh"), ("zh-TW", "en"), ("zh-HK", "en"), ("zh-Hant-TW", "en")]
    + [("zh-hant", "en"), ("de-AT", "de"), ("de-1996", "de"), ("ja-JP", "ja")],
)
def test_a_link_in_traditional_chinese_is_shown_in_english(tag, expected):
    """?lang= in a link and the language of a figure: the simplified catalogue is not offered for traditional."""
    assert i18n.language(tag) == expected
    assert i18n.text("translate", tag) == i18n.CATALOGUES[expected]["translate"]


def test_text_fills_values_and_falls_back_to_english():
    assert i18n.text("notice-cut-tokens", "ko", n=7) == "입력을 모델의 한도인 7토큰에서 잘랐습니다"
    assert i18n.text("translate", "ja-JP") == i18n.CATALOGUES["ja"]["translate"]
    assert i18n.text("translate", "xx") == "Translate"


def library_errors() -> list[ValueError]:
    """Real errors raised by the library for a visitor's mistakes."""
    errors = []
    translator = tiny_translator("seed000")
    with pytest.raises(ValueError) as empty:
        translator.trace("   \u200b ")
    errors.append(empty.value)
    for bad in (
        dict(temperature=-1.0),
        dict(beam_size=0),
        dict(beam_size=1000),
        dict(max_new_tokens=0),
        dict(top_p=2.0),
        dict(seed=2**64),
    ):
        with pytest.raises(ValueError) as err:
            DecodeOptions(**bad).validate()
        errors.append(err.value)
    return errors


@pytest.mark.parametrize("lang", ["de", "ja", "ko", "zh"])
def test_library_errors_arrive_in_the_visitors_language(lang):
    for err in library_errors():
        shown = i18n.message(err, lang)
        assert shown == i18n.text(err.key, lang, **err.params), err.key  # the whole text, by key: no English lead-in
        assert shown != str(err), (str(err), shown)
        assert lang not in SCRIPTS or SCRIPTS[lang].search(shown), (str(err), shown)
    assert i18n.message(library_errors()[0], "en") == str(library_errors()[0])


def test_truncation_notices_are_translated_with_their_numbers():
    translator = tiny_translator("seed000", max_len=8)
    notices = translator.trace("one two three four five six seven eight nine ten eleven twelve").notices
    notices = [n for n in notices if n.key.startswith("notice-cut")]  # not the output limit's, if it was reached
    assert notices, "a sentence longer than the model's limit must say it was cut"
    for notice in notices:
        shown = i18n.message(notice, "ja")
        assert re.search(r"\d+", shown).group() in notice and "切り詰め" in shown


# The study notes name themselves "seed 000" and "seed 004"; a teacher has never seen them. The page calls them
# the two study notes this project grew from, and uses seed000/seed004 only as the names of the bundled models.
STUDY_NOTES = {"en": "study note", "de": "Lernnotiz", "ja": "学習ノート", "ko": "학습 노트", "zh": "学习笔记"}
MODEL = {"en": "model", "de": "modell", "ja": "モデル", "ko": "모델", "zh": "模型"}


@pytest.mark.parametrize("lang", SHIPPED)
def test_no_text_names_a_study_note_by_its_seed_without_saying_what_it_is(lang):
    named = {key: text for key, text in i18n.CATALOGUES[lang].items() if re.search(r"seed\s*\d", text, re.I)}
    assert named, "the bundled models are named somewhere"
    for key, text in named.items():
        assert not re.search(r"seed\s+\d", text, re.I), (key, text)  # the notes' own name for themselves
        assert MODEL[lang] in text.lower(), (key, text)  # seed000 is a model in the menu, said so where it appears
    for key in [f"iv-explain-{bug}" for bug in SEED_BUGS] + ["explain-bugs", "fig-padding-bug"]:
        assert STUDY_NOTES[lang] in i18n.text(key, lang), key
    assert "seed" not in i18n.text("tab-bugs", lang).lower() and "シード" not in i18n.text("tab-bugs", lang)
    assert "시드" not in i18n.text("tab-bugs", lang) and "种子" not in i18n.text("tab-bugs", lang)
