"""The corpus sources: which Debian packages to fetch, which files inside them to read, and how.

Each source is one ``Source``: its packages (fetched with ``apt-get download``), the globs of
the members to extract, the extractor that reads them (extract.py), the licence and the
attribution line printed in ``ATTRIBUTION.md``. German translations of free software are made
by volunteer teams; the attribution names the project whose translators wrote them.
"""

from __future__ import annotations

from dataclasses import dataclass

LOCALE_DE = "usr/share/locale/de/LC_MESSAGES/"
WESNOTH_CAMPAIGNS = ("did", "dm", "dw", "ei", "httt", "l", "low", "nr", "sof", "sota", "sotbe", "thot", "trow", "tsg")
WESNOTH_CAMPAIGNS += ("ttb", "utbs")


@dataclass(frozen=True)
class Source:
    """One corpus source: Debian packages, the members to read, the extractor, licence, credit."""

    name: str  # file name of its TSV, and the name of --sources
    packages: tuple[str, ...]  # Debian binary packages; empty for apt's own description lists
    members: tuple[str, ...]  # fnmatch globs of the package members to extract ("*" crosses "/")
    extractor: str  # a key of extract.EXTRACTORS
    licence: str  # SPDX identifier of the translations' licence
    attribution: str  # one line crediting the authors and translators
    pair: tuple[str, str] = ("", "")  # a German file's path is the English one's with pair[0] → pair[1]
    default: bool = True  # built without --sources; leaving out the optional ones keeps the download under 1.5 GB


SOURCES = (
    Source(
        "wesnoth",
        ("wesnoth-1.16-data", *(f"wesnoth-1.16-{c}" for c in WESNOTH_CAMPAIGNS)),
        ("usr/share/games/wesnoth/1.16/locale/de/LC_MESSAGES/*.mo",),
        "gettext",
        "GPL-2.0-or-later",
        "The Battle for Wesnoth, its campaigns and the Wesnoth German translation team",
    ),
    Source(
        "cataclysm",
        ("cataclysm-dda-data",),
        (LOCALE_DE + "cataclysm-dda.mo",),
        "gettext",
        "CC-BY-SA-3.0",
        "Cataclysm: Dark Days Ahead, its contributors and German translators",
    ),
    Source(
        "freedroidrpg",
        ("freedroidrpg-data",),
        (LOCALE_DE + "freedroidrpg*.mo",),
        "gettext",
        "GPL-2.0-or-later",
        "FreedroidRPG, its dialogue writers and German translators",
    ),
    Source(
        "freeciv",
        ("freeciv-data",),
        (LOCALE_DE + "freeciv-core.mo", LOCALE_DE + "freeciv-nations.mo"),
        "gettext",
        "GPL-2.0-or-later",
        "Freeciv, the Freeciv project and its German translators",
    ),
    Source(
        "warzone2100",
        ("warzone2100-data",),
        (LOCALE_DE + "warzone2100.mo",),
        "gettext",
        "GPL-2.0-or-later",
        "Warzone 2100, the Warzone 2100 Project and its German translators",
        default=False,  # few pairs for its size
    ),
    Source(
        "supertux",
        ("supertux-data",),
        ("usr/share/games/supertux2/*de.po",),
        "gettext",
        "GPL-3.0-or-later",
        "SuperTux, the SuperTux Devel Team and its German translators",
        default=False,  # few pairs for its size
    ),
    Source(
        "flare",
        ("flare-game",),
        ("usr/share/games/flare/mods/*/languages/*.de.po",),
        "gettext",
        "CC-BY-SA-3.0",
        "Flare: Empyrean Campaign, Clint Bellanger and others, and its German translators",
        default=False,  # few pairs for its size
    ),
    Source(
        "naev",
        ("naev-data",),
        ("usr/share/naev/dat/gettext/de/LC_MESSAGES/naev.mo",),
        "gettext",
        "GPL-3.0-or-later",
        "Naev, the Naev development team and its German translators",
    ),
    Source(
        "widelands",
        ("widelands-data",),
        ("usr/share/games/widelands/data/locale/de/LC_MESSAGES/*.mo",),
        "gettext",
        "GPL-2.0-or-later",
        "Widelands, the Widelands development team and its German translators",
    ),
    Source(
        "tuxpaint",
        ("tuxpaint-data",),
        (LOCALE_DE + "tuxpaint.mo",),
        "gettext",
        "GPL-2.0-or-later",
        "Tux Paint, Bill Kendrick and others, and its German translators",
    ),
    Source(
        "libreoffice-help",
        ("libreoffice-help-en-us", "libreoffice-help-de"),
        ("usr/share/libreoffice/help/en-US/text/*.html", "usr/share/libreoffice/help/de/text/*.html"),
        "help_html",
        "MPL-2.0",
        "LibreOffice Help, The Document Foundation, and the LibreOffice German localisation team",
        pair=("help/en-US/", "help/de/"),
    ),
    Source(
        "gimp-help",
        ("gimp-help-en", "gimp-help-de"),
        ("usr/share/gimp/2.0/help/en/*.html", "usr/share/gimp/2.0/help/de/*.html"),
        "parallel_pages",
        "GFDL-1.2",
        "GNU Image Manipulation Program User Manual, the GIMP Documentation Team and its German translators",
        pair=("help/en/", "help/de/"),
    ),
    Source(
        "gnome-help",
        ("gnome-user-docs",),
        ("usr/share/help/C/*.page", "usr/share/help/de/*.page"),
        "parallel_pages",
        "CC-BY-SA-3.0",
        "GNOME Help, the GNOME Documentation Project and the GNOME German translation team",
        pair=("help/C/", "help/de/"),
    ),
    Source(
        "debian-reference",
        ("debian-reference-en", "debian-reference-de"),
        ("usr/share/debian-reference/*.html",),
        "parallel_pages",
        "GPL-2.0-or-later",
        "Debian Reference, Osamu Aoki, and its German translators",
        pair=(".en.html", ".de.html"),
    ),
    Source(
        "installation-guide",
        ("installation-guide-amd64",),
        ("usr/share/doc/installation-guide-amd64/en/*.html", "usr/share/doc/installation-guide-amd64/de/*.html"),
        "parallel_pages",
        "GPL-2.0-or-later",
        "Debian GNU/Linux Installation Guide, the Debian Installer team, and its German translators",
        pair=("/en/", "/de/"),
    ),
    Source(
        "libreoffice-ui",
        ("libreoffice-l10n-de",),
        ("usr/lib/libreoffice/program/resource/de/LC_MESSAGES/*.mo",),
        "gettext",
        "MPL-2.0",
        "LibreOffice, The Document Foundation, and the LibreOffice German localisation team",
    ),
    Source(
        "debian-descriptions",
        (),
        ("*_i18n_Translation-en", "*_i18n_Translation-de"),
        "apt_descriptions",
        "various (each package's own licence)",
        "Debian package descriptions and the Debian Description Translation Project (DDTP) German team",
    ),
)
SOURCE_NAMES = tuple(source.name for source in SOURCES)


def select_sources(names: str | None = None) -> list[Source]:
    """The sources named in a comma-separated list ("all" for every one; the default ones when None)."""
    if not names:
        return [source for source in SOURCES if source.default]
    if names == "all":
        return list(SOURCES)
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(SOURCE_NAMES))
    if unknown:
        raise ValueError(f"unknown corpus sources {unknown}; choose from {', '.join(SOURCE_NAMES)}")
    return [source for source in SOURCES if source.name in wanted]
