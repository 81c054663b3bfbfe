"""Each cleaning rule of corpus/clean.py on small hand-made units."""

from collections import Counter

import pytest

from transformer_viz.corpus.clean import (
    align_parts,
    clean_units,
    has_placeholder,
    reject_reason,
    split_sentences,
    strip_accelerators,
    strip_markup,
    strip_numbering,
)


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("&File", "File"),
        ("_Open", "Open"),
        ("~Open", "Open"),
        ("Save &As…", "Save As…"),
        ("Tom &amp; Jerry", "Tom & Jerry"),  # an entity is not an accelerator
        ("R&D", "R&D"),  # inside a word "&" is text
        ("file_name", "file_name"),
        ("<b>Bold</b> move", "Bold move"),
        ('<span color="red">Hot</span>!', "Hot !"),
        ("a &lt; b", "a < b"),
        ("It’s  a\u00a0test", "It's a test"),
    ],
)
def test_strip_markup(raw, clean):
    assert strip_markup(raw) == clean


@pytest.mark.parametrize(
    "text",
    ["%s files", "%1$s won", "%(name)s left", "{x} apples", "{0}", "$1 gold", "$name arrives", "%1 of %2", "%d%%"],
)
def test_placeholders_are_found(text):
    assert has_placeholder(text)


@pytest.mark.parametrize("text", ["100% sure", "It costs $ 5.", "Done."])
def test_ordinary_text_has_no_placeholder(text):
    assert not has_placeholder(text)


def test_units_with_a_placeholder_on_either_side_are_dropped():
    stats = Counter()
    kept = clean_units([("%s has left.", "Er ist gegangen."), ("He has left.", "{name} ist gegangen.")], stats)
    assert kept == [] and stats["placeholder"] == 2


def test_sentences_split_at_ends_but_not_after_abbreviations():
    assert split_sentences("I came. I saw! Did I win?") == ["I came.", "I saw!", "Did I win?"]
    assert split_sentences("Nimm z. B. Brot. Dann geh.") == ["Nimm z. B. Brot.", "Dann geh."]
    assert split_sentences("See e.g. the guide. It helps.") == ["See e.g. the guide.", "It helps."]
    assert split_sentences("He left on 3. May.") == ["He left on 3. May."]


def test_paragraphs_split_only_where_both_sides_agree():
    assert align_parts("Run. Hide.", "Lauf. Versteck dich.") == [("Run.", "Lauf."), ("Hide.", "Versteck dich.")]
    assert align_parts("Run. Hide.", "Lauf und versteck dich.") == [("Run. Hide.", "Lauf und versteck dich.")]
    assert align_parts("One.\nTwo.", "Eins.\nZwei.") == [("One.", "Eins."), ("Two.", "Zwei.")]
    assert align_parts("One.\nTwo.", "Eins. Zwei. Drei.") == [("One. Two.", "Eins. Zwei. Drei.")]


@pytest.mark.parametrize(
    "en, de, reason",
    [
        ("", "Hallo", "empty"),
        ("...", "...", "empty"),
        ("X", "Wert", "empty"),  # a one-letter UI label
        ("OK", "OK", "untranslated"),
        ("word " * 50, "Wort " * 50, "length"),
        ("Yes.", "Ja, das ist ganz genau so, wie du es gesagt hast.", "ratio"),
        ("Visit https://example.org now.", "Besuche https://example.org jetzt.", "markup"),
        ("Press [Enter] to go on.", "Drücke [Enter], um weiterzumachen.", "markup"),
        ("Open the usr/share folder.", "Öffne den Ordner usr/share.", "markup"),
        ("The house is old.", "Das Haus ist alt.", None),
    ],
)
def test_reject_reason(en, de, reason):
    assert reject_reason(en, de) == reason


def test_clean_units_strips_filters_and_deduplicates():
    stats = Counter()
    units = [
        ("<b>The &door</b> is open.", "<b>Die &Tür</b> ist offen."),
        ("The door is open.", "Die Tür ist offen."),  # the same pair once clean
        ("Close", "Close"),
        ("Go. Now.", "Geh. Jetzt."),
    ]
    kept = clean_units(units, stats)
    assert kept == [("The door is open.", "Die Tür ist offen."), ("Go.", "Geh."), ("Now.", "Jetzt.")]
    assert stats["duplicate"] == 1 and stats["untranslated"] == 1 and stats["units"] == 4


@pytest.mark.parametrize(
    "en, de, clean",
    [
        ("Same value for _both", "Bei_de Seiten gleich", ("Same value for both", "Beide Seiten gleich")),
        ("~Open File", "Datei ~öffnen", ("Open File", "Datei öffnen")),
        ("Save &As", "Speichern &unter", ("Save As", "Speichern unter")),
        ("Tom &amp; Jerry", "Tom &amp; Jerry", ("Tom &amp; Jerry", "Tom &amp; Jerry")),  # entities stay for unescaping
        ("the file_name field", "das Feld Dateiname", ("the file_name field", "das Feld Dateiname")),
    ],
)
def test_strip_accelerators_inside_words_only_when_each_side_has_one(en, de, clean):
    assert strip_accelerators(en, de) == clean


def test_identifiers_left_inside_a_word_are_dropped_as_markup():
    assert clean_units([("Set file_name first.", "Setze zuerst Dateiname.")]) == []


@pytest.mark.parametrize(
    "en, de, clean",
    [
        (
            "9.4.6. Tracing program activities",
            "9.4.6. Programmaktivitäten verfolgen",
            ("Tracing program activities", "Programmaktivitäten verfolgen"),
        ),
        ("B.4.7. Partitioning", "B.4.7. Partitionierung", ("Partitioning", "Partitionierung")),
        (
            "3 apples are here.",
            "Hier sind drei Äpfel.",
            ("3 apples are here.", "Hier sind drei Äpfel."),
        ),  # only one side
        ("2. Go", "3. Geh", ("2. Go", "3. Geh")),  # different numbers are content
        ("3 cats", "3 Katzen", ("3 cats", "3 Katzen")),  # a count, not a section number
    ],
)
def test_strip_numbering_only_when_both_sides_start_alike(en, de, clean):
    assert strip_numbering(en, de) == clean


def test_colour_codes_are_stripped_and_other_control_characters_dropped():
    assert strip_markup("\agEscorts:\a0 Clearing orders.") == "Escorts: Clearing orders."
    assert reject_reason("Ring\x08 the bell.", "Läute die Glocke.") == "markup"
