"""The readers of formats no library reads (Qt .qm and .rcc, OpenClonk's groups, Drascula's tables), the caption
and fortune extractors, and German text without English, each on tiny files the tests write themselves."""

import gzip
import json
import struct
import zlib
from collections import Counter

import pytest

from transformer_viz.corpus import clonk, drascula, qt
from transformer_viz.corpus.clean import clean_german
from transformer_viz.corpus.drascula import Lexicon, common_casings, normalise
from transformer_viz.corpus.extract import EXTRACTORS, fortune_units, stamp_units
from transformer_viz.corpus.sources import SOURCES, Source


def source(members, extractor, pair=("", "")):
    return Source("test", (), tuple(members), extractor, "MIT", "the tests", pair=pair)


# ---------------------------------------------------------------------------- Qt
def qm_message(source=None, translations=(), context="Game"):
    body = b""
    for text in translations:
        encoded = text.encode("utf-16-be")
        body += b"\x03" + struct.pack(">l", len(encoded)) + encoded
    if source is not None:
        body += b"\x06" + struct.pack(">L", len(source.encode())) + source.encode()
    body += b"\x07" + struct.pack(">L", len(context.encode())) + context.encode() + b"\x05" + b"\0\0\0\0"
    return body + b"\x01"


def qm_file(*messages):
    """A .qm catalogue: magic, a hash section (not read), the messages section."""
    body = b"".join(messages)
    return qt.QM_MAGIC + b"\x42" + struct.pack(">L", 4) + b"\0" * 4 + b"\x69" + struct.pack(">L", len(body)) + body


def test_qm_keeps_single_translations_with_a_source_text(tmp_path):
    catalogue = qm_file(
        qm_message(None, ["Projekt-Kopfzeile"]),  # Qt's own message without a source text: translate-toolkit stops here
        qm_message("Cherry", ["Kirsche"]),
        qm_message("Café open", ["Café offen"], context="Menü"),
        qm_message("%n apples", ["ein Apfel", "%n Äpfel"]),  # plural forms: skipped like gettext's
        qm_message("OK", ["OK"]),  # untranslated
    )
    (tmp_path / "tr").mkdir()
    (tmp_path / "tr/game_de.qm").write_bytes(catalogue)
    messages = qt.read_qm(catalogue)
    assert [m.source for m in messages] == [None, "Cherry", "Café open", "%n apples", "OK"]
    assert messages[2].context == "Menü" and messages[3].translations == ["ein Apfel", "%n Äpfel"]
    assert list(qt.qm_units(tmp_path, source(["tr/*_de.qm"], "qm"))) == [
        ("Cherry", "Kirsche"),
        ("Café open", "Café offen"),
    ]
    with pytest.raises(qt.FormatError, match="magic"):
        qt.read_qm(b"not a catalogue")


def rcc_file(files: dict[str, bytes], compress=()):
    """A version-3 .rcc bundle: root → one folder → files (those in `compress` zlib-compressed as qCompress does)."""
    names, data, entries = b"", b"", []

    def name(text):
        nonlocal names
        offset = len(names)
        names += struct.pack(">HL", len(text), 0) + text.encode("utf-16-be")
        return offset

    def entry(name_offset, flags, a, b):  # a directory: child count, first child; a file: locale, data offset
        return struct.pack(">LHLL", name_offset, flags, a, b) + b"\0" * 8

    entries.append(entry(0, 2, 1, 1))  # the root: one child, entry 1
    entries.append(entry(name("lang"), 2, len(files), 2))
    for filename, content in files.items():
        flags, blob = (
            (1, struct.pack(">L", len(content)) + zlib.compress(content)) if filename in compress else (0, content)
        )
        entries.append(entry(name(filename), flags, 0, len(data)))
        data += struct.pack(">L", len(blob)) + blob
    tree = b"".join(entries)
    header_size = 24
    tree_at, data_at = header_size, header_size + len(tree)
    names_at = data_at + len(data)
    return b"qres" + struct.pack(">5L", 3, tree_at, data_at, names_at, 0) + tree + data + names


def test_rcc_bundles_are_read_and_their_word_lists_paired_by_key(tmp_path):
    english = {"cherry.ogg": "cherry", "ten.ogg": "ten", "only.ogg": "only in English", "odd.ogg": ["not", "a word"]}
    german = {"cherry.ogg": "die Kirsche", "ten.ogg": "zehn", "odd.ogg": "seltsam"}
    bundle = rcc_file(
        {"content-en.json": json.dumps(english).encode(), "content-de.json": json.dumps(german).encode()},
        compress={"content-de.json"},
    )
    assert set(qt.read_rcc(bundle)) == {"/lang/content-en.json", "/lang/content-de.json"}
    (tmp_path / "rcc").mkdir()
    (tmp_path / "rcc/lang.rcc").write_bytes(bundle)
    units = qt.rcc_json_units(tmp_path, source(["rcc/*.rcc"], "rcc_json", pair=("content-en.json", "content-de.json")))
    assert list(units) == [("cherry", "die Kirsche"), ("ten", "zehn")]


# ---------------------------------------------------------------------------- OpenClonk
def scramble(header: bytes) -> bytes:
    """OpenClonk's MemScramble: XOR each byte with 237, then swap bytes 0 and 2 of every three."""
    out = bytearray(byte ^ 237 for byte in header)
    for i in range(0, len(out) - 2, 3):
        out[i], out[i + 2] = out[i + 2], out[i]
    return bytes(out)


def group(files: dict[str, bytes | dict]) -> bytes:
    """An uncompressed C4Group: a dict value is a child group."""
    header = clonk.GROUP_ID + b"\0" * 4 + struct.pack("<3l", 1, 2, len(files))
    entries, data = b"", b""
    for name, content in files.items():
        child = isinstance(content, dict)
        blob = group(content) if child else content
        entries += name.encode().ljust(clonk.NAME_SIZE, b"\0") + struct.pack("<5l", 0, child, len(blob), 0, len(data))
        entries += b"\0" * (clonk.ENTRY_SIZE - clonk.NAME_SIZE - 20)
        data += blob
    return scramble(header.ljust(clonk.HEADER_SIZE, b"\0")) + entries + data


def test_openclonk_groups_pair_string_tables_by_key_and_descriptions_whole(tmp_path):
    scenario = {
        "StringTblDE.txt": b"# Dialog\nMsgHello=Hallo Freund!|Komm mit.\nMsgOnlyGerman=Nur auf Deutsch\n",
        "StringTblUS.txt": b"# Dialogue\nMsgHello=Hello friend!|Come along.\nMsgOnlyEnglish=Only English\n",
        "DescDE.txt": "\ufeffEine kleine Insel.".encode(),
        "DescUS.txt": b"A small island.",
    }
    packed = group({"Island.ocs": scenario, "Title.txt": b"not read"})
    on_disk = clonk.GROUP_MAGIC + gzip.compress(packed)[2:]
    files = clonk.open_group(on_disk)
    assert set(files) == {
        "Island.ocs/StringTblDE.txt",
        "Island.ocs/StringTblUS.txt",
        "Island.ocs/DescDE.txt",
        "Island.ocs/DescUS.txt",
        "Title.txt",
    }
    (tmp_path / "Missions.ocf").write_bytes(on_disk)
    units = list(clonk.clonk_units(tmp_path, source(["*.ocf"], "clonk")))
    assert units == [
        ("A small island.", "Eine kleine Insel."),
        ("Hello friend!\nCome along.", "Hallo Freund!\nKomm mit."),  # "|" is a line break on screen
        ("", "Nur auf Deutsch"),  # German first: no English yet, German text alone
    ]
    with pytest.raises(qt.FormatError, match="1e 8c"):
        clonk.open_group(gzip.compress(packed))


# ---------------------------------------------------------------------------- Drascula
def dat_file(languages: list[list[str]]) -> bytes:
    """drascula.dat: the magic, a version, thirteen empty tables of numbers, six languages, one text table."""
    out = drascula.MAGIC + b"\x06" + b"\0\0" * len(drascula.RECORD_SIZES) + struct.pack(">H", 6)
    out += struct.pack(">H", len(languages[0]))
    for texts in languages:
        block = b"\0\0"
        for text in texts:
            raw = text.encode("latin-1") + b"\0"
            padding = 4 - (len(raw) + 2) % 4
            block += struct.pack(">H", len(raw) + padding + 2) + raw + b"\0" * padding
        out += struct.pack(">H", len(block)) + block
    return out


GERMAN = Lexicon(["ich", "habe", "Hunger", "was", "für", "eine", "Nacht", "nicht", "wahr", "Tür", "Hallo", "Feuer"])
GERMAN.add(["sie", "Sie", "ist", "da", "Füßen", "zu", "Essen", "essen", "gut"])
ENGLISH = Lexicon(["I", "am", "hungry", "not", "blind", "Will", "will", "go", "Gibraltar", "to", "what", "a", "night"])


@pytest.mark.parametrize(
    "text, german, expected",
    [
        ("ICH HABE HUNGER", True, "Ich habe Hunger"),  # each word's one casing; the first capitalised
        ("WAS FueR EINE NACHT, NICHT WAHR?", True, "Was für eine Nacht, nicht wahr?"),  # "ue" inside capitals: ü
        ("ZU FueSSEN", True, "Zu Füßen"),  # SS may be ß: the lexicon knows which
        ("SIE IST DA", True, "Sie ist da"),  # two casings (sie, Sie), decided by the sentence's start
        ("DA IST SIE", True, None),  # … and undecided inside it: the line is dropped
        ("ESSEN IST GUT", True, "Essen ist gut"),
        ("Hallo Tuer!", True, "Hallo Tür!"),  # mixed case: umlauts the lexicon knows, the casing as written
        ("Das Feuer", True, "Das Feuer"),  # a real "ue" stays; a word without digraphs stays as written
        ("ICH HABE DURST", True, None),  # a word the lexicon does not know
        ("ICH§HABE§HUNGER", True, "Ich habe Hunger"),  # the game's § is a space
        ("Ich schaffïes nicht!", True, None),  # another sign of the game's font: unsafe
        ("I'M NOT BLIND", False, "I'm not blind"),
        ("I WILL GO TO GIBRALTAR", False, "I will go to Gibraltar"),  # will, not Will; Gibraltar only as a name
        ("WHAT A NIGHT!", False, "What a night!"),
        ("Mixed case stays", False, "Mixed case stays"),
    ],
)
def test_drascula_normalises_capitals_only_where_safe(text, german, expected):
    assert normalise(text, GERMAN if german else ENGLISH, german) == expected


def test_a_word_unknown_to_the_lexicon_is_kept_as_a_name_when_both_languages_write_it():
    assert normalise("ICH HABE IGOR", GERMAN, True, names={"IGOR"}) == "Ich habe Igor"


def test_a_casing_ding_rarely_uses_is_not_a_casing_of_the_word():
    assert sorted(common_casings(["und"] * 30 + ["Und"] + ["Ruhe"] * 8 + ["ruhe"] * 2)) == ["Ruhe", "ruhe", "und"]


def test_drascula_units_from_the_dat_with_word_lists_and_ding(tmp_path):
    english = ["", "I AM HUNGRY", "WHAT A NIGHT!", "", "XYZZY"]
    german = ["", "ICH HABE HUNGER", "WAS FueR EINE NACHT!", "Hallo Tuer!", "ICH HABE HUNGER!"]
    other = [""] * len(english)
    (tmp_path / "usr/share/scummvm/drascula/en").mkdir(parents=True)
    dat = dat_file([english, other, german, other, other, other])
    (tmp_path / "usr/share/scummvm/drascula/en/drascula.dat").write_bytes(dat)
    assert drascula.read_dat(dat)["de"] == german
    for path, words in ((drascula.GERMAN_WORDS, "ich\nhabe\nwas\nfür\neine\n"), (drascula.ENGLISH_WORDS, "I\nam\n")):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(words + "what\na\nnight\nhungry\n")
    (tmp_path / drascula.DING).parent.mkdir(parents=True)
    (tmp_path / drascula.DING).write_text(
        "Hunger {m} :: hunger\nNacht {f} :: night\nTür {f} :: door\nHallo! :: Hello!\n"
    )
    members = (
        "usr/share/scummvm/drascula/*/drascula.dat",
        drascula.GERMAN_WORDS,
        drascula.ENGLISH_WORDS,
        drascula.DING,
    )
    units = list(drascula.drascula_units(tmp_path, source(members, "drascula")))
    assert units == [
        ("I am hungry", "Ich habe Hunger"),
        ("What a night!", "Was für eine Nacht!"),
        ("", "Hallo Tür!"),  # no English: German text alone
        ("", "Ich habe Hunger!"),  # English the lexicon cannot case: German text alone
    ]


# ---------------------------------------------------------------------------- captions, fortunes, German alone
def test_stamp_captions_pair_the_first_line_with_the_german_one(tmp_path):
    (tmp_path / "stamps/animals").mkdir(parents=True)
    (tmp_path / "stamps/animals/frog.txt").write_text("A frog.\nda.utf8=En frø.\nde.utf8=Ein Frosch.\n")
    (tmp_path / "stamps/animals/cat.txt").write_text("A cat.\nfr.utf8=Un chat.\n")
    assert list(stamp_units(tmp_path, source(["stamps/*.txt"], "stamps"))) == [("A frog.", "Ein Frosch.")]


def test_fortunes_are_german_text_alone_without_whom_they_quote(tmp_path):
    (tmp_path / "de").mkdir()
    (tmp_path / "de/sprichworte").write_text(
        "Die Zeit ist der beste Lehrer.\nLeider tötet sie ihre Schüler.\n\t\t-- Sprichwort\n%\n"
        "Morgenstund hat Gold\nim Mund.\n%\n"
    )
    units = list(fortune_units(tmp_path, source(["de/*"], "fortunes")))
    assert units == [
        ("", "Die Zeit ist der beste Lehrer. Leider tötet sie ihre Schüler."),
        ("", "Morgenstund hat Gold im Mund."),
    ]


def test_german_text_alone_is_split_into_sentences_and_filtered():
    stats = Counter()
    texts = [
        "Die Zeit ist der beste Lehrer. Leider tötet sie ihre Schüler.",
        "Hallo %s!",
        "'O'-----0 'O'---.",
        "Die Zeit ist der beste Lehrer.",
        "<b>Gut</b> gemacht!",
        "x",
    ]
    assert clean_german(texts, stats) == [
        "Die Zeit ist der beste Lehrer.",
        "Leider tötet sie ihre Schüler.",
        "Gut gemacht!",
    ]
    assert stats["placeholder"] == 1 and stats["symbols"] == 1 and stats["duplicate"] == 1 and stats["empty"] == 1


def test_every_source_names_an_extractor_a_licence_and_its_credit():
    for declared in SOURCES:
        assert declared.extractor in EXTRACTORS and declared.licence and declared.attribution, declared.name
    assert len({s.name for s in SOURCES}) == len(SOURCES)
