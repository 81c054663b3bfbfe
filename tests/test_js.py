"""The page's browser code under Node's own test runner (tests/js/*.test.js): pure functions, no browser."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).parent / "js"


def test_the_browser_modules_pass_their_node_tests():
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the browser modules' own tests need `node --test`")
    files = sorted(JS_TESTS.glob("*.test.js"))
    assert files, "no browser module tests found"
    run = subprocess.run([node, "--test", *map(str, files)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout
