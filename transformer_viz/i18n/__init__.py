"""The app's words in English, Japanese and Korean, and how a visitor's language is chosen.

Plain data and functions (no gradio, no torch): the app looks every label, explanation and message up here
with `text(key, lang)`, and shows the library's errors and notices with `message(err, lang)`, by their key.
TEXTS gathers the tables: the page's words (page.py), the interventions' (lab.py), the figures'
(figures.py, figures_analysis.py) and the library's messages (errors.py).
"""

from __future__ import annotations

from .beyond_attribution import ATTRIBUTION_TEXTS
from .beyond_compare import COMPARE_TEXTS
from .beyond_lens import LENS_TEXTS
from .errors import MESSAGE_TEXTS
from .figures import FIGURE_TEXTS
from .figures_analysis import ANALYSIS_FIGURE_TEXTS
from .geometry import GEOMETRY_TEXTS
from .lab import LAB_TEXTS
from .page import PAGE_TEXTS
from .qkv import QKV_TEXTS
from .replay import REPLAY_TEXTS

LANGUAGES = {"en": "English", "ja": "日本語", "ko": "한국어"}
DEFAULT = "en"

# key → {language → text}: every word the app shows, looked up by text(key, lang).
TEXTS: dict[str, dict[str, str]] = {**PAGE_TEXTS, **LAB_TEXTS, **FIGURE_TEXTS, **ANALYSIS_FIGURE_TEXTS, **MESSAGE_TEXTS}
TEXTS |= {**LENS_TEXTS, **ATTRIBUTION_TEXTS, **COMPARE_TEXTS}  # the "Beyond attention" views' own tables
TEXTS.update(QKV_TEXTS)  # "One query, real numbers"
TEXTS.update({**REPLAY_TEXTS, **GEOMETRY_TEXTS})  # the "Beyond attention" views'


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


def message(err: object, lang: str | None) -> str:
    """A library error or notice in the visitor's language, by its key; one without a key keeps its English detail."""
    key = getattr(err, "key", None)
    if key is not None:  # a parameter may be a keyed error itself (the reason for this one)
        return text(key, lang, **{k: message(v, lang) if hasattr(v, "key") else v for k, v in err.params.items()})
    if language(lang) == DEFAULT:
        return str(err)
    return text("err-other", lang, detail=str(err))
