"""What the model reads of a visitor's text: at most MAX_CHARS characters, control characters dropped, whitespace
collapsed and HTML tags left out. The English a translator reads and the German it scores are cleaned alike."""

from __future__ import annotations

import re
import unicodedata

MAX_CHARS = 2000  # longer input is cut before tokenising (the model sees at most max_len tokens anyway)
# An HTML or XML tag (<b>, </b>, <img src=x>): markup, not a sentence, left out of what the model reads ("3 < 5" stays).
MARKUP = re.compile(r"</?[A-Za-z][^<>]*>")


def clean_text(text: str) -> str:
    """Drop control, zero-width and lone surrogate characters (keeping ordinary spaces) and collapse whitespace."""
    kept = "".join(
        " " if ch.isspace() else ch for ch in text if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
    )
    return " ".join(kept.split())
