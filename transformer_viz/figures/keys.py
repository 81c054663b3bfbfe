"""The presenter's keys in words: the small panel the key ? shows over the lesson, in the page and the lesson file.

What each key does is decided in the browser (js/keys.js); this is what the panel says about it, in the
visitor's language.
"""

from __future__ import annotations

import html

from .. import i18n

SPACE = "keys-space"  # the one key whose name is a word (its catalogue key), not a symbol on its cap
# Each row of the panel: the keys, as their caps read, and what they do (its catalogue key).
KEYS_HELP = (
    (("←", "→"), "keys-step"),
    (("PageUp", "PageDown"), "keys-clicker"),
    (("↑", "↓"), "keys-layer"),
    (("0–9",), "keys-head"),
    (("M",), "keys-mean"),
    ((SPACE,), "keys-play"),
    (("G",), "keys-guess"),
    (("A–D",), "keys-answer"),
    (("?",), "keys-help"),
)


def cap(name: str, lang: str) -> str:
    """One key as <kbd>: its symbol, or the word for it in `lang`."""
    return f"<kbd>{html.escape(i18n.text(name, lang) if name == SPACE else name)}</kbd>"


def keys_help(lang: str = "en") -> str:
    """HTML: the keys' help panel in `lang`, a title, one row per key and what it does, and when the keys act."""
    rows = "".join(
        f"<tr><th>{' '.join(cap(name, lang) for name in caps)}</th><td>{html.escape(i18n.text(key, lang))}</td></tr>"
        for caps, key in KEYS_HELP
    )
    title, note = html.escape(i18n.text("keys-title", lang)), html.escape(i18n.text("keys-note", lang))
    return f'<div class="tv-keys"><b>{title}</b><table>{rows}</table><p>{note}</p></div>'


# The panel's look, in the page's CSS and the lesson file's alike: over the lesson's bottom right corner, where it
# hides nothing of the layout while it shows, and nothing at all otherwise (the root's class: js/keys.js).
KEYS_CSS = (
    "html:not(.tv-keys-help) #keys-help {display: none !important}"
    " #keys-help {position: fixed; right: 16px; bottom: 16px; z-index: 1000; max-width: 26em; width: auto;"
    " padding: 10px 14px; border: 1px solid #999; border-radius: 8px; background: white; color: #222;"
    " box-shadow: 0 2px 12px rgba(0, 0, 0, .25); font-size: 14px; line-height: 1.4}"
    # the page's Markdown styles (Gradio's prose) draw tables with borders; the panel's is a plain list
    " #keys-help table {border-collapse: collapse; margin: .4em 0; width: auto}"
    " #keys-help :is(table, tr, th, td) {border: none !important; background: none !important}"
    " #keys-help :is(th, td) {padding: 2px 6px; text-align: left; vertical-align: baseline}"
    " #keys-help th {white-space: nowrap; font-weight: normal} #keys-help p {margin: 0; font-size: 12px}"
    " #keys-help kbd {display: inline-block; min-width: 1.2em; padding: 0 .35em; border: 1px solid #aaa;"
    " border-radius: 4px; background: #f4f4f4; font: inherit; text-align: center}"
)
