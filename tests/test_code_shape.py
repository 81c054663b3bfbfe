"""The package stays readable in one sitting: no module over 400 lines, no function over 80."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "transformer_viz"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(name, lines) of every function or method in `source` longer than `limit` lines, decorators included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if node.end_lineno - first + 1 > limit:
                found.append((node.name, node.end_lineno - first + 1))
    return found


def test_the_package_has_modules_to_check():
    assert len(MODULES) > 30 and PACKAGE / "model" / "transformer.py" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_and_function_lengths(path):
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_MODULE_LINES, f"{path.name}: split it into two ideas"
    assert long_functions(source) == []


def test_a_long_function_is_found():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def short():\n    pass\n\n\n@decorated\ndef f():\n{body}\n") == [
        ("f", MAX_FUNCTION_LINES + 2)
    ]
