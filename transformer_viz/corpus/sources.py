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
    default: bool = True  # built without --sources; the optional ones give few pairs for their download


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
    # ------------------------------------------------ everyday register: dialogue, children's software, riddles
    Source(
        "freedink",
        ("freedink-data",),
        ("usr/share/games/dink/dink/l10n/de.po",),
        "gettext",
        "GPL-3.0-or-later",
        "Dink Smallwood (FreeDink data), Seth A. Robinson, the FreeDink project and its German translators",
    ),
    Source(
        "gcompris",
        ("gcompris-qt-data",),
        ("usr/share/gcompris-qt/translations/gcompris_de.qm",),
        "qm",
        "GPL-3.0-or-later",
        "GCompris, the KDE GCompris team and the KDE German translation team",
    ),
    Source(
        "gcompris-words",
        ("gcompris-qt-data",),
        ("usr/share/gcompris-qt/rcc/lang.rcc",),
        "rcc_json",
        "GPL-3.0-or-later",
        "GCompris's vocabulary activity, the KDE GCompris team and its German translators",
        pair=("content-en.json", "content-de.json"),
    ),
    Source(
        "openclonk",
        ("openclonk-data",),
        ("usr/share/games/openclonk/*.oc?",),
        "clonk",
        "ISC AND CC-BY-3.0 AND CC0-1.0",
        "OpenClonk, RedWolf Design and the OpenClonk Team and contributors",
        default=False,  # 112 MB of packed game data for about 3,000 texts, a third of them the editor's
    ),
    Source(
        "drascula",
        ("drascula", "wngerman", "wamerican", "trans-de-en"),  # the word lists and Ding restore case (drascula.py)
        ("usr/share/scummvm/drascula/*/drascula.dat", "usr/share/dict/ngerman", "usr/share/dict/american-english")
        + ("usr/share/trans/de-en",),
        "drascula",
        "LicenseRef-Drascula (freeware, free redistribution)",
        "Drascula: The Vampire Strikes Back, Alcachofa Soft S.L., and its German translators",
    ),
    Source(
        "tuxpaint-stamps",
        ("tuxpaint-stamps-default", "tuxpaint-data"),
        ("usr/share/tuxpaint/stamps/*.txt", "usr/share/tuxpaint/starters/*.txt", "usr/share/tuxpaint/templates/*.txt"),
        "stamps",
        "GPL-2.0-only",
        "Tux Paint's stamps and starters, Bill Kendrick and others, and their German translators",
        default=False,  # 161 MB of pictures for about 800 captions
    ),
    Source(
        "gbrainy",
        ("gbrainy",),
        (LOCALE_DE + "gbrainy.mo",),
        "gettext",
        "GPL-2.0-or-later",
        "gbrainy, Jordi Mas i Hernàndez and others, and its German translators",
    ),
    Source(
        "pysiogame",
        ("pysiogame",),
        (
            "usr/share/games/pysiogame/locale/de/LC_MESSAGES/eduactiv8.mo",
            "usr/share/games/pysiogame/i18n/custom/*de.po",
        ),
        "gettext",
        "GPL-3.0-or-later",
        "pySioGame (eduActiv8), Ireneusz Imiolek, and its German translators",
    ),
    # ------------------------------------------------ German text without English, for back-translation
    Source(
        "fortunes-de",
        ("fortunes-de",),
        ("usr/share/games/fortunes/de/*",),  # the cookie files (each *.u8 is a link to one, and not extracted)
        "fortunes",
        "GPL-2.0-or-later",
        "fortunes-de, Andreas Tille and the authors it quotes",
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
