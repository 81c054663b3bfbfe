"""Extractors: read translation files into raw (English, German) units.

Every extractor takes the folder the package members were extracted into and the ``Source``,
and yields units as the translators wrote them; clean.py does the cleaning. A unit whose English
side is empty is German text without English, for back-translation. Formats are read with the
libraries made for them (polib, translate-toolkit, lxml), imported inside the extractors because
only ``corpus build`` needs them; the binary formats no library reads have their own modules:
Qt's catalogues and resources (qt.py), OpenClonk's group files (clonk.py), Drascula's tables
(drascula.py). ``EXTRACTORS`` names them all for ``Source.extractor``.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from .clonk import clonk_units
from .drascula import drascula_units
from .files import REQUIREMENTS_HINT, Unit, decode_text, matching_files, require
from .qt import qm_units, rcc_json_units
from .sources import Source

__all__ = ["EXTRACTORS", "REQUIREMENTS_HINT", "Unit", "matching_files", "require"]
logger = logging.getLogger(__name__)
_CONTEXT_PREFIX = re.compile(r"^(?:[\w-]+\^|\?[^:\s][^:]*:)")  # contexts: Wesnoth "female^Hi", Freeciv "?unit:Hi"
_HELP_IDS = "//*[self::p or self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6][@id]"
_BLOCK_NAMES = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "title")
_BLOCKS = "//*[" + " or ".join(f"local-name()='{name}'" for name in _BLOCK_NAMES) + "]"
_BULLET = re.compile(r"^\s*(?:[*+-]|o|\d+[.)])\s+")
STAMP_GERMAN = "de.utf8="  # a Tux Paint caption file: the English caption, then one "<locale>.utf8=" line per language
FORTUNE_END = re.compile(r"^%\s*$", re.MULTILINE)  # fortune(6)'s separator line
ATTRIBUTION_LINE = re.compile(r"^\s*(?:--|—|~~)")  # "-- Sprichwort": whom a fortune quotes, not its text


# ---------------------------------------------------------------------------- gettext
def gettext_units(root: Path, source: Source) -> Iterator[Unit]:
    """msgid → msgstr of .mo/.po files; fuzzy, obsolete, plural and untranslated entries skipped."""
    polib = require("polib")
    for path in matching_files(root, source.members):
        catalog = polib.mofile(str(path)) if path.suffix == ".mo" else polib.pofile(str(path))
        for entry in catalog:
            if entry.obsolete or "fuzzy" in entry.flags or entry.msgid_plural or not entry.msgstr:
                continue
            english = _CONTEXT_PREFIX.sub("", entry.msgid)
            german = _CONTEXT_PREFIX.sub("", entry.msgstr)
            if english != german:
                yield english, german


# ---------------------------------------------------------------------------- Java and paired files
def paired_files(root: Path, source: Source) -> Iterator[tuple[Path, Path]]:
    """(English, German) files: the German path is the English one with ``pair[0]`` replaced by ``pair[1]``."""
    english, german = source.pair
    for en_path in matching_files(root, source.members):
        relative = en_path.relative_to(root).as_posix()
        de_path = root / relative.replace(english, german, 1)
        if english in relative and de_path.is_file():
            yield en_path, de_path


def properties_units(root: Path, source: Source) -> Iterator[Unit]:
    """Java .properties values paired by key between the English and the German file."""
    properties = require("translate.storage.properties")
    for en_path, de_path in paired_files(root, source):
        english = {u.name: u.source for u in properties.propfile(io.BytesIO(en_path.read_bytes())).units if u.name}
        for unit in properties.propfile(io.BytesIO(de_path.read_bytes())).units:
            if unit.name in english and unit.source:
                yield english[unit.name], unit.source


# ---------------------------------------------------------------------------- help pages
def help_paragraphs(path: Path) -> dict[str, str]:
    """The text of each paragraph and heading of a help page, by its id (lxml)."""
    html = require("lxml.html")
    tree = html.parse(str(path), parser=html.HTMLParser(encoding="utf-8"))
    paragraphs = {}
    for element in tree.xpath(_HELP_IDS):
        if element.xpath(".//*[@hidden]"):  # platform switches (Ctrl/Cmd): the text depends on the reader
            continue
        paragraphs[element.get("id")] = " ".join(element.text_content().split())
    return paragraphs


def help_html_units(root: Path, source: Source) -> Iterator[Unit]:
    """Help pages of two languages, paragraphs paired by page path and paragraph id."""
    for en_path, de_path in paired_files(root, source):
        german = help_paragraphs(de_path)
        for key, english in help_paragraphs(en_path).items():
            if german.get(key):
                yield english, german[key]


def page_blocks(path: Path) -> list[str]:
    """The text of the paragraphs, headings, terms and titles of an HTML or Mallard page, in order."""
    if path.suffix == ".page":
        etree = require("lxml.etree")
        tree = etree.parse(str(path))
    else:
        html = require("lxml.html")
        tree = html.parse(str(path), parser=html.HTMLParser(encoding="utf-8"))
    return [" ".join(element.xpath("string()").split()) for element in tree.xpath(_BLOCKS)]


def parallel_pages_units(root: Path, source: Source) -> Iterator[Unit]:
    """Pages translated element for element (DocBook, Mallard): blocks paired in order where the counts agree."""
    for en_path, de_path in paired_files(root, source):
        english, german = page_blocks(en_path), page_blocks(de_path)
        if len(english) == len(german):
            yield from ((en, de) for en, de in zip(english, german) if en and de)
        else:
            logger.debug("%s: %s blocks in English, %s in German; skipped", en_path.name, len(english), len(german))


# ---------------------------------------------------------------------------- apt descriptions
def stanzas(path: Path) -> Iterator[dict[str, str]]:
    """The stanzas of a Debian control-style file (RFC 822 fields, continuation lines kept)."""
    fields: dict[str, str] = {}
    key = ""
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if not line.strip():
                if fields:
                    yield fields
                fields = {}
            elif line[0] in " \t" and key:
                fields[key] += "\n" + line
            else:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
    if fields:
        yield fields


def description_blocks(text: str) -> list[str]:
    """A package description as blocks: the synopsis, then each paragraph or list item."""
    synopsis, *body = text.split("\n")
    blocks, current = [synopsis.strip()], []
    for line in body:
        line = line[1:] if line.startswith(" ") else line
        if line.strip() == "." or _BULLET.match(line):
            blocks.append(" ".join(current))
            current = []
        if line.strip() != ".":
            current.append(_BULLET.sub("", line).strip())
    blocks.append(" ".join(current))
    return [block for block in blocks if block]


def descriptions(path: Path, language: str) -> dict[str, str]:
    """Description-<language> text by Description-md5, from an apt Translation-<language> file."""
    return {s["Description-md5"]: s[f"Description-{language}"] for s in stanzas(path) if f"Description-{language}" in s}


def apt_descriptions_units(root: Path, source: Source) -> Iterator[Unit]:
    """English and German package descriptions of the same checksum, block by block."""
    english: dict[str, str] = {}
    german: dict[str, str] = {}
    for path in matching_files(root, source.members):
        language = path.name.rsplit("-", 1)[1]
        (english if language == "en" else german).update(descriptions(path, language))
    for checksum, de_text in german.items():
        if checksum not in english:
            continue
        en_blocks, de_blocks = description_blocks(english[checksum]), description_blocks(de_text)
        if len(en_blocks) == len(de_blocks):
            yield from zip(en_blocks, de_blocks)


# ---------------------------------------------------------------------------- children's software, fortunes
def stamp_units(root: Path, source: Source) -> Iterator[Unit]:
    """Tux Paint's captions: a caption file's first line (English) and its ``de.utf8=`` line."""
    for path in matching_files(root, source.members):
        english, *translations = decode_text(path.read_bytes()).splitlines() or [""]
        for line in translations:
            if line.startswith(STAMP_GERMAN):
                yield english.strip(), line.removeprefix(STAMP_GERMAN).strip()


def fortune_units(root: Path, source: Source) -> Iterator[Unit]:
    """German text without English: each fortune(6) cookie, its wrapped lines joined, whom it quotes left out."""
    for path in matching_files(root, source.members):
        for cookie in FORTUNE_END.split(decode_text(path.read_bytes())):
            lines = [line.strip() for line in cookie.splitlines() if not ATTRIBUTION_LINE.match(line)]
            if any(lines):
                yield "", " ".join(line for line in lines if line)


EXTRACTORS: dict[str, Callable[[Path, Source], Iterator[Unit]]] = {
    "gettext": gettext_units,
    "qm": qm_units,
    "rcc_json": rcc_json_units,
    "clonk": clonk_units,
    "drascula": drascula_units,
    "stamps": stamp_units,
    "fortunes": fortune_units,
    "properties": properties_units,
    "help_html": help_html_units,
    "parallel_pages": parallel_pages_units,
    "apt_descriptions": apt_descriptions_units,
}
