"""Imports run one way: each layer's modules, imported in a fresh interpreter with the forbidden modules
blocked, never reach for them. A failure names the module that made the forbidden import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "transformer_viz"

# Run in a fresh interpreter: a sys.meta_path finder refuses the forbidden modules and records who asked.
BLOCKER = r"""
import importlib, json, sys

rule = json.loads(sys.argv[1])


def matches(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def importer():
    frame = sys._getframe(2)  # past find_spec and importer()
    while frame and (frame.f_code.co_filename.startswith("<frozen") or frame.f_globals.get("__name__") == "importlib"):
        frame = frame.f_back  # the import machinery
    return frame.f_globals.get("__name__", "?") if frame else "?"


class Blocker:
    def find_spec(self, name, path=None, target=None):
        # The root package is every module's parent; its __init__ imports nothing (names load on first use).
        if name != "transformer_viz" and matches(name, rule["forbidden"]) and not matches(name, rule["allowed"]):
            violations.append(f"{importer()} imports {name}")
            raise ImportError(f"{name} is forbidden here ({rule['name']})")
        return None


violations = []
sys.meta_path.insert(0, Blocker())
for module in rule["modules"]:
    try:
        importlib.import_module(module)
    except Exception as err:
        if "is forbidden here" not in str(err):  # a forbidden import is already recorded, by its importer
            violations.append(f"{module} failed to import: {err!r}")
print(json.dumps(sorted(set(violations))))
"""


def modules(*subpackages: str, top_level: bool = False, exclude: tuple[str, ...] = ()) -> list[str]:
    """The package's modules in `subpackages` (every module when none is named), and its top-level ones."""
    found = []
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts  # ("transformer_viz", "model", "attention")
        sub = parts[1] if len(parts) > 2 else None  # None: a top-level module, or the package itself
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if sub in exclude:
            continue
        if (not subpackages and not top_level) or sub in subpackages or (top_level and sub is None):
            found.append(name)
    return found


def violations(rule: dict, path: Path = ROOT) -> list[str]:
    """Import every module of `rule` with its forbidden modules blocked; what each forbidden import was."""
    result = subprocess.run(
        [sys.executable, "-c", BLOCKER, json.dumps(rule)],
        cwd=path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys([str(path), str(ROOT)]))},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


THIRD_PARTY_UI = ["gradio", "plotly", "huggingface_hub", "sentencepiece", "safetensors"]
RULES = [
    dict(
        name="the model imports only torch, the standard library and transformer_viz.errors",
        modules=modules("model"),
        forbidden=[PACKAGE, *THIRD_PARTY_UI],
        allowed=[f"{PACKAGE}.model", f"{PACKAGE}.errors"],
    ),
    dict(
        name="figures read traces and arrays: no torch, no model, no gradio",
        modules=modules("figures"),
        forbidden=["torch", f"{PACKAGE}.model", "gradio"],
        allowed=[],
    ),
    dict(
        name="the catalogues' reader imports no torch, no gradio and no other layer",
        modules=modules("i18n"),
        forbidden=["torch", "gradio", PACKAGE],
        allowed=[f"{PACKAGE}.i18n", f"{PACKAGE}.errors"],
    ),
    dict(
        name="only the app imports gradio",
        modules=modules(exclude=("app",)),
        forbidden=["gradio"],
        allowed=[],
    ),
    dict(
        name="the library below the app never imports the app or the figures",
        modules=modules("lab", "training", "corpus", "hub", top_level=True),
        forbidden=[f"{PACKAGE}.app", f"{PACKAGE}.figures"],
        allowed=[],
    ),
]


def test_the_rules_cover_the_package():
    everything = set(modules())
    assert {f"{PACKAGE}.model.attention", f"{PACKAGE}.figures.heads", f"{PACKAGE}.i18n"} <= everything
    assert f"{PACKAGE}.app.page" not in RULES[3]["modules"] and f"{PACKAGE}.training.train" in RULES[3]["modules"]
    assert {f"{PACKAGE}.translator", f"{PACKAGE}.__main__", f"{PACKAGE}.errors"} <= set(RULES[4]["modules"])
    assert not {m for m in RULES[4]["modules"] if m.startswith((f"{PACKAGE}.app", f"{PACKAGE}.figures"))}


@pytest.mark.parametrize("rule", RULES, ids=[rule["name"] for rule in RULES])
def test_imports_run_one_way(rule):
    found = violations(rule)
    assert not found, f"{rule['name']}:\n" + "\n".join(found)


def test_a_forbidden_import_is_caught_and_named(tmp_path):
    (tmp_path / "probe_direct.py").write_text("import json\nfrom transformer_viz.model import config\n")
    (tmp_path / "probe_indirect.py").write_text("from transformer_viz.probes import interventions\n")
    rule = dict(
        name="probe", modules=["probe_direct", "probe_indirect"], forbidden=["torch", f"{PACKAGE}.model"], allowed=[]
    )
    found = violations(rule, tmp_path)
    assert "probe_direct imports transformer_viz.model" in found
    assert "transformer_viz.probes.interventions imports torch" in found  # the module that made it, not the probe
    assert violations(dict(rule, forbidden=["gradio"]), tmp_path) == []


# ---------------------------------------------------------------- the import graph, read from the source
# Every import statement counts, at the top of a module or inside a function: a lazy import that closes a loop
# is still a loop a reader has to untangle. Layers from the bottom up; a module imports only its own layer or
# those below it.
LAYERS = [
    ["errors", "i18n", "js"],  # the words and the errors that carry their keys; the browser's modules, read as text
    ["model"],  # ordinary PyTorch
    ["hub"],  # checkpoints on disk and on the Hub
    ["tokenizer", "decoding", "trace", "cleaning", "score"],  # what a translation is made of, what a score records
    ["probes"],  # hooks that record and change a run
    ["scoring"],  # a given German sentence forced as the output and scored
    ["translator"],  # the public API: load, translate, trace, score
    ["corpus"],  # the parallel data: Ding, the Debian corpus, the everyday set, the split
    ["training"],  # batches, the train loop, scoring
    ["lab"],  # experiments on a trained model
    ["figures"],  # Plotly figures of traces and arrays
    ["app", "__main__", "__init__"],  # the page and the command line; the package's lazy names
]


def layer_of(module: str) -> int:
    """The layer of a module of the package: its subpackage's, or its own name's at the top level."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else "__init__"
    return next(rank for rank, names in enumerate(LAYERS) if name in names)


def import_graph(root: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """{module: the package's modules it imports}, from every import statement of every module under root."""
    import ast

    paths = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for module, path in paths.items():
        here = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            else:
                continue
            found |= {t for t in targets if t in paths and t != module}
        graph[module] = found
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops: each strongly connected group of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
        for a, targets in graph.items()
        for b in targets
        if layer_of(b) > layer_of(a)
    )


def test_no_import_circles_and_none_running_back_up():
    graph = import_graph(ROOT)
    assert f"{PACKAGE}.probes.lens" in graph[f"{PACKAGE}.translator"]  # the reader sees the package's imports
    assert cycles(graph) == []
    assert upward_imports(graph) == []


def test_a_circle_and_an_upward_import_are_found(tmp_path):
    pkg = tmp_path / PACKAGE
    for folder in ("lab", "hub"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "translator.py").write_text("def run():\n    from .lab import replay\n")  # lazy, still counted
    (pkg / "lab" / "replay.py").write_text("from ..translator import run\n")
    (pkg / "hub" / "hub.py").write_text("from transformer_viz.hub import model\n")
    (pkg / "hub" / "model.py").write_text("import transformer_viz.hub.hub\n")
    graph = import_graph(tmp_path)
    assert sorted(cycles(graph)) == [
        [f"{PACKAGE}.hub.hub", f"{PACKAGE}.hub.model"],
        [f"{PACKAGE}.lab.replay", f"{PACKAGE}.translator"],
    ]
    assert upward_imports(graph) == [f"{PACKAGE}.translator (layer 6) imports {PACKAGE}.lab.replay (layer 9)"]


def test_no_module_outside_the_app_reads_the_apps_files_by_path():
    """A file read by its path is an import the graph above cannot see: the browser's modules, which the page and the
    lesson file both run, are one folder at the bottom of the stack (transformer_viz/js), not the app's."""
    import re

    readers = []
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT / PACKAGE).parts
        if parts[0] == "app":
            continue
        if re.search(r"""/\s*["']app["']""", path.read_text(encoding="utf-8")):
            readers.append(str(path.relative_to(ROOT)))
    assert readers == []
    from transformer_viz import js

    assert {p.name for p in js.FOLDER.glob("*.js")} >= {"stepping.js", "keys.js", "lesson-file.js", "page.js"}
