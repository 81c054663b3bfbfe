"""The token strip: the source and target pieces in one glance, the step's target token marked, each one a button.

HTML the page and the lesson file show; a click on a target token moves the step there (in the page, through a
hidden box whose input event the page answers: js/page.js). Each source piece names its key (data-key: guess first's
head guess clicks it) and each target token from the step on is marked (tv-later: what guess first hides).
"""

from __future__ import annotations

import html

from .. import i18n
from ..trace import Trace
from .style import LONE_SPACE, WORD_START, piece_label


def readable(piece: str) -> tuple[str, bool]:
    """A piece as a reader sees it, and whether it starts a word: '▁house' → ('house', True); '▁' → ('␣', True)."""
    starts = piece.startswith(WORD_START)
    text = piece[1:] if starts else piece
    return (text or LONE_SPACE), starts


# A side with more pieces than this folds to a window of them ("…" where pieces are left out): the source's first,
# the target's around the step shown. One line of the lesson's width at 1280 px holds about this many, so a long
# paste keeps the step controls and the whole map on the first screen.
STRIP_PIECES = 16
FOLD = '<span class="tv-fold" aria-hidden="true">…</span>'


def window(n: int, centre: int, size: int = STRIP_PIECES) -> range:
    """The indices a side of n pieces shows: all of them, or `size` of them around `centre`, within 0..n-1."""
    if n <= size:
        return range(n)
    start = max(0, min(centre - size // 2, n - size))
    return range(start, start + size)


def _pieces(pieces: list[str], step: int | None) -> str:
    """The pieces as spans (source) or buttons (target: `step` is the current one, it and those after it tv-later); a
    word start leaves a gap."""
    shown = window(len(pieces), 0 if step is None else step)
    out = [FOLD] if shown.start > 0 else []
    for i in shown:
        piece = pieces[i]
        text, starts = readable(piece)
        gap = " tv-word" if starts and i else ""
        title = html.escape(piece_label(piece))  # the piece as the axes show it
        if step is None:
            out.append(f'<span class="tv-piece{gap}" data-key="{i}" title="{title}">{html.escape(text)}</span>')
        else:
            current = (" tv-current" if i == step else "") + (" tv-later" if i >= step else "")
            pressed = "true" if i == step else "false"
            out.append(
                f'<button type="button" class="tv-piece{gap}{current}" data-step="{i}" aria-pressed="{pressed}" '
                f'title="{i}: {title}">{html.escape(text)}</button>'
            )
    return "".join(out + ([FOLD] if shown.stop < len(pieces) else []))


def token_strip(trace: Trace, step: int, lang: str = "en") -> str:
    """HTML: the source pieces, then the target pieces with the one produced at `step` marked."""
    rows = [
        (i18n.text("strip-source", lang), _pieces(trace.source_tokens, None)),
        (i18n.text("strip-target", lang), _pieces(trace.target_tokens, step)),
    ]
    return "".join(
        f'<div class="tv-strip-row"><span class="tv-side">{html.escape(side)}</span>{p}</div>' for side, p in rows
    )
