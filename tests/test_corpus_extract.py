"""Each extractor of corpus/extract.py on tiny files the tests write themselves."""

import struct

import polib
import pytest

from transformer_viz.corpus.extract import (
    apt_descriptions_units,
    description_blocks,
    gettext_units,
    help_html_units,
    parallel_pages_units,
    properties_units,
    qm_units,
)
from transformer_viz.corpus.sources import Source


def source(members, extractor, pair=("", "")):
    return Source("test", (), tuple(members), extractor, "MIT", "the tests", pair=pair)


def write_catalog(path, entries):
    catalog = polib.POFile()
    catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    for entry in entries:
        catalog.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    catalog.save_as_mofile(str(path)) if path.suffix == ".mo" else catalog.save(str(path))


def test_gettext_reads_mo_and_skips_plural_untranslated_and_contexts(tmp_path):
    write_catalog(
        tmp_path / "locale/de/game.mo",
        [
            polib.POEntry(msgid="The door is open.", msgstr="Die Tür ist offen."),
            polib.POEntry(msgid="female^Welcome!", msgstr="female^Willkommen!"),
            polib.POEntry(msgid="?unit:Go home.", msgstr="Geh nach Hause."),
            polib.POEntry(msgid="OK", msgstr="OK"),
            polib.POEntry(msgid="Untranslated", msgstr=""),
            polib.POEntry(msgid="one apple", msgid_plural="%d apples", msgstr_plural={0: "ein Apfel", 1: "%d Äpfel"}),
        ],
    )
    units = list(gettext_units(tmp_path, source(["locale/de/*.mo"], "gettext")))
    assert sorted(units) == [
        ("Go home.", "Geh nach Hause."),
        ("The door is open.", "Die Tür ist offen."),
        ("Welcome!", "Willkommen!"),
    ]


def test_gettext_po_skips_fuzzy_and_obsolete(tmp_path):
    write_catalog(
        tmp_path / "levels/de.po",
        [
            polib.POEntry(msgid="Jump!", msgstr="Spring!"),
            polib.POEntry(msgid="Run!", msgstr="Renn!", flags=["fuzzy"]),
            polib.POEntry(msgid="Swim!", msgstr="Schwimm!", obsolete=True),
        ],
    )
    write_catalog(tmp_path / "levels/fr.po", [polib.POEntry(msgid="Jump!", msgstr="Saute !")])
    assert list(gettext_units(tmp_path, source(["levels/*de.po"], "gettext"))) == [("Jump!", "Spring!")]


def qm_bytes(messages):
    """A .qm file (Qt's binary catalogue) with a messages section holding source and translation."""
    body = b""
    for src, tgt in messages:
        target = tgt.encode("utf-16-be")
        source_text = src.encode("utf-8")
        body += b"\x03" + struct.pack(">l", len(target)) + target
        body += b"\x06" + struct.pack(">L", len(source_text)) + source_text + b"\x01"
    magic = struct.pack(">4L", 0x3CB86418, 0xCAEF9C95, 0xCD211CBF, 0x60A1BDDD)
    return magic + b"\x69" + struct.pack(">L", len(body)) + body


def test_qm_reads_source_and_translation(tmp_path):
    (tmp_path / "tr").mkdir()
    (tmp_path / "tr/app_de.qm").write_bytes(qm_bytes([("Café is open.", "Das Café ist offen."), ("Quit", "Quit")]))
    (tmp_path / "tr/hashes_de.qm").write_bytes(qm_bytes([]) + b"\x69\x00\x00\x00\x01\x01")  # no source text
    assert list(qm_units(tmp_path, source(["tr/*_de.qm"], "qm"))) == [("Café is open.", "Das Café ist offen.")]


def test_properties_paired_by_key(tmp_path):
    (tmp_path / "en/browser").mkdir(parents=True)
    (tmp_path / "de/browser").mkdir(parents=True)
    (tmp_path / "en/browser/menu.properties").write_text("close=Close the window\nsave=Save\nonly.en=Only here\n")
    (tmp_path / "de/browser/menu.properties").write_text("save=Speichern\nclose=Fenster schlie\\u00dfen\n")
    units = set(properties_units(tmp_path, source(["*.properties"], "properties", pair=("en/", "de/"))))
    assert units == {("Close the window", "Fenster schließen"), ("Save", "Speichern")}


PAGE = """<!DOCTYPE html><html><body><div id="DisplayArea">
<h1 id="hd_id1">{title}</h1>
<p id="par_id2" class="paragraph">{para}</p>
<p id="par_id3">{press} <span class="switchinline"><span hidden="true" class="MAC">Cmd</span></span>+Z</p>
<p id="par_id4">{only}</p>
</div></body></html>"""


def test_help_pages_paired_by_path_and_paragraph_id(tmp_path):
    for lang, words in {
        "en-US": dict(title="Undo", para="Click <b>Undo</b> to go back.", press="Press", only="Only English"),
        "de": dict(title="Rückgängig", para="Klicken Sie auf <b>Rückgängig</b>.", press="Drücken Sie", only=""),
    }.items():
        page = tmp_path / f"help/{lang}/text/shared/undo.html"
        page.parent.mkdir(parents=True)
        page.write_text(PAGE.format(**words), encoding="utf-8")
    help_source = source(["help/en-US/text/*.html", "help/de/text/*.html"], "help_html", ("help/en-US/", "help/de/"))
    units = list(help_html_units(tmp_path, help_source))
    assert units == [("Undo", "Rückgängig"), ("Click Undo to go back.", "Klicken Sie auf Rückgängig.")]


TRANSLATION_EN = """Package: hello
Description-md5: 11112222
Description-en: example package based on GNU hello
 The GNU hello program produces a familiar, friendly greeting.
 .
 It allows non-programmers to use a classic computer science tool.

Package: tool
Description-md5: 33334444
Description-en: a tool
 Features:
  * fast
  * small

Package: lonely
Description-md5: 55556666
Description-en: only in English
"""
TRANSLATION_DE = """Package: hello
Description-md5: 11112222
Description-de: Beispielpaket, das auf GNU hello basiert
 Das Programm GNU hello gibt einen bekannten, freundlichen Gruß aus.
 .
 Es erlaubt Nicht-Programmierern, ein klassisches Werkzeug der Informatik zu nutzen.

Package: tool
Description-md5: 33334444
Description-de: ein Werkzeug
 Merkmale:
  * schnell
"""


def test_apt_descriptions_paired_by_checksum_block_by_block(tmp_path):
    (tmp_path / "mirror_main_i18n_Translation-en").write_text(TRANSLATION_EN)
    (tmp_path / "mirror_main_i18n_Translation-de").write_text(TRANSLATION_DE)
    apt_source = source(["*_i18n_Translation-en", "*_i18n_Translation-de"], "apt_descriptions")
    units = list(apt_descriptions_units(tmp_path, apt_source))
    assert units == [
        ("example package based on GNU hello", "Beispielpaket, das auf GNU hello basiert"),
        (
            "The GNU hello program produces a familiar, friendly greeting.",
            "Das Programm GNU hello gibt einen bekannten, freundlichen Gruß aus.",
        ),
        (
            "It allows non-programmers to use a classic computer science tool.",
            "Es erlaubt Nicht-Programmierern, ein klassisches Werkzeug der Informatik zu nutzen.",
        ),
    ]  # "tool" has three English blocks but two German ones: not paired


@pytest.mark.parametrize(
    "text, blocks",
    [
        ("short\n line one\n line two\n .\n next", ["short", "line one line two", "next"]),
        ("short\n Intro:\n  * a\n  - b", ["short", "Intro:", "a", "b"]),
    ],
)
def test_description_blocks(text, blocks):
    assert description_blocks(text) == blocks


DOCBOOK = "<html><head><title>{t}</title></head><body><h2>{h}</h2><p>{p}</p>{extra}</body></html>"
MALLARD = """<page xmlns="http://projectmallard.org/1.0/" id="x"><info><desc>skip</desc></info>
<title>{t}</title><p>{p} <gui>{g}</gui>.</p></page>"""


def test_parallel_pages_pair_blocks_in_order_only_where_counts_agree(tmp_path):
    pages = {
        "doc/ch1.en.html": DOCBOOK.format(t="Intro", h="1. Start", p="Read <b>this</b> first.", extra=""),
        "doc/ch1.de.html": DOCBOOK.format(t="Einleitung", h="1. Anfang", p="Lies das zuerst.", extra=""),
        "doc/ch2.en.html": DOCBOOK.format(t="More", h="2. On", p="Go on.", extra=""),
        "doc/ch2.de.html": DOCBOOK.format(t="Mehr", h="2. Weiter", p="Weiter.", extra="<p>Extra-Absatz.</p>"),
        "help/C/a.page": MALLARD.format(t="Print", p="Click", g="Print"),
        "help/de/a.page": MALLARD.format(t="Drucken", p="Klicken Sie auf", g="Drucken"),
    }
    for name, text in pages.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    docbook = source(["doc/*.html"], "parallel_pages", pair=(".en.html", ".de.html"))
    assert list(parallel_pages_units(tmp_path, docbook)) == [
        ("Intro", "Einleitung"),
        ("1. Start", "1. Anfang"),
        ("Read this first.", "Lies das zuerst."),
    ]  # ch2 has one more German paragraph than English ones: not paired
    mallard = source(["help/*.page"], "parallel_pages", pair=("help/C/", "help/de/"))
    assert list(parallel_pages_units(tmp_path, mallard)) == [
        ("Print", "Drucken"),
        ("Click Print.", "Klicken Sie auf Drucken."),
    ]
