"""User text and tokens shown literally inside Markdown."""

from __future__ import annotations

import html
import re

# Markdown's inline punctuation (CommonMark lets any ASCII punctuation be backslash-escaped).
_MARKDOWN_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md(text) -> str:
    """`text` shown literally inside Markdown: HTML escaped (`</s>` is no tag), Markdown punctuation and `$` neutral.

    Tokens and model names are data: a piece `**` or a Hub name `my_model_v2` must not turn into emphasis.
    """
    return _MARKDOWN_PUNCT.sub(r"\\\1", html.escape(str(text), quote=False)).replace("$", "&#36;")
