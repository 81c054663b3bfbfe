"""The README and the docs/ pages tell the truth about the code: their imports run, and their tables and lists
name every preset, command, trace field and bundled checkpoint there is."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]  # the README and every page it links to


def imports(*pages: Path) -> list[str]:
    """Every `import …` / `from … import …` line of transformer_viz in the pages' python code blocks."""
    blocks = [b for page in pages for b in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)]
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if re.match(r"(from|import) transformer_viz\b", line)]


def test_the_readme_and_the_library_page_show_imports_of_the_library():
    assert len(imports(README)) >= 1  # the README's taste of it
    assert len(imports(DOCS / "library.md")) >= 2  # the library page's examples
    assert len(imports(DOCS / "user-guide.md")) >= 3  # in code: each Beyond attention view


def test_every_import_line_of_the_readme_and_the_docs_runs():
    script = "\n".join(imports(*PAGES))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, f"{script}\n{done.stderr}"


def test_a_missing_name_would_fail():
    done = subprocess.run(
        [sys.executable, "-c", "from transformer_viz import no_such_name"], capture_output=True, text=True
    )
    assert done.returncode != 0 and "no_such_name" in done.stderr


def section(title: str, page: Path = README) -> str:
    """The page's text under the heading `title` (any level), up to the next heading of that level or above."""
    text = page.read_text()
    found = re.search(rf"^(#+) {re.escape(title)}\n", text, flags=re.M)
    assert found, f"{page.name} has no section {title!r}"
    level = len(found.group(1))
    rest = text[found.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, flags=re.M)
    return rest[: end.start()] if end else rest


def test_the_presets_table_has_a_row_per_preset():
    from transformer_viz.model.config import PRESETS

    presets = section("Presets: the two study notes, with their bugs fixed", DOCS / "library.md")
    rows = re.findall(r"^\| `(\w+)`", presets, flags=re.M)
    assert sorted(rows) == sorted(PRESETS)


def test_the_command_line_section_shows_every_command():
    from transformer_viz.__main__ import build_parser

    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    page = section("Command line", DOCS / "command-line.md")
    shown = set(re.findall(r"^python -m transformer_viz (\w+)", page, flags=re.M))
    assert shown == set(commands)


def schema_block() -> str:
    """The code block of the trace schema's page."""
    return re.search(r"```\n(.*?)```", section("Trace JSON schema", DOCS / "trace-schema.md"), flags=re.S).group(1)


def test_the_trace_schema_names_every_field_of_a_trace(trace):
    named = set(re.findall(r"\b(\w+)[:\[]", schema_block()))  # at a line's start or after another field
    assert set(trace.to_dict()) <= named, set(trace.to_dict()) - named


def nested_keys(value, inside: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """The path of every dict key below the top level of a trace's JSON (a list read through its first item)."""
    if isinstance(value, list):
        return nested_keys(value[0], inside) if value else set()
    if not isinstance(value, dict):
        return set()
    found = {inside + (key,) for key in value} if inside else set()
    for key, item in value.items():
        found |= nested_keys(item, inside + (key,))
    return found


def test_the_trace_schema_names_every_nested_field_of_a_trace(trace):
    """Down to the top-k entries and the logit lens: every key of every object, except the model's config and
    the decoding options, which the schema names as a whole (the presets and `translate --help` list them)."""
    named = set(re.findall(r"\w+", schema_block()))
    as_a_whole = {("model", "config"), ("options",)}
    paths = {p for p in nested_keys(trace.to_dict()) if not any(p[: len(w)] == w and p != w for w in as_a_whole)}
    assert len(paths) > 30 and {("steps", "top_k", "prob"), ("logit_lens", "chosen_logits")} <= paths
    assert not [p for p in paths if p[-1] not in named], [".".join(p) for p in paths if p[-1] not in named]


def test_the_checkpoints_table_has_a_row_per_bundled_checkpoint(monkeypatch):
    from transformer_viz.app.models import HUB_MODEL_ENV, available_models

    monkeypatch.delenv(HUB_MODEL_ENV, raising=False)  # the bundled checkpoints only, as the model menu lists them
    bundled = available_models()
    rows = re.findall(r"^\| `(\w+)`", section("The models"), flags=re.M)
    assert bundled and sorted(rows) == sorted(bundled)


def test_a_missing_section_fails():
    with pytest.raises(AssertionError, match="no section"):
        section("No such section")
    with pytest.raises(AssertionError, match="command-line.md has no section"):
        section("Trace JSON schema", DOCS / "command-line.md")


def test_the_course_page_section_loads_the_gradio_the_space_runs():
    """The web component's script must be the Gradio the Space pins, and the section covers what a teacher needs."""
    course = section("In a course page", DOCS / "spaces.md")
    pin = re.search(r"^gradio==(\S+)$", (ROOT / "requirements.txt").read_text(), flags=re.M).group(1)
    assert re.findall(r"gradio\.s3[^\"]*/([\d.]+)/gradio\.js", course) == [pin]
    for needed in ("<iframe", "<gradio-app", "720", "Download lesson (HTML)", "5 MB", "48 hours", "focus"):
        assert needed in course, needed
