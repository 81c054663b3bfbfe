"""Drascula's texts (``drascula.dat``, ScummVM's engine data) and the rules that undo their capitals.

The file is ``DRASCULA``, a version byte, thirteen tables of numbers (each a count of fixed-size records),
the number of languages (6: English, Spanish, German, French, Italian, Russian), then fifteen text tables
aligned by index: a count, then per language a length and a block (two padding bytes, then per text its
size, the text with its terminating NUL, and padding to four bytes).

Most lines are comedy dialogue in capitals, the German with its umlauts typed as lower-case digraphs inside
capitals (``VERSTaeNDNIS``); the rest is mixed case, with umlauts typed as ``ae oe ue`` too (``Tuer``). A
line is normalised only where every word's spelling is decided, and is otherwise dropped:

- German umlauts: a lower-case ``ae oe ue`` inside a word in capitals is an umlaut, always (``FueR`` → FÜR);
  ``ss`` may be ß (``FueSSEN``). In mixed case a word the lexicon knows as written stays (``Feuer``, ``neue``),
  and one it knows only with umlauts or ß gets them (``Tuer`` → ``Tür``, ``zweitgroesste`` → ``zweitgrößte``).
- Case, for a line in capitals: each word takes the one casing the lexicon has for it (``SOLDAT`` → Soldat,
  ``KLAPPT`` → klappt), capitalised at a sentence's start. German keeps a word with two casings only at a
  sentence's start (``ESSEN``: Essen or essen); English takes the lower-case one (``WILL``: will, not Will)
  and writes ``I`` (``I'M``) in capitals. A word the lexicon does not know is kept only when the other
  language's line has it too, as a name (``DRASCULA``, ``IGOR``).
- Characters of the game's own font other than letters and punctuation (``§`` is a space) make a line unsafe.

The lexicon is the word lists of the ``wngerman`` and ``wamerican`` packages and, for German, the words of
the Ding dictionary, whose nouns disambiguate what the word list lists in lower case only (``ruhe`` / Ruhe).
A German line whose English line is empty or cannot be normalised is kept as German text without English.
"""

from __future__ import annotations

import itertools
import logging
import re
import struct
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from .files import Unit, matching_files
from .qt import FormatError
from .sources import Source

logger = logging.getLogger(__name__)
MAGIC = b"DRASCULA"
RECORD_SIZES = (4, 4, 4, 2, 4, 2, 4, 2, 2, 20, 20, 10, 8)  # bytes per record of the tables before the texts
LANGUAGES = ("en", "es", "de", "fr", "it", "ru")
GERMAN_WORDS, ENGLISH_WORDS, DING = "usr/share/dict/ngerman", "usr/share/dict/american-english", "usr/share/trans/de-en"
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+(?:'[A-Za-z]+)*")
SENTENCE_END = re.compile(r"[.!?]")
UMLAUTS = {"ae": "ä", "oe": "ö", "ue": "ü", "Ae": "Ä", "Oe": "Ö", "Ue": "Ü"}
SHOUTED_UMLAUT = re.compile(r"(?<=[A-Z])(ae|oe|ue)|(ae|oe|ue)(?=[A-Z])")  # "FueR", "aeH": a digraph inside capitals
PRONOUN_I = re.compile(r"I(?:'[A-Z]+)?")  # I, I'M, I'LL, I'VE, I'D
SHOUTED_SHARE = 0.8  # a line whose letters are at least this share capitals is written in capitals
COMMON_CASING = 0.1  # a casing of a word in Ding counts when it makes this share of the word's uses


# ---------------------------------------------------------------------------- the file
def read_dat(data: bytes) -> dict[str, list[str]]:
    """Every text of every table, by language ("en", "de", …), aligned by index across languages."""
    if not data.startswith(MAGIC):
        raise FormatError("not Drascula's engine data (no DRASCULA magic)")
    pos = len(MAGIC) + 1  # after the version byte

    def number() -> int:
        nonlocal pos
        (value,) = struct.unpack_from(">H", data, pos)
        pos += 2
        return value

    for size in RECORD_SIZES:
        records = number()  # read before pos moves on: `pos += number() * size` would lose number()'s step
        pos += records * size
    texts: dict[str, list[str]] = {language: [] for language in LANGUAGES[: number()]}
    while pos < len(data):
        count = number()
        for language in texts:
            length = number()
            texts[language] += text_block(data[pos : pos + length], count)
            pos += length
    return texts


def text_block(block: bytes, count: int) -> list[str]:
    """The ``count`` texts of one language's block: after two bytes of padding, each text after its size."""
    texts, pos = [], 2
    for _ in range(count):
        (size,) = struct.unpack_from(">H", block, pos)
        texts.append(block[pos + 2 : pos + size].split(b"\0", 1)[0].decode("latin-1"))
        pos += size
    return texts


# ---------------------------------------------------------------------------- the lexicon
class Lexicon:
    """The spellings a language writes a word in (``ruhe``: {"ruhe", "Ruhe"}), looked up case-blind."""

    def __init__(self, words: Iterable[str] = ()):
        self.casings: dict[str, set[str]] = defaultdict(set)
        self.add(words)

    def add(self, words: Iterable[str]) -> None:
        for word in words:
            self.casings[word.casefold()].add(word)

    def __contains__(self, word: str) -> bool:
        return word in self.casings.get(word.casefold(), ())

    def spellings(self, word: str) -> set[str]:
        return self.casings.get(word.casefold(), set())


def ding_words(pairs) -> Iterator[str]:
    """The German words of Ding's pairs in their own case: a headword whole, a phrase or sentence but its first word."""
    for pair in pairs:
        words = WORD.findall(pair.tgt)
        yield from words if pair.kind == "word" else words[1:]


def common_casings(words: Iterable[str], share: float = COMMON_CASING) -> list[str]:
    """The casings that make at least ``share`` of a word's uses (``und``, not the ``Und`` of a quotation)."""
    counts = Counter(words)
    totals: Counter = Counter()
    for word, count in counts.items():
        totals[word.casefold()] += count
    return [word for word, count in counts.items() if count >= share * totals[word.casefold()]]


def lexicons(root: Path) -> tuple[Lexicon, Lexicon]:
    """(English, German) lexicons from the word lists and Ding extracted under ``root``."""
    from .ding import load_ding

    def word_list(path: str) -> list[str]:
        if not (root / path).is_file():
            raise FileNotFoundError(f"{path} missing: the drascula source reads it to restore case")
        return (root / path).read_text(encoding="utf-8").split()

    german = Lexicon(word_list(GERMAN_WORDS))
    german.add(common_casings(ding_words(load_ding(root / DING))))
    return Lexicon(word_list(ENGLISH_WORDS)), german


# ---------------------------------------------------------------------------- the rules
def shouted(text: str) -> bool:
    """Whether a line is written in capitals (the lower-case umlaut digraphs inside capitals counted as capitals)."""
    letters = [c for c in SHOUTED_UMLAUT.sub(lambda m: m.group().upper(), text) if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) >= SHOUTED_SHARE * len(letters)


def spellings(word: str, german: bool) -> set[str]:
    """The ways a German word may have been meant: each ``ae oe ue`` an umlaut or not, each ``ss`` ß or not."""
    if not german:
        return {word}
    parts = re.split(r"(ae|oe|ue|Ae|Oe|Ue|ss|SS)", word)
    choices = [
        (part, UMLAUTS.get(part, "ß" if part in ("ss", "SS") else part)) if i % 2 else (part,)
        for i, part in enumerate(parts)
    ]
    return {"".join(choice) for choice in itertools.product(*choices)}


def capitalised(word: str) -> str:
    return word[:1].upper() + word[1:]


def shouted_word(word: str, lexicon: Lexicon, german: bool, initial: bool, names: set[str]) -> str | None:
    """The casing of a word of a line in capitals, or None where the lexicon does not decide it."""
    if not german and PRONOUN_I.fullmatch(word):
        return word[0] + word[1:].lower()
    if german:
        word = SHOUTED_UMLAUT.sub(lambda m: UMLAUTS[m.group()], word)
    found = set().union(*(lexicon.spellings(s) for s in spellings(word, german)))
    words = {f for f in found if f[1:].islower() or len(f) == 1}  # not an acronym (DAS, UND) or GiB
    found = words or found  # in capitals an acronym and a word look alike: the word, unless only the acronym is
    if not german and any(f.islower() for f in found):
        found = {f for f in found if f.islower()}
    if initial:
        found = {capitalised(f) for f in found}
    if len(found) == 1:
        return found.pop()
    if not found and word.upper() in names:
        return capitalised(word.lower())
    return None


def mixed_word(word: str, lexicon: Lexicon, german: bool, initial: bool) -> str | None:
    """A word of a mixed-case line as written, with the umlauts or ß the lexicon says it lost; None if unsure."""
    if not german or not re.search(r"ae|oe|ue|ss", word, re.IGNORECASE) or word in lexicon:
        return word
    for spelling in sorted(spellings(word, german)):
        if spelling in lexicon or (initial and spelling[:1].lower() + spelling[1:] in lexicon):
            return spelling
    return None


def normalise(text: str, lexicon: Lexicon, german: bool, names: set[str] = frozenset()) -> str | None:
    """A line with its umlauts restored and, if it is in capitals, in sentence case; None where that is unsafe."""
    text = " ".join(text.replace("§", " ").split())
    if not text or not text.isascii():
        return None
    shout, out, pos, initial = shouted(text), [], 0, True
    for match in WORD.finditer(text):
        gap = text[pos : match.start()]
        initial = initial or bool(SENTENCE_END.search(gap))
        word = match.group()
        form = (
            shouted_word(word, lexicon, german, initial, names) if shout else mixed_word(word, lexicon, german, initial)
        )
        if form is None:
            return None
        out += [gap, form]
        pos, initial = match.end(), False
    return "".join(out) + text[pos:]


def drascula_units(root: Path, source: Source) -> Iterator[Unit]:
    """English and German lines of drascula.dat, normalised; German lines alone where English is unsafe."""
    english_lexicon, german_lexicon = lexicons(root)
    stats: Counter = Counter()
    for path in matching_files(root, tuple(m for m in source.members if m.endswith(".dat"))):
        texts = read_dat(path.read_bytes())
        for en_raw, de_raw in zip(texts["en"], texts["de"]):
            names = set(WORD.findall(en_raw.upper())) & set(WORD.findall(de_raw.upper()))
            german = normalise(de_raw, german_lexicon, True, names)
            english = normalise(en_raw, english_lexicon, False, names) if german else None
            stats["pair" if english else "german only" if german else "unsafe"] += 1
            if german:
                yield english or "", german
    logger.info("drascula: %s", dict(stats))
