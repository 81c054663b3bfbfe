"""Fetching Debian packages with apt and extracting only the members a corpus source reads.

``apt-get download`` fetches ``.deb`` files into a cache folder without installing anything (it
runs as an ordinary user too); a folder of ``.deb`` files fetched elsewhere can stand in for it
(``--from-dir``). Members are streamed out of ``dpkg-deb --fsys-tarfile`` with ``tarfile``, so
a package is never unpacked whole. apt's package-description translations are fetched by
``apt-get update`` itself into a private lists folder (``Acquire::Languages``), leaving the
system's own lists alone.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

logger = logging.getLogger(__name__)
APT_LISTS = "apt-lists"  # sub-folder of the cache holding apt's Translation-en / Translation-de


class FetchError(RuntimeError):
    """A package or list could not be fetched; the message names what and how to fix it."""


def need_tool(tool: str, packages: list[str]) -> str:
    """The path of an apt/dpkg tool, or a FetchError naming the packages and --from-dir."""
    path = shutil.which(tool)
    if path is None:
        wanted = " ".join(packages) or "(apt's Translation-en and Translation-de lists)"
        raise FetchError(
            f"{tool} not found: corpus build fetches Debian packages with apt. On a Debian or Ubuntu "
            f"machine run it there, or fetch these packages elsewhere (apt-get download {wanted}) "
            "and pass their folder with --from-dir"
        )
    return path


def cached_deb(package: str, folders: list[Path]) -> Path | None:
    """The newest ``<package>_<version>_<arch>.deb`` in the first folder that has one."""
    for folder in folders:
        found = sorted(folder.glob(f"{package}_*.deb")) if folder.is_dir() else []
        if found:
            return found[-1]
    return None


def fetch_debs(packages: list[str], cache: Path, from_dir: Path | None = None) -> dict[str, Path]:
    """Each package's .deb: from ``from_dir``, else the cache, else ``apt-get download`` into the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    folders = [from_dir, cache] if from_dir else [cache]
    debs = {p: deb for p in packages if (deb := cached_deb(p, folders))}
    missing = [p for p in packages if p not in debs]
    if missing:
        apt_get = need_tool("apt-get", missing)
        for package in missing:
            run = subprocess.run([apt_get, "download", package], cwd=cache, capture_output=True, text=True)
            deb = cached_deb(package, [cache])
            if run.returncode or deb is None:
                error = (run.stderr.strip().splitlines() or ["no .deb written"])[-1]
                raise FetchError(
                    f"apt-get download {package} failed ({error}); run `apt-get update`, "
                    "or put the .deb in the --from-dir folder"
                )
            debs[package] = deb
    return debs


def deb_version(deb: Path) -> str:
    """The Version field of a .deb (dpkg-deb --field)."""
    dpkg_deb = need_tool("dpkg-deb", [deb.name])
    run = subprocess.run([dpkg_deb, "--field", str(deb), "Version"], capture_output=True, text=True)
    if run.returncode:
        raise FetchError(f"dpkg-deb could not read {deb} ({run.stderr.strip()}); delete it to fetch it again")
    return run.stdout.strip()


def extract_members(deb: Path, globs: tuple[str, ...], dest: Path) -> list[Path]:
    """Extract the regular files of a .deb whose path matches a glob into ``dest``; return their paths."""
    dpkg_deb = need_tool("dpkg-deb", [deb.name])
    written, broken = [], None
    with subprocess.Popen([dpkg_deb, "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        try:
            with tarfile.open(fileobj=proc.stdout, mode="r|*") as tar:
                for member in tar:
                    name = member.name.removeprefix("./")
                    if member.isfile() and any(fnmatch.fnmatch(name, glob) for glob in globs):
                        member.name = name
                        tar.extract(member, dest, filter="data")
                        written.append(dest / name)
        except tarfile.TarError as err:
            broken = err
        proc.stdout.read()  # drain, so dpkg-deb is not killed by a broken pipe
    if proc.returncode or broken:
        why = f"exit {proc.returncode}" if proc.returncode else str(broken)
        raise FetchError(f"dpkg-deb could not read {deb} ({why}); delete it to fetch it again")
    return written


def fetch_apt_translations(cache: Path, languages: str = "en,de") -> Path:
    """apt's Translation-<language> lists, fetched by ``apt-get update`` into ``cache/apt-lists``."""
    cache = cache.resolve()  # apt reads a relative Dir:: path as relative to its parent Dir::
    lists = cache / APT_LISTS
    if list(lists.glob("*_i18n_Translation-de")):
        return lists
    apt_get = need_tool("apt-get", [])
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    (cache / "apt-cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    options = {
        "Dir::State::Lists": lists,
        "Dir::Cache": cache / "apt-cache",
        "Acquire::Languages": languages,
        "Acquire::GzipIndexes": "false",  # plain text, readable without apt's decompressors
        "Debug::NoLocking": "true",  # a private lists folder needs no system lock (and no root)
    }
    command = [apt_get, "update", "-q"] + [arg for k, v in options.items() for arg in ("-o", f"{k}={v}")]
    run = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"})
    if not list(lists.glob("*_i18n_Translation-de")):
        error = (run.stderr.strip().splitlines() or ["no Translation-de list written"])[-1]
        raise FetchError(f"apt-get update found no German descriptions ({error})")
    return lists


def copy_matching(folder: Path, globs: tuple[str, ...], dest: Path) -> list[Path]:
    """Copy the files of ``folder`` whose names match a glob into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and any(fnmatch.fnmatch(path.name, glob) for glob in globs):
            copied.append(Path(shutil.copy2(path, dest / path.name)))
    return copied
