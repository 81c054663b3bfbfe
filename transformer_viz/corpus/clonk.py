"""OpenClonk's group files (C4Group: ``.ocf`` ``.ocs`` ``.ocd`` ``.ocg``) and the texts inside them.

A group file is a gzip stream whose first two bytes are changed (``1e 8c`` for gzip's ``1f 8b``). Inside:
a header of 204 bytes, scrambled (every byte XORed with 237, then the first and third byte of each three
swapped), that names the group ("RedWolf Design GrpFolder") and counts its entries; the entries, 316
bytes each (a name of 260 bytes, then little-endian: packed, child group, size, unused, offset); then the
entries' data, each at its offset. A child group's data is a group again, header and all, uncompressed.

Each scenario, object and folder carries its texts per language: ``StringTblDE.txt`` / ``StringTblUS.txt``
(``Key=Text`` lines; ``#`` comments; ``|`` a line break on screen) and ``DescDE.txt`` / ``DescUS.txt`` (a
description). OpenClonk is written in German first: a German text whose English one is missing is kept as
German text without English.
"""

from __future__ import annotations

import gzip
import struct
from collections.abc import Iterator
from pathlib import Path

from .files import Unit, decode_text, matching_files
from .qt import FormatError
from .sources import Source

GROUP_MAGIC, GZIP_MAGIC = b"\x1e\x8c", b"\x1f\x8b"
GROUP_ID = b"RedWolf Design GrpFolder"
HEADER_SIZE, ENTRY_SIZE, NAME_SIZE = 204, 316, 260
ENTRY_COUNT = 36  # where the header's entry count lies: after the 28-byte id and two version numbers
GERMAN, ENGLISH = "DE", "US"  # OpenClonk's language codes in file names


def unscramble(header: bytes) -> bytes:
    """Undo the header's scrambling: swap bytes 0 and 2 of every three, then XOR each byte with 237."""
    swapped = bytearray(header)
    for i in range(0, len(swapped) - 2, 3):
        swapped[i], swapped[i + 2] = swapped[i + 2], swapped[i]
    return bytes(byte ^ 237 for byte in swapped)


def read_group(data: bytes, folder: str = "") -> dict[str, bytes]:
    """Every file of an (uncompressed) group and of the groups inside it, by its path ("Tutorial01.ocs/…")."""
    header = unscramble(data[:HEADER_SIZE])
    if not header.startswith(GROUP_ID):
        raise FormatError(f"{folder or 'group'}: not an OpenClonk group (no {GROUP_ID.decode()} header)")
    (count,) = struct.unpack_from("<l", header, ENTRY_COUNT)
    contents = HEADER_SIZE + count * ENTRY_SIZE  # where the entries' data begins
    files: dict[str, bytes] = {}
    for index in range(count):
        entry = data[HEADER_SIZE + index * ENTRY_SIZE : HEADER_SIZE + (index + 1) * ENTRY_SIZE]
        name = entry[:NAME_SIZE].split(b"\0", 1)[0].decode("latin-1")
        _, child, size, _, offset = struct.unpack_from("<5l", entry, NAME_SIZE)
        path = f"{folder}/{name}" if folder else name
        blob = data[contents + offset : contents + offset + size]
        files.update(read_group(blob, path) if child else {path: blob})
    return files


def open_group(data: bytes) -> dict[str, bytes]:
    """The files of a group file as it lies on disk (gzip with OpenClonk's own first two bytes)."""
    if not data.startswith(GROUP_MAGIC):
        raise FormatError("not an OpenClonk group file (no 1e 8c magic)")
    return read_group(gzip.decompress(GZIP_MAGIC + data[2:]))


def string_table(text: str) -> dict[str, str]:
    """A StringTbl file's texts by key; ``|`` (a line break on screen) becomes a line break."""
    table = {}
    for line in text.splitlines():
        key, equals, value = line.partition("=")
        if equals and not line.lstrip().startswith("#") and key.strip() and value.strip():
            table[key.strip()] = value.strip().replace("|", "\n")
    return table


def group_units(files: dict[str, bytes]) -> Iterator[Unit]:
    """The string tables paired by key and the descriptions paired whole; German texts without English as ("", de)."""
    for path in sorted(files):
        stem, _, suffix = path.rpartition(GERMAN)
        if suffix != ".txt" or not stem.endswith(("StringTbl", "Desc")):
            continue
        german = decode_text(files[path])
        english = decode_text(files.get(f"{stem}{ENGLISH}.txt", b""))
        if stem.endswith("Desc"):
            yield english.strip(), german.strip()
            continue
        english_table = string_table(english)
        for key, text in string_table(german).items():
            yield english_table.get(key, ""), text


def clonk_units(root: Path, source: Source) -> Iterator[Unit]:
    """The texts of every group file a source reads (extractor ``clonk``)."""
    for path in matching_files(root, source.members):
        yield from group_units(open_group(path.read_bytes()))
