"""Qt's two binary formats in Debian's packages: translation catalogues (.qm) and resource bundles (.rcc).

A ``.qm`` file is a magic number and tagged sections; its messages section holds, per message, tagged
fields: the translations (UTF-16), the source text, the context and the comment (UTF-8), each with its
length, and an end tag. lrelease keeps the source text unless it compresses the catalogue to hashes.
translate-toolkit's reader stops at the first message without a source text, and Qt writes such a
message itself (GCompris's German catalogue holds one among its 3,458), so the messages are read here.

An ``.rcc`` file is a header (magic ``qres``, version, offsets of the tree, the data and the names), a
tree of entries (a directory lists its children, a file points into the data), the names (UTF-16), and
the data, each file's bytes after their length; a compressed file (flag 1) is zlib's stream after the
uncompressed length, as qCompress writes it. GCompris keeps its word lists in one: a JSON object per
language (``content-en.json``, ``content-de.json``) from a sound file's name to the word it says.
"""

from __future__ import annotations

import json
import logging
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .files import Unit, matching_files
from .sources import Source

logger = logging.getLogger(__name__)
QM_MAGIC = struct.pack(">4L", 0x3CB86418, 0xCAEF9C95, 0xCD211CBF, 0x60A1BDDD)
QM_MESSAGES = 0x69  # the section of the messages; the others (hashes, contexts, plural rules) are lookups
TAG_END, TAG_TRANSLATION, TAG_HASH, TAG_SOURCE, TAG_CONTEXT, TAG_COMMENT = 1, 3, 5, 6, 7, 8
RCC_MAGIC = b"qres"
RCC_DIRECTORY, RCC_ZLIB, RCC_ZSTD = 2, 1, 4  # flags of a tree entry


class FormatError(ValueError):
    """A file that is not what its name says, or a variant of the format this reader does not know."""


# ---------------------------------------------------------------------------- .qm catalogues
@dataclass
class QtMessage:
    """One message of a .qm catalogue: a translation per plural form, the source text and where it is used."""

    translations: list[str] = field(default_factory=list)
    source: str | None = None  # None when the catalogue keeps only a hash of it
    context: str = ""
    comment: str = ""


def _utf8(data: bytes) -> str:
    """Source texts, contexts and comments are UTF-8 (Latin-1 in catalogues older than Qt 5)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def qm_sections(data: bytes) -> dict[int, bytes]:
    """The sections of a .qm file by their tag."""
    if not data.startswith(QM_MAGIC):
        raise FormatError("not a Qt .qm catalogue (no magic number)")
    sections, pos = {}, len(QM_MAGIC)
    while pos + 5 <= len(data):
        tag, length = struct.unpack_from(">BL", data, pos)
        sections[tag] = data[pos + 5 : pos + 5 + length]
        pos += 5 + length
    return sections


def read_qm(data: bytes) -> list[QtMessage]:
    """The messages of a .qm catalogue, in file order."""
    section = qm_sections(data).get(QM_MESSAGES, b"")
    messages, message, pos = [], QtMessage(), 0
    while pos < len(section):
        tag = section[pos]
        pos += 1
        if tag == TAG_END:
            messages.append(message)
            message = QtMessage()
        elif tag == TAG_HASH:
            pos += 4
        elif tag == TAG_TRANSLATION:
            (length,) = struct.unpack_from(">l", section, pos)
            pos += 4
            if length > 0:  # -1: no translation
                message.translations.append(section[pos : pos + length].decode("utf-16-be"))
                pos += length
        elif tag in (TAG_SOURCE, TAG_CONTEXT, TAG_COMMENT):
            (length,) = struct.unpack_from(">L", section, pos)
            text = _utf8(section[pos + 4 : pos + 4 + length])
            pos += 4 + length
            name = {TAG_SOURCE: "source", TAG_CONTEXT: "context", TAG_COMMENT: "comment"}[tag]
            setattr(message, name, text)
        else:  # a tag whose length is unknown: nothing after it can be read
            raise FormatError(f"unknown .qm message tag {tag:#x} at byte {pos - 1} of the messages")
    return messages


def qm_units(root: Path, source: Source) -> Iterator[Unit]:
    """Source text → translation of .qm catalogues; plural forms and messages without a source text skipped."""
    for path in matching_files(root, source.members):
        try:
            messages = read_qm(path.read_bytes())
        except FormatError as err:
            logger.warning("%s: %s; skipped", path.name, err)
            continue
        for message in messages:
            if message.source and len(message.translations) == 1 and message.translations[0] != message.source:
                yield message.source, message.translations[0]


# ---------------------------------------------------------------------------- .rcc resources
def read_rcc(data: bytes) -> dict[str, bytes]:
    """Every file of a Qt resource bundle by its path ("/gcompris/src/…/content-de.json"), decompressed."""
    if data[:4] != RCC_MAGIC:
        raise FormatError("not a Qt .rcc resource bundle (no 'qres' magic)")
    version, tree, start, names = struct.unpack_from(">4L", data, 4)
    entry_size = 14 if version == 1 else 22  # from version 2 on, each entry ends with its modification time
    files: dict[str, bytes] = {}

    def name_at(offset: int) -> str:
        (length,) = struct.unpack_from(">H", data, names + offset)
        return data[names + offset + 6 : names + offset + 6 + 2 * length].decode("utf-16-be")  # after length + hash

    def walk(index: int, folder: str) -> None:
        at = tree + index * entry_size
        name_offset, flags = struct.unpack_from(">LH", data, at)
        path = f"{folder}/{name_at(name_offset)}" if index else ""
        if flags & RCC_DIRECTORY:
            count, first = struct.unpack_from(">LL", data, at + 6)
            for child in range(first, first + count):
                walk(child, path)
            return
        (offset,) = struct.unpack_from(">L", data, at + 10)  # after country and language
        (size,) = struct.unpack_from(">L", data, start + offset)
        blob = data[start + offset + 4 : start + offset + 4 + size]
        if flags & RCC_ZSTD:
            raise FormatError(f"{path} is compressed with zstd, which this reader does not decompress")
        files[path] = zlib.decompress(blob[4:]) if flags & RCC_ZLIB else blob

    walk(0, "")
    return files


def rcc_json_units(root: Path, source: Source) -> Iterator[Unit]:
    """Words of JSON objects inside .rcc bundles, paired by key: ``…pair[0]`` (English) with ``…pair[1]`` (German)."""
    english_suffix, german_suffix = source.pair
    for path in matching_files(root, source.members):
        resources = read_rcc(path.read_bytes())
        for name in sorted(n for n in resources if n.endswith(english_suffix)):
            german_name = name.removesuffix(english_suffix) + german_suffix
            if german_name not in resources:
                continue
            english, german = json.loads(resources[name]), json.loads(resources[german_name])
            for key, word in english.items():
                if isinstance(word, str) and isinstance(german.get(key), str) and german[key]:
                    yield word, german[key]
