"""Labels that fit: pieces as tick labels read them, tick fonts and angles for an axis's length, wrapped titles.

Sizes are estimated from the text (CHAR_EM, LINE_EM): figures are built before a browser measures anything.
"""

from __future__ import annotations

import html
import itertools
import re
import unicodedata
from collections.abc import Sequence

from ..lab.analysis import WORD_START  # SentencePiece's word-start mark "▁", defined once


def esc(text: object) -> str:
    """Text from user input, shown literally: Plotly renders some HTML tags (and $…$ as LaTeX) in any label."""
    # Plotly turns &lt; &gt; &amp; and numeric entities back into characters; quotes need no escaping.
    return html.escape(str(text), quote=False).replace("$", "&#36;")


# SentencePiece marks a piece that starts a word with U+2581 "▁", which reads as a stray bar on a slide. Tick
# labels show a word start without it and a piece that continues a word after a "·" ("▁Hund" → "Hund", "ung" →
# "·ung"), so no information is lost; a lone "▁" (a space the next piece does not carry) shows as "␣".
CONTINUES, LONE_SPACE = "·", "␣"
SPECIAL_PIECES = frozenset({"<s>", "</s>", "<unk>", "<pad>"})
CHAR_EM = 0.6  # a tick label character's width in em, roughly, for the proportional sans-serif fonts
MIN_TICK_PX = 8  # the smallest tick label font: smaller is unreadable on a projector
SLIDE_MIN_EM = 0.7  # and on a slide, a label is at least this share of the look's font (20 px: 14 px)

LINE_EM = 1.4  # a line of text's height in em, ascent and descent with room for an axis narrower than assumed


def min_font(font_size: float) -> int:
    """The smallest label font of a look whose font is `font_size`: MIN_TICK_PX on screen, 14 px on a slide."""
    return max(MIN_TICK_PX, round(SLIDE_MIN_EM * font_size))


def piece_label(piece: str) -> str:
    """A SentencePiece piece as a tick label reads it: 'Hund' for '▁Hund', '·ung' for 'ung', '␣' for '▁'."""
    if piece in SPECIAL_PIECES:
        return piece
    if piece == WORD_START:
        return LONE_SPACE
    return piece[1:] if piece.startswith(WORD_START) else CONTINUES + piece


def token_ticks(tokens: Sequence[str], pieces: bool = True) -> dict:
    """Axis settings labelling positions 0..n-1 with tokens: integer positions keep duplicates apart
    (Plotly merges equal category labels), the tick text shows each token literally, as piece_label reads a
    SentencePiece piece (pieces=False: words, or labels already made). Plotly.js shows the tick text in hover
    labels too, so a hovertemplate's %{x} and %{y} read "the", not "3"."""
    labels = [piece_label(t) for t in tokens] if pieces else list(tokens)
    return dict(tickvals=list(range(len(labels))), ticktext=[esc(t) for t in labels])  # tickmode "array": implied


def tick_font(n_ticks: int, panel_px: float, font_size: int) -> dict:
    """Axis settings for a tick font small enough that n_ticks labels fit along panel_px pixels; none when the
    figure's font_size fits (ticks inherit it, and each setting costs time on every subplot axis)."""
    size = int(max(min_font(font_size), min(font_size, 1.2 * panel_px / max(n_ticks, 1))))
    return {} if size == font_size else dict(tickfont=dict(size=size))


def tick_angle(labels: Sequence[str], axis_px: float, font_size: float) -> int:
    """The x tick labels' angle: 0 (flat) when the widest label fits in its share of the axis, else -45."""
    # Never -90: a label standing on end is read with the head tilted, and slides are read from afar.
    if not labels:
        return 0
    widest = CHAR_EM * font_size * max(len(label) for label in labels)
    return 0 if widest + font_size <= axis_px / len(labels) else -45


def tick_label_px(labels: Sequence[str], angle: int, font_size: float) -> float:
    """The height the x tick labels take below the axis at `angle` (0 or -45), for a figure's height."""
    if angle == 0 or not labels:
        return 1.5 * font_size
    return 0.71 * CHAR_EM * font_size * max(len(label) for label in labels) + font_size  # sin 45° = 0.71


def x_token_ticks(tokens: Sequence[str], axis_px: float, font_size: int, pieces: bool = True) -> dict:
    """An x axis labelled with `tokens` along about `axis_px` pixels: token_ticks, tick_font and tick_angle.

    Tilted labels lie side by side across a slanted strip: each one's line (LINE_EM of its font) must fit in
    the strip's width, the space between ticks times sin 45°, or neighbours overlap; the font shrinks to fit.
    """
    ticks, font = token_ticks(tokens, pieces), tick_font(len(tokens), axis_px, font_size)
    labels = [piece_label(t) for t in tokens] if pieces else tokens
    size = font.get("tickfont", {}).get("size", font_size)
    angle = tick_angle(labels, axis_px, size)
    if angle and labels:
        # tilted labels apart come first: under a slide's least font where they must (a view not laid out for it)
        fits = int(max(MIN_TICK_PX, 0.71 * axis_px / len(labels) / LINE_EM))  # sin 45° = 0.71
        if fits < size:
            font = dict(tickfont=dict(size=fits))
    return dict(**ticks, tickangle=angle, **font)


FIGURE_PX = 600  # about how wide the page draws a figure (at 1280 px: half a tab, where two share a row)
BREAKS = (" · ", ": ", "; ", ", ", " ")  # where a title's line may break, best first
TITLE_EM = 0.52  # a title character's width in em on average (CHAR_EM is the wide end, for short tick labels)


def is_wide(ch: str) -> bool:
    """A Japanese, Chinese or Korean character (Unicode's East Asian wide or fullwidth): about one em wide."""
    return unicodedata.east_asian_width(ch) in "WF"


def title_chars(text: str) -> list[int]:
    """Each character's width in average title characters: a Japanese, Chinese or Korean character (Unicode's East
    Asian wide or fullwidth) takes about one em, two of an average Latin one. A tag counts as nothing and an
    entity (&amp;) as one, on its first character."""
    widths = [2 if is_wide(ch) else 1 for ch in text]
    for match in re.finditer(r"<[^>]*>|&[#\w]+;", text):
        widths[match.start() : match.end()] = [0 if match.group().startswith("<") else 1] + [0] * (
            len(match.group()) - 1
        )
    return widths


def wrap_title(title: str, width: float, size: float) -> tuple[str, int]:
    """The title (escaped HTML, lines split by <br>) with each line too long for `width` pixels broken at its
    separators, and how many lines that added. The text itself is unchanged: only <br> are added."""
    room = max(10, int(width / (TITLE_EM * size)))  # average characters per line
    lines, added = [], 0
    for line in title.split("<br>"):
        while sum(widths := title_chars(line)) > room:
            fits = next(i for i, total in enumerate(itertools.accumulate(widths)) if total > room)  # chars
            cut = next((line.rfind(b, 0, fits) for b in BREAKS if line.rfind(b, 0, fits) > 0), -1)
            if cut <= 0:
                break
            sep = next(b for b in BREAKS if line.startswith(b, cut))
            lines.append(line[:cut] + sep.rstrip())
            line, added = line[cut + len(sep) :], added + 1
        lines.append(line)
    return "<br>".join(lines), added


def wrapped_axis_titles(layout: dict, plot_px: float, size: float) -> dict:
    """`layout` with each x axis's title wrapped to the width of its axis (its domain's share of plot_px)."""
    out = dict(layout)
    for key, axis in layout.items():
        if key.startswith("xaxis") and isinstance(axis, dict) and axis.get("title", {}).get("text"):
            low, high = axis.get("domain", (0, 1))
            text, _ = wrap_title(axis["title"]["text"], max(120.0, (high - low) * plot_px), size)
            out[key] = {**axis, "title": {**axis["title"], "text": text}}
    return out


TITLE_PAD = 8  # px between the figure's top edge and its title


def default_top(title_size: float) -> float:
    """The top margin the builders' heights were given for: 70 px and two title lines."""
    return 70 + 2 * title_size


# Plotly hangs a title with yanchor "top" this many of its ems above its pad (measured in Chromium: a line of text
# is LINE_SPACING em apart, and a title of two lines or more is lifted by about one em, one line by a fifth).
LIFT_EM, LIFT_MULTILINE_EM, LINE_SPACING_EM = 0.2, 0.95, 1.3


def title_pad(title: str, size: float) -> float:
    """The pad over a top-anchored title in a `size` px font that puts its first line TITLE_PAD under the top edge
    (Plotly draws it higher than its pad: LIFT_EM)."""
    return TITLE_PAD + (LIFT_MULTILINE_EM if "<br>" in title else LIFT_EM) * size


def title_room(title: str, size: float, gap: float) -> float:
    """The top margin of a figure titled `title` in a `size` px font: TITLE_PAD, its lines, and `gap` over the plot."""
    if not title:
        return TITLE_PAD + gap
    return TITLE_PAD + (LINE_SPACING_EM * (title.count("<br>") + 1) - 0.1) * size + gap


def title_gap(layout: dict, font_size: float) -> float:
    """Room between the title and the plot area: a line of text where something sits above the plot (panel
    titles, a legend, an axis's labels on top), else a little."""
    above = (
        any(note.get("yanchor") == "bottom" for note in layout.get("annotations", []))
        or (layout.get("legend", {}).get("y", 0) >= 1)
        or any(isinstance(axis, dict) and axis.get("side") == "top" for key, axis in layout.items() if "axis" in key)
    )
    return 1.5 * font_size + 8 if above else 0.5 * font_size
