"""What every extractor needs: the unit it yields, the members it reads, and the corpus-only libraries it imports."""

from __future__ import annotations

import fnmatch
import importlib
from pathlib import Path

Unit = tuple[str, str]  # (English, German); an empty English side marks German text that has no English
REQUIREMENTS_HINT = "pip install -r requirements-corpus.txt"


def require(module: str):
    """Import a corpus-only library, or say which requirements file installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ModuleNotFoundError(f"corpus build needs {module.split('.')[0]}: {REQUIREMENTS_HINT}") from err


def matching_files(root: Path, globs: tuple[str, ...]) -> list[Path]:
    """The files under ``root`` whose relative path matches one of the globs, sorted."""
    files = (path for path in root.rglob("*") if path.is_file())
    return sorted(p for p in files if any(fnmatch.fnmatch(p.relative_to(root).as_posix(), g) for g in globs))


def decode_text(data: bytes) -> str:
    """A text file's bytes as UTF-8 (a byte-order mark dropped), or Latin-1 where they are not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
