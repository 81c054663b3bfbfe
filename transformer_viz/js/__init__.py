"""The browser's modules: plain JavaScript files that the page and the lesson file both run.

Each file defines its functions and, in a browser, puts them on `window.transformerViz`; under Node (the tests in
tests/js/) it exports them. Nothing here runs Python: this package only reads its files, at the bottom of the
import stack (docs/architecture.md), so that the page (app/) and the lesson file (figures/lesson.py) take them from
one folder, the same text in both.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def inline_scripts(names: tuple[str, ...]) -> str:
    """The modules `names` as <script> elements, each run in a scope of its own (as Node runs a module): the page's
    <head> and the lesson file hold them alike."""
    return "".join(
        f"<script>(function () {{\n{(FOLDER / name).read_text(encoding='utf-8')}}})();</script>\n" for name in names
    )
