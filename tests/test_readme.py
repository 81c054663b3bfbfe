"""The README's Python examples import what they say: every import line of its code blocks runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_imports() -> list[str]:
    """Every `import …` / `from … import …` line of transformer_viz in the README's python code blocks."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if re.match(r"(from|import) transformer_viz\b", line)]


def test_the_readme_shows_imports_of_the_library():
    assert len(readme_imports()) >= 2  # the Library section's examples


def test_every_import_line_of_the_readme_runs():
    script = "\n".join(readme_imports())
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=README.parent)
    assert done.returncode == 0, f"{script}\n{done.stderr}"


def test_a_missing_name_would_fail():
    done = subprocess.run(
        [sys.executable, "-c", "from transformer_viz import no_such_name"], capture_output=True, text=True
    )
    assert done.returncode != 0 and "no_such_name" in done.stderr
