"""The language figures speak: a context around the builders, so no builder needs a `lang` argument.

    with figures.language("ja"):
        fig = figures.attention_grid(trace, "cross", 0)   # titles, axes, legends and hovers in Japanese

A ContextVar, not a global: each thread and each asyncio task sees its own language, and the context manager
puts the previous one back on the way out, so concurrent visitors never get each other's words.
The words live in the i18n catalogues under "fig-" keys, each a str.format template (Plotly's %{x} is %{{x}}).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .. import i18n

LANGUAGE: ContextVar[str] = ContextVar("figure_language", default=i18n.DEFAULT)


@contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Build figures in `lang` ("en", "de", "ja", "ko", "zh"; "ja-JP" → "ja", anything else → English) in the block."""
    token = LANGUAGE.set(i18n.language(lang))
    try:
        yield LANGUAGE.get()
    finally:
        LANGUAGE.reset(token)


def current_language() -> str:
    """The language figures are being built in now."""
    return LANGUAGE.get()


def t(key: str, **values) -> str:
    """The figure text "fig-{key}" in the current language, {values} filled in (Plotly's %{x} is written %{{x}})."""
    return i18n.template("fig-" + key, LANGUAGE.get()).format(**values)
