"""The everyday test set: learner phrases of the PyPI package ``auf-deutsch`` (MIT), held out.

The wheel is fetched pinned (``pip download auf-deutsch==0.1.1 --no-deps``), its SHA-256
checked, and read with ``zipfile``: its ``content/**/*.json`` files hold phrase packs,
dialogues, listening exercises, grammar examples and short stories, each text as an object
with a German ``de`` and an English ``en`` field. Word lists (vocabulary spotlights, verb
tables) are left out; story paragraphs are split into sentences where both sides agree;
notes in parentheses on the English side ("Hi! (even more casual)") are removed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .clean import align_parts
from .ding import APOSTROPHES, Pair, kind_of

logger = logging.getLogger(__name__)
PACKAGE, VERSION = "auf-deutsch", "0.1.1"
WHEEL = "auf_deutsch-0.1.1-py3-none-any.whl"
SHA256 = "40cce489e545180041c4aed11315f95bb229cf456af2c0c5ef294938f452382b"
SOURCE_NAME = "auf-deutsch"
ATTRIBUTION = "auf-deutsch 0.1.1 (MIT), everyday German learner phrases, https://pypi.org/project/auf-deutsch/"
_WORD_LISTS = {"vocab_spotlight", "important_verbs"}
_NOTE = re.compile(r"\s*\([^()]*\)\s*$")


def fetch_wheel(cache: Path) -> Path:
    """The pinned auf-deutsch wheel in ``cache``, downloaded with pip if absent; its hash checked."""
    wheel = Path(cache) / WHEEL
    if not wheel.is_file():
        Path(cache).mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", f"{PACKAGE}=={VERSION}", "--no-deps"]
        run = subprocess.run([*command, "--only-binary=:all:", "-d", str(cache)], capture_output=True, text=True)
        if run.returncode or not wheel.is_file():
            raise FileNotFoundError(
                f"could not download {PACKAGE}=={VERSION} ({run.stderr.strip()[-200:]}); "
                f"run `pip download {PACKAGE}=={VERSION} --no-deps -d {cache}` where PyPI is reachable"
            )
    return check_wheel(wheel)


def check_wheel(wheel: Path) -> Path:
    """The wheel, if its SHA-256 is the pinned one."""
    digest = hashlib.sha256(Path(wheel).read_bytes()).hexdigest()
    if digest != SHA256:
        raise ValueError(f"{wheel} has SHA-256 {digest}, expected {SHA256}; delete it to download it again")
    return Path(wheel)


def _texts(node, key: str = "") -> Iterator[tuple[str, str]]:
    """Every (en, de) object of a content file, word lists excluded."""
    if isinstance(node, dict):
        if isinstance(node.get("en"), str) and isinstance(node.get("de"), str) and key not in _WORD_LISTS:
            yield node["en"], node["de"]
        for child_key, child in node.items():
            yield from _texts(child, child_key)
    elif isinstance(node, list):
        for child in node:
            yield from _texts(child, key)


def read_wheel(wheel: Path) -> list[Pair]:
    """The deduplicated sentence and phrase pairs of an auf-deutsch wheel, in file order."""
    pairs, seen = [], set()
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(n for n in archive.namelist() if "/content/" in n and n.endswith(".json"))
        for name in names:
            for en_text, de_text in _texts(json.loads(archive.read(name))):
                for en, de in align_parts(en_text, de_text):
                    en = _NOTE.sub("", en).translate(APOSTROPHES).strip()
                    de = de.translate(APOSTROPHES).strip()
                    if en and de and (en, de) not in seen:
                        seen.add((en, de))
                        pairs.append(Pair(en, de, kind_of(en, de), source=SOURCE_NAME))
    logger.info("%s: %s everyday pairs", wheel.name, len(pairs))
    return pairs


def load_everyday(cache: Path) -> list[Pair]:
    """The everyday test pairs (fetching the pinned wheel into ``cache`` when needed)."""
    return read_wheel(fetch_wheel(cache))
