"""English→German pairs extracted from the Ding dictionary file.

Source: Debian package ``trans-de-en`` (``/usr/share/trans/de-en``, GPL-2+, Frank Richter's
"Ding", https://dict.tu-chemnitz.de/). One entry per line, ``German :: English``; ``#`` lines
are comments; `` | `` separates aligned sub-entries (headword, plural/conjugated forms,
phrases, example sentences); ``; `` separates synonyms inside a sub-entry.

Extraction, in order:

1. Annotations are stripped from each whole side *before* splitting, because they may contain
   ``;`` (``{sought; sought}``, ``(in; nach; zu)``): ``{m}`` ``{adj}`` (grammar), ``[ugs.]``
   ``[Br.]`` (register/region), ``(…)`` (glosses and optional words, nested too), ``<…>``
   (search keys, old spellings), `` /SIDU/ `` (abbreviations). Curly apostrophes become
   ``'`` so that typed English ("don't") matches the corpus.
2. A line whose two sides have different numbers of sub-entries is skipped.
3. Alternatives: the first English alternative is paired with the first German one. Pairing
   more (n-th with n-th, or all with all) adds noise: Ding lists *unordered* synonyms
   (``Nervensäge; Quälgeist; Plagegeist :: nuisance; pest; pain in the neck``). Sentences are
   the exception: when both sides list the same number of full sentences (du/Sie variants,
   ``Benimm dich!; Benehmen Sie sich! :: Just behave!; Behave yourself!``) they are zipped.
4. Word-level slash alternatives keep the first choice (``He/She is`` → ``He is``,
   ``programme/program`` → ``programme``) unless that looks unsafe (units ``km/h``, a case
   change or a repeated word that signals a multi-word choice, ``vorbei/an Ihnen vorbei``);
   a sentence that lacks the final ``. ! ?`` its translation has gets it copied (only where the pair then is a
  sentence: ``B.O. :: Schweißgeruch`` stays as it is). Such pairs are
   marked ``edited`` and never become valid/test references.
5. Kind: "sentence" when both sides start with a capital/digit/quote and end in ``. ! ?`` and
   the English side has >= 2 words; "phrase" when both sides have >= 2 words (not counting the
   English infinitive "to"); else "word" (headwords, compounds: ``dip molding ::
   Tauchformverfahren``).
6. Filters (a pair is dropped when any holds): a side is empty; leftover markup (brackets,
   unresolved ``/``, ``~ = \\ _ * # @ |``, control characters); ``…``/``...`` (fragments
   such as ``Dem steht entgegen, dass …``); dictionary placeholders (``sth. sb. etw. jdn.
   jdm.``), which never occur in real text and would leak into translations; a side over
   ``MAX_CHARS`` characters or ``MAX_WORDS`` words; for pairs of >= 4 words a character-length
   ratio over ``MAX_RATIO``; identical sides in a sentence (names and loanwords may be copied).
   Exact duplicates (same src and tgt) are removed, keeping the first occurrence.

Measured on the 2023-01-30 release (206,233 entries, 0 lines with misaligned `` | ``): of
391,702 first-alternative candidates, filters drop 12,783 for placeholders, 7,352 for
unresolved slashes, 2,439 for ellipses, 101 for the length ratio, 45 for markup or length.
``load_ding()`` then gives 365,922 unique pairs: 19,768 sentences (1,534 edited), 62,528
phrases and 283,626 words (~20 s).
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

DING_PATH = Path("/usr/share/trans/de-en")
DING_ENV = "TRANSFORMER_VIZ_DING"
KINDS = ("sentence", "phrase", "word")
MAX_CHARS = 250  # longest side kept, in characters
MAX_WORDS = 40  # longest side kept, in whitespace-separated words
MAX_RATIO = 2.5  # longest/shortest side in characters, for pairs of >= 4 words


@dataclass(frozen=True)
class Pair:
    """One training example: English source, German target and its kind."""

    src: str  # English
    tgt: str  # German
    kind: str  # "sentence" | "phrase" | "word"
    # True when extraction rewrote the text (slash alternative chosen, final punctuation copied);
    # such pairs train but never become valid/test references.
    edited: bool = field(default=False, compare=False)
    # Where the pair comes from ("" for Ding and user TSVs, else a corpus source name), for weighting sources.
    source: str = field(default="", compare=False)


# ---------------------------------------------------------------------------- cleaning
# None of the patterns crosses a " | " so one bad sub-entry cannot swallow its neighbours.
_ABBREVIATION = re.compile(r"(?<!\S)/[^/\s|][^/|]*/(?!\S)")  # " /SIDU/ " " /R.I./ "
_BRACKETS = re.compile(r"\{[^{}|]*\}|\[[^\[\]|]*\]|<[^<>|]*>|\([^()|]*\)")
# Word-level slash alternatives "He/She is", "programme/program" (numbers/units excluded).
_SLASH_GROUP = re.compile(r"(?<![\w'/-])[\w'-]+(?:/[\w'-]+)+(?![\w'/-])")
APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "´": "'", "`": "'"})
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,!?;:])")
# Anything but letters, digits, spaces and ordinary punctuation: leftover brackets and markup,
# control characters, "…"/"..." (incomplete fragments).
_BAD_CHAR = re.compile(r"[^\w .,!?;:'\"„“”‚\-–%&+°$£€§×]|_|\.\.\.")
_PLACEHOLDER = re.compile(r"\b(?:sth|sb|etw|jd|jdn|jdm|jds)\.|\bsb's\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"^[\"'„“]?[A-ZÄÖÜ0-9]")
_SENTENCE_END = re.compile(r"[.!?][\"'“”]?$")


def clean(text: str) -> str:
    """Strip Ding annotations ({m} [ugs.] (…) <…> /ABBR/), resolve "a/b" to "a", tidy spaces."""
    return _resolve_slashes(_strip_annotations(text))


def _strip_annotations(text: str) -> str:
    """Remove {…} […] (…) <…> /ABBR/, straighten apostrophes and normalise whitespace."""
    text = _ABBREVIATION.sub(" ", text)
    previous = None
    while previous != text:  # repeat for nested brackets: "(a (b) c)"
        previous, text = text, _BRACKETS.sub(" ", text)
    text = " ".join(text.translate(APOSTROPHES).split())
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text).strip(" ,;:")


def _resolve_slashes(text: str) -> str:
    """Keep the first of word-level slash alternatives: "He/She is" → "He is"."""
    return _SLASH_GROUP.sub(_first_alternative, text) if "/" in text else text


def _first_alternative(match: re.Match) -> str:
    """'He/She' → 'He'; left as is (so later filtered) where the choice looks unsafe."""
    words = match.group(0).split("/")
    after = re.findall(r"[\w'-]+", match.string[match.end() :])[:4]
    if any(len(w) < 2 or w.isdigit() for w in words):  # "km/h", "24/7"
        return match.group(0)
    if len({w[0].isupper() for w in words}) > 1:  # "Gewissen/deiner religiösen Überzeugung"
        return match.group(0)
    if set(words) & set(after):  # "lautet auf/geht auf …", "vorbei/an Ihnen vorbei"
        return match.group(0)
    return words[0]


def _complete_punctuation(src: str, tgt: str) -> tuple[str, str]:
    """Copy a sentence's final . ! ? onto a translation that lacks it (a frequent Ding typo)."""
    looks_done = [bool(_SENTENCE_START.match(s) and _SENTENCE_END.search(s)) for s in (src, tgt)]
    unfinished = [bool(_SENTENCE_START.match(s) and s[-1:].isalnum()) for s in (src, tgt)]
    if looks_done[0] and unfinished[1]:
        return src, tgt + _SENTENCE_END.search(src).group(0)[0]
    if looks_done[1] and unfinished[0]:
        return src + _SENTENCE_END.search(tgt).group(0)[0], tgt
    return src, tgt


def kind_of(src: str, tgt: str) -> str:
    """Classify a clean pair as "sentence", "phrase" or "word"."""
    if all(_SENTENCE_START.match(s) and _SENTENCE_END.search(s) for s in (src, tgt)):
        if len(src.split()) >= 2:
            return "sentence"
    english_words = len(src.split()) - src.startswith("to ")  # "to oscillate" is one word
    if english_words >= 2 and len(tgt.split()) >= 2:
        return "phrase"
    return "word"


def _keep(src: str, tgt: str) -> bool:
    """The quality filters of the module docstring, step 6."""
    if not src or not tgt:
        return False
    if src == tgt and kind_of(src, tgt) == "sentence":  # names may be copied, sentences not
        return False
    for side in (src, tgt):
        if len(side) > MAX_CHARS or len(side.split()) > MAX_WORDS:
            return False
        if _BAD_CHAR.search(side) or _PLACEHOLDER.search(side):
            return False
    if min(len(src.split()), len(tgt.split())) >= 4:
        long, short = max(len(src), len(tgt)), min(len(src), len(tgt))
        if long > MAX_RATIO * short:
            return False
    return True


def _alternatives(sub_entry: str) -> list[tuple[str, bool]]:
    """The '; '-separated alternatives of a sub-entry, slashes resolved, with 'was edited'."""
    alts = [alt.strip(" ,;:") for alt in sub_entry.split("; ")]
    return [(_resolve_slashes(alt), "/" in alt) for alt in alts if alt]


def parse_line(line: str) -> list[Pair]:
    """Extract the clean, filtered (English, German) pairs of one ``German :: English`` line."""
    line = line.strip()
    if not line or line.startswith("#") or line.count(" :: ") != 1:
        return []
    german, english = (_strip_annotations(side) for side in line.split(" :: "))
    de_subs, en_subs = german.split("|"), english.split("|")
    if len(de_subs) != len(en_subs):
        return []  # misaligned sub-entries: cannot tell which goes with which
    pairs = []
    for de_sub, en_sub in zip(de_subs, en_subs):
        de_alts, en_alts = _alternatives(de_sub), _alternatives(en_sub)
        if not de_alts or not en_alts:
            continue
        (en_first, en_edited), (de_first, de_edited) = en_alts[0], de_alts[0]
        en, de = _complete_punctuation(en_first, de_first)
        if kind_of(en, de) != "sentence":  # "B.O." is an abbreviation, not a sentence: its translation gets no "."
            en, de = en_first, de_first
        edited = en_edited or de_edited or (en, de) != (en_first, de_first)
        candidates = [(en, de, edited)]
        if len(en_alts) == len(de_alts) > 1 and all(
            kind_of(en, de) == "sentence" for (en, _), (de, _) in zip(en_alts, de_alts)
        ):  # parallel sentence variants
            candidates = [(en, de, e1 or e2) for (en, e1), (de, e2) in zip(en_alts, de_alts)]
        pairs += [Pair(en, de, kind_of(en, de), ed) for en, de, ed in candidates if _keep(en, de)]
    return pairs


# ---------------------------------------------------------------------------- loading
def ding_path(path: str | Path | None = None) -> Path:
    """The dictionary file: the argument, else $TRANSFORMER_VIZ_DING, else DING_PATH."""
    return Path(path or os.environ.get(DING_ENV) or DING_PATH)


def load_ding(path: str | Path | None = None, kinds: Iterable[str] = KINDS) -> list[Pair]:
    """Read the whole Ding file into deduplicated pairs of the requested kinds, in file order."""
    path, kinds = ding_path(path), tuple(kinds)
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown pair kinds {sorted(unknown)}; choose from {KINDS}")
    if not path.is_file():
        raise FileNotFoundError(
            f"Ding dictionary not found at {path}. Install it with "
            f"`sudo apt-get install trans-de-en`, or point ${DING_ENV} at a copy of its de-en file."
        )
    seen: set[tuple[str, str]] = set()
    pairs: list[Pair] = []
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            for pair in parse_line(line):
                if pair.kind in kinds and (pair.src, pair.tgt) not in seen:
                    seen.add((pair.src, pair.tgt))
                    pairs.append(pair)
    counts = Counter(pair.kind for pair in pairs)
    per_kind = ", ".join(f"{kind} {counts[kind]}" for kind in kinds)
    logger.info("Ding %s: %s pairs (%s)", path, len(pairs), per_kind)
    return pairs
