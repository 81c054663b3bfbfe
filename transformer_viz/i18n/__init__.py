"""The app's words in English, Japanese and Korean, and how a visitor's language is chosen.

Plain data and functions (no gradio): ui.py looks every label, explanation and
message up here with `text(key, lang)`. TEXTS gathers the tables: the page's words
(page.py), the interventions' (lab.py) and the figures' (figures.py).
"""

from __future__ import annotations

import re

from .figures import FIGURE_TEXTS
from .lab import LAB_TEXTS
from .page import PAGE_TEXTS

LANGUAGES = {"en": "English", "ja": "日本語", "ko": "한국어"}
DEFAULT = "en"

# key → {language → text}: every word the app shows, looked up by text(key, lang).
TEXTS: dict[str, dict[str, str]] = {**PAGE_TEXTS, **LAB_TEXTS, **FIGURE_TEXTS}

# The library speaks English; its messages are recognised here and put into the visitor's language.
MESSAGES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^the sentence is empty"), "err-empty"),
    (re.compile(r"^nothing is switched off yet"), "whatif-nothing"),
    (re.compile(r"^input cut to the model's limit of (?P<n>\d+) tokens"), "notice-cut-tokens"),
    (re.compile(r"^input cut to its first (?P<n>\d+) characters"), "notice-cut-chars"),
    (re.compile(r"^no room to left-pad the target"), "notice-no-pad-room"),
    (
        re.compile(
            r"^(?P<detail>(strategy|max_new_tokens|beam_size|temperature|top_k|top_p|length_penalty|n_alternatives|seed) must .*)$",
            re.S,
        ),
        "err-option",
    ),
]


def language(lang: str | None) -> str:
    """A supported language code: 'ja-JP' → 'ja'; anything unknown → English."""
    code = (lang or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else DEFAULT


def text(key: str, lang: str | None = DEFAULT, **values) -> str:
    """The text for `key` in `lang` (English where a translation is missing), with {values} filled in."""
    entry = TEXTS[key]
    template = entry.get(language(lang)) or entry[DEFAULT]
    return template.format(**values) if values else template


def from_accept_language(header: str | None) -> str:
    """The best supported language of an HTTP Accept-Language header ('ko-KR,ko;q=0.9,en;q=0.8' → 'ko')."""
    ranked = []
    for i, part in enumerate((header or "").split(",")):
        name, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        code = name.strip().lower().split("-")[0]
        if code in LANGUAGES and weight > 0:
            ranked.append((-weight, i, code))
    return min(ranked)[2] if ranked else DEFAULT


def message(english: str, lang: str | None) -> str:
    """A library message (error or notice) in the visitor's language; unknown ones keep their English detail."""
    if language(lang) == DEFAULT:
        return english
    for pattern, key in MESSAGES:
        match = pattern.match(english)
        if match:
            return text(key, lang, **match.groupdict())
    return text("err-other", lang, detail=english)
