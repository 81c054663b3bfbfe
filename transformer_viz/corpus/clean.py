"""Cleaning rules for translation units read from software translation files.

A unit is an (English, German) pair of texts as a translator saw them: a UI label, a line of
dialogue, a help paragraph. ``clean_units`` turns units into training pairs, in this order:

1. Accelerator marks are stripped (``&File`` ``_Open`` ``~Open`` → ``File`` ``Open``; inside a
   word, ``Bei_de``, only where each side has one), then
   markup (``<b>``, ``<span …>``), colour codes and entities (``&amp;`` → ``&``); whitespace is normalised; a
   section number that starts both sides alike (``9.4.6.``) is removed.
2. A unit with a placeholder on either side (``%s`` ``%1$s`` ``%(name)s`` ``{x}`` ``$1``
   ``$name`` ``%1``) is dropped: a placeholder is not text, and a model trained on it would
   write placeholders into translations.
3. Paragraphs (several lines, or several sentences) are split into sentences only where both
   sides split into the same number of parts; otherwise the unit stays whole.
4. Filters drop a pair that is empty (a side with fewer than two letters), untranslated (both
   sides equal), over ``MAX_CHARS`` characters or ``MAX_WORDS`` words, with a wild length ratio,
   or with leftover markup (URLs, paths, brackets, ``= \\ | @ # * _ ~``).
5. Exact duplicates are removed, keeping the first.

German text without English (``clean_german``) goes through the same steps on its one side: markup
stripped, placeholders dropped, paragraphs split into sentences, empty, over-long and marked-up
sentences and duplicates removed, and, as no English vouches for it, a sentence that is more symbols
than words (ASCII art).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable

from .ding import APOSTROPHES, MAX_CHARS, MAX_WORDS

MAX_RATIO = 3.0  # longest/shortest side in characters, for sides of >= 20 characters
MIN_RATIO_CHARS = 20
MIN_TEXT_SHARE = 0.75  # German text without English: letters and spaces make at least this share of a sentence

# An accelerator mark sits right before the letter it underlines; "&amp;" is an entity, not one.
_ACCELERATOR = re.compile(r"(?<![\w&])&(?!#?\w+;)(?=\w)|(?<!\w)[_~](?=\w)")
# Inside a word a mark is an accelerator only when each side has exactly one ("Bei_de", "~Datei").
_MARKS = {mark: re.compile(rf"{mark}(?!#?\w+;)(?=\w)" if mark == "&" else rf"{mark}(?=\w)") for mark in "&_~"}
_NUMBERING = re.compile(r"(?:[A-Z]\.)?(?:\d+\.)+\d*\s+(?=\S)")  # "9.4.6. " "B.4.7. " "2.1 ", not "3 "
_COLOUR_CODE = re.compile(r"\a\w?")  # Naev's "\ag" (green) … "\a0" (back to normal)
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
PLACEHOLDER = re.compile(
    r"%(?:\d+\$)?[-+#0]*\d*(?:\.\d+)?[hlLqjzt]*[sdifuxXeEgGcpo%]"  # %s %d %1$s %.2f %lu
    r"|%\([\w.-]+\)[sdifr]"  # %(name)s
    r"|%\d+|%[A-Za-z_]+%"  # Qt %1, %PRODUCTNAME%
    r"|\{[^{}\s]*\}"  # {x} {0} {name}
    r"|\$\{?[\w.]+\}?"  # $1 $name ${name}
    r"|@\w+@"  # @NAME@
)
_LEFTOVER = re.compile(r"https?://|www\.|[\x00-\x1f\x7f\\|=<>{}\[\]@#*^_~]|\w/\w|\.{3}|…|\t")
# A sentence ends at . ! ? (and a closing quote) before whitespace and a capital letter,
# but not after an abbreviation ("z. B.", "e.g.", "Dr."), a single letter or a number.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"'“”»«]?\s+(?=[\"'„“«»]?[A-ZÄÖÜ])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|Dr|Mr|Mrs|Ms|St|No|Nr|z\.\s?B|d\.\s?h|u\.\s?a|bzw|ca|vgl|usw|ggf|evtl|inkl|"
    r"Abb|Kap|S|Bd|Hr|Fr|Str|Tel|[A-Za-z])|\d)\.[\"'“”»«]?$"
)


def strip_markup(text: str) -> str:
    """Accelerators, tags, colour codes and entities removed; apostrophes straightened; spaces normalised."""
    text = _COLOUR_CODE.sub("", _ACCELERATOR.sub("", text))
    text = html.unescape(_TAG.sub(" ", text))
    return " ".join(text.translate(APOSTROPHES).replace("\u00a0", " ").split())


def strip_accelerators(en: str, de: str) -> tuple[str, str]:
    """Remove an accelerator mark that occurs exactly once on each side, also inside a word."""
    for pattern in _MARKS.values():
        if len(pattern.findall(en)) == 1 and len(pattern.findall(de)) == 1:
            en, de = pattern.sub("", en), pattern.sub("", de)
    return en, de


def strip_numbering(en: str, de: str) -> tuple[str, str]:
    """Remove a section number that starts both sides alike ("9.4.6. Tracing" / "9.4.6. Verfolgen")."""
    en_number, de_number = _NUMBERING.match(en), _NUMBERING.match(de)
    if en_number and de_number and en_number.group(0).strip() == de_number.group(0).strip():
        return en[en_number.end() :], de[de_number.end() :]
    return en, de


def has_placeholder(text: str) -> bool:
    """Whether a text contains a format placeholder (printf, Python, Qt, brace or $ variables)."""
    return bool(PLACEHOLDER.search(text))


def split_sentences(text: str) -> list[str]:
    """A paragraph cut into sentences at . ! ? followed by a capital, never after abbreviations."""
    parts, start = [], 0
    for match in _SENTENCE_BREAK.finditer(text):
        head = text[start : match.start()]
        if _ABBREVIATION.search(head):
            continue
        parts.append(text[start : match.start()].strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def align_parts(en: str, de: str) -> list[tuple[str, str]]:
    """Lines, then sentences, paired one to one where both sides have the same number; else whole."""
    en_lines, de_lines = _lines(en), _lines(de)
    if len(en_lines) != len(de_lines):
        return [(" ".join(en_lines), " ".join(de_lines))]
    pairs = []
    for en_line, de_line in zip(en_lines, de_lines):
        en_sents, de_sents = split_sentences(en_line), split_sentences(de_line)
        if len(en_sents) == len(de_sents):
            pairs += zip(en_sents, de_sents)
        else:
            pairs.append((en_line, de_line))
    return pairs


def _lines(text: str) -> list[str]:
    """The non-empty lines of a text."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def reject_reason(en: str, de: str) -> str | None:
    """Why a clean pair is dropped (the module docstring, step 4), or None to keep it."""
    if min(sum(c.isalpha() for c in en), sum(c.isalpha() for c in de)) < 2:  # "", "...", "X" (a UI letter)
        return "empty"
    if en == de:
        return "untranslated"
    if any(len(side) > MAX_CHARS or len(side.split()) > MAX_WORDS for side in (en, de)):
        return "length"
    if max(len(en), len(de)) >= MIN_RATIO_CHARS and max(len(en), len(de)) > MAX_RATIO * min(len(en), len(de)):
        return "ratio"
    if _LEFTOVER.search(en) or _LEFTOVER.search(de):
        return "markup"
    return None


def clean_units(units: Iterable[tuple[str, str]], stats: Counter | None = None) -> list[tuple[str, str]]:
    """Raw (English, German) units → clean, filtered, deduplicated sentence pairs (steps 1-5)."""
    stats = Counter() if stats is None else stats
    seen: set[tuple[str, str]] = set()
    kept: list[tuple[str, str]] = []
    for en_raw, de_raw in units:
        stats["units"] += 1
        if has_placeholder(en_raw) or has_placeholder(de_raw):
            stats["placeholder"] += 1
            continue
        for en, de in align_parts(en_raw, de_raw):
            en, de = strip_accelerators(en, de)
            en, de = strip_numbering(strip_markup(en), strip_markup(de))
            reason = reject_reason(en, de)
            if reason is None and (en, de) in seen:
                reason = "duplicate"
            if reason:
                stats[reason] += 1
                continue
            seen.add((en, de))
            kept.append((en, de))
    stats["kept"] = len(kept)
    return kept


def german_reject_reason(de: str) -> str | None:
    """Why a clean German sentence without English is dropped (the rules of step 4 that need no English)."""
    if sum(c.isalpha() for c in de) < 2:
        return "empty"
    if len(de) > MAX_CHARS or len(de.split()) > MAX_WORDS:
        return "length"
    if _LEFTOVER.search(de):
        return "markup"
    if sum(c.isalpha() or c.isspace() for c in de) < MIN_TEXT_SHARE * len(de):
        return "symbols"
    return None


def clean_german(texts: Iterable[str], stats: Counter | None = None) -> list[str]:
    """Raw German texts (no English side) → clean, filtered, deduplicated sentences."""
    stats = Counter() if stats is None else stats
    seen: set[str] = set()
    kept: list[str] = []
    for raw in texts:
        stats["units"] += 1
        if has_placeholder(raw):
            stats["placeholder"] += 1
            continue
        for line in _lines(raw):
            for sentence in split_sentences(strip_markup(line)):
                reason = german_reject_reason(sentence) or ("duplicate" if sentence in seen else None)
                if reason:
                    stats[reason] += 1
                    continue
                seen.add(sentence)
                kept.append(sentence)
    stats["kept"] = len(kept)
    return kept
