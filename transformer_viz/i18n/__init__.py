"""The app's words, one catalogue per language, and how a visitor's language is chosen.

Each language is one JSON file in catalogues/, named by its code (en.json, de.json, ja.json, ko.json, zh.json): a
flat object of key → text. The English catalogue is the source of truth: every key the code uses is in it, and a
text missing from another catalogue is shown in English. Each catalogue names its language in itself under
"language-name" ("日本語"): the language menu offers every catalogue found, English first, so adding a language is
adding one file. More folders of catalogues (a language of one's own, or a few texts reworded) are read with
`load(folder)`, or named in the environment variable TRANSFORMER_VIZ_CATALOGUES (os.pathsep between folders)
before this package is imported; a later folder's text wins over an earlier one's for the same language and key.

Why JSON and not gettext's .po: no compile step (Python reads .po only through compiled .mo files or a library
such as polib); Python's json and the browser's JavaScript read the same file as it is, so a page that says its
words in the browser can take them from here; and a flat key → text JSON file is a format translation platforms
(Weblate, Crowdin) import and export as it is. What .po has and JSON lacks, plural forms and comments for the
translator, this app does not use: its numbers are placeholders in sentences written around them, and the
conventions below are written here once.

For translators: texts may use Markdown; tokens such as `<s>` stay in backticks (unquoted, Markdown would take
them for HTML tags). A {name} is a placeholder the code fills in ({value!r} quotes a value as Python would);
a translation keeps the English text's placeholders, no more, no fewer. Every "fig-" text is a str.format
template even without placeholders, so Plotly's own are written with doubled braces ("%{{z:.3f}}" reaches
Plotly as "%{z:.3f}"), and "\\n" in an axis title breaks the line. The English figure texts are the figures'
original words. In Korean, a bold token that a particle follows directly is written <strong>…</strong>, not
**…** (CommonMark does not close "**" between punctuation and a letter: "**.**을"). The explanations are
written for a learner in each language (the two study notes this project grew from were written in Japanese and
Korean), not translated word by word.

The German and Chinese catalogues were drafted by machine and are marked so in the docs until a speaker of each
has read them. Chinese is written in simplified characters: a visitor who asks for traditional Chinese (zh-TW,
zh-HK, zh-MO or the Hant script, in a link or the browser's languages) is shown English, not a script they did not
ask for (UNSERVED).

Plain data and functions (no gradio, no torch): the app looks every label, explanation and message up with
`text(key, lang)`, and shows the library's errors and notices (transformer_viz.errors) with `message(err, lang)`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

FOLDER = Path(__file__).with_name("catalogues")  # the catalogues the package ships
EXTRA_FOLDERS = "TRANSFORMER_VIZ_CATALOGUES"  # the environment variable naming more folders
DEFAULT = "en"
NAME = "language-name"  # the key under which a catalogue names its language in itself
CODE = re.compile(r"[a-z]{2,3}")  # a catalogue's file name: a language code as language() reads one
# Variants a catalogue does not speak, by language: (the scripts it is not written in, the regions whose everyday
# script that is). A tag naming its script is read by the script ("zh-Hans-HK" is simplified); one without, by its
# region. Such a visitor is shown English.
UNSERVED = {"zh": ({"hant"}, {"tw", "hk", "mo"})}

# language → key → text, for every catalogue loaded; and language → its name, as the language menu offers them
CATALOGUES: dict[str, dict[str, str]] = {}
LANGUAGES: dict[str, str] = {}


def load(folder: str | Path) -> list[str]:
    """Read every catalogue in `folder` (`<code>.json`) into CATALOGUES and LANGUAGES; the codes it read."""
    if not Path(folder).is_dir():
        raise FileNotFoundError(f"no folder of catalogues at {folder}")
    codes = []
    for path in sorted(Path(folder).glob("*.json"), key=lambda p: (p.stem != DEFAULT, p.stem)):  # English first
        code = path.stem
        if not CODE.fullmatch(code):
            raise ValueError(f"{path}: a catalogue is named by its language's code, such as de.json")
        texts = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(texts, dict) or not all(isinstance(words, str) for words in texts.values()):
            raise ValueError(f"{path}: a catalogue is one JSON object of key → text")
        if NAME not in texts and code not in LANGUAGES:
            raise ValueError(f"{path}: a new language's catalogue must name its language in itself ({NAME!r})")
        CATALOGUES.setdefault(code, {}).update(texts)
        LANGUAGES[code] = CATALOGUES[code][NAME]
        codes.append(code)
    return codes


def served(tag: str | None) -> str | None:
    """The catalogue that speaks a language tag ('ja-JP' → 'ja', 'zh-CN' → 'zh'); None for a language without one,
    or a variant its catalogue does not speak ('zh-TW', 'zh-Hant': UNSERVED)."""
    code, *subtags = (tag or "").strip().lower().replace("_", "-").split("-")
    if code not in LANGUAGES:
        return None
    scripts, regions = UNSERVED.get(code, (set(), set()))
    script = next((s for s in subtags if len(s) == 4 and s.isalpha()), None)  # BCP 47: a script is four letters
    unserved = script in scripts if script else any(subtag in regions for subtag in subtags)
    return None if unserved else code


def language(lang: str | None) -> str:
    """A supported language code: 'ja-JP' → 'ja'; anything unknown, or a variant not spoken (UNSERVED) → English."""
    return served(lang) or DEFAULT


def template(key: str, lang: str | None = DEFAULT) -> str:
    """The text of `key` in `lang`, placeholders unfilled; English where that language lacks it."""
    return CATALOGUES[language(lang)].get(key) or CATALOGUES[DEFAULT][key]


def text(key: str, lang: str | None = DEFAULT, **values) -> str:
    """The text for `key` in `lang` (English where a translation is missing), with {values} filled in."""
    return template(key, lang).format(**values) if values else template(key, lang)


def from_accept_language(header: str | None) -> str:
    """The best supported language of an HTTP Accept-Language header ('ko-KR,ko;q=0.9,en;q=0.8' → 'ko').

    A language's best-ranked tag says which variant is wanted: browsers add the bare language after the reader's
    own ('zh-TW,zh;q=0.9'), and that 'zh' still means traditional Chinese, so it is not served either."""
    ranked = []
    for i, part in enumerate((header or "").split(",")):
        name, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        if name.strip() and weight > 0:
            ranked.append((-weight, i, name.strip()))
    decided: dict[str, str | None] = {}  # language → its catalogue, as its best-ranked tag decides
    for _, _, tag in sorted(ranked):
        code = decided.setdefault(tag.lower().replace("_", "-").split("-")[0], served(tag))
        if code:
            return code
    return DEFAULT


def message(err: object, lang: str | None) -> str:
    """A library error or notice in the visitor's language, by its key; one without a key keeps its English detail."""
    key = getattr(err, "key", None)
    if key is not None:  # a parameter may be a keyed error itself (the reason for this one)
        return text(key, lang, **{k: message(v, lang) if hasattr(v, "key") else v for k, v in err.params.items()})
    if language(lang) == DEFAULT:
        return str(err)
    return text("err-other", lang, detail=str(err))


load(FOLDER)
for extra in filter(None, os.environ.get(EXTRA_FOLDERS, "").split(os.pathsep)):
    load(extra)
