"""The catalogues against the code, read from the source: every key the code reads is in the English catalogue,
every English key is read by some code, and every translation fills the English text's placeholders.

A key is read where it is an argument of a function that takes one (READERS). The argument names its keys in the
source when it is a string literal, a list of (key, value) choices, a conditional between two keys, or a name,
f-string or sum over a loop's literal tuple (`for side in ("source", "target")`). Any other expression builds its key at
run time from a table of the code: each such site is listed in BUILT with the keys it can build, read from that
table, so a new site, or one gone, fails here until it is listed or removed.
"""

from __future__ import annotations

import ast
import string
import sys
from pathlib import Path

import pytest

from transformer_viz import i18n
from transformer_viz.app import common, handlers, tour
from transformer_viz.figures import UNITS, attention, attribution, lens, steps
from transformer_viz.figures.keys import KEYS_HELP, SPACE
from transformer_viz.lab.analysis import LABEL_NAMES
from transformer_viz.model.config import POSITIONAL_KINDS
from transformer_viz.probes.interventions import ABLATIONS, SEED_BUGS
from transformer_viz.trace import ATTENTION_KINDS

PACKAGE = Path(__file__).resolve().parents[1] / "transformer_viz"
ENGLISH = i18n.CATALOGUES[i18n.DEFAULT]

# name → (which positional argument is the key, the prefix the function puts before it)
READERS = {
    "text": (0, ""),  # i18n.text, and its alias T in the app's layout modules
    "T": (0, ""),
    "template": (0, ""),
    "t": (0, "fig-"),  # figures.words.t, and its alias figure_text in the app
    "figure_text": (0, "fig-"),
    "UserError": (0, ""),  # transformer_viz.errors, and the UserError of hub.hub
    "Notice": (0, ""),
    "CheckpointNotFound": (0, ""),
    "words": (2, ""),  # app.common.Words(component, attr, key)
    "tab": (1, ""),  # app.tabs: tab(words, key), kind_radio(words, key, value), explain(words, key)
    "kind_radio": (1, ""),
    "explain": (1, "explain-"),
    "slider": (2, ""),  # app.header.slider(words, option, key, ...)
}

FORWARDED = ()  # a function's own parameter, passed on: its callers' keys are read where they call it
TOURS = tour.packaged_tours().values()  # the packaged tours, whose texts are catalogue keys
PANELS = attribution.ATTENTION_PANELS + attribution.ATTRIBUTION_PANELS  # the attribution view's panels, each a method
INTERVENTIONS = [f"ablate_{a}" for a in ABLATIONS] + ["no_positions", "no_causal_mask", *SEED_BUGS]  # Intervention.keys
# (module, the key's expression) → every key it can build, from the table it builds them from
BUILT = {
    ("i18n/__init__.py", "key"): FORWARDED,  # template and text take the key they are given; message an error's
    ("errors.py", "key"): FORWARDED,  # english: a UserError's or Notice's own key
    ("figures/words.py", "'fig-' + key"): FORWARDED,
    ("app/common.py", "k"): FORWARDED,  # Words.updates: the keys registered with words(...)
    ("app/common.py", "key"): FORWARDED,
    ("app/tabs/__init__.py", "key"): FORWARDED,  # tab, kind_radio
    ("app/tabs/__init__.py", "f'explain-{key}'"): FORWARDED,  # explain
    ("app/header.py", "key"): FORWARDED,  # slider
    ("app/header.py", "lambda lang: model_choices(models, lang)"): FORWARDED,  # models.model_label reads its keys
    ("app/header.py", "keys_help"): FORWARDED,  # figures/keys.py reads its keys
    ("app/header.py", "guess_switch"): FORWARDED,  # figures/guess.py reads its keys
    ("figures/keys.py", "key"): [key for _, key in KEYS_HELP],  # the help panel's rows
    # the tour panel's words, and the packaged tours' titles and stops' texts (tours/*.json)
    ("app/tour.py", "key"): [*tour.WORDS, *(key for t in TOURS for key in tour.text_keys(t))],
    ("app/tour.py", "stop['text']"): [stop["text"] for t in TOURS for stop in t["stops"] if "text" in stop],
    ("figures/keys.py", "name"): [SPACE],  # the one key named by a word
    ("app/tabs/__init__.py", "f'kind-{k}'"): [f"kind-{k}" for k in handlers.KINDS],
    ("app/tabs/__init__.py", "[(f'kind-{k}', k) for k in KINDS]"): [f"kind-{k}" for k in handlers.KINDS],
    ("app/header.py", "k"): common.LOOK_KEYS,
    ("app/header.py", "list(zip(LOOK_KEYS, LOOKS))"): common.LOOK_KEYS,
    ("app/header.py", "f'units-{u}'"): [f"units-{u}" for u in UNITS],
    ("app/header.py", "[(f'units-{u}', u) for u in UNITS]"): [f"units-{u}" for u in UNITS],
    ("app/handlers.py", "key"): handlers.TOKEN_COLUMNS,
    ("app/handlers_lab.py", "f'iv-label-{key}'"): [f"iv-label-{name}" for name in INTERVENTIONS],
    ("app/handlers_lab.py", "f'iv-explain-{key}'"): [f"iv-explain-{name}" for name in INTERVENTIONS],
    ("app/tabs/experiments.py", "f'iv-label-{b}'"): [f"iv-label-{b}" for b in SEED_BUGS],
    ("app/tabs/experiments.py", "[(f'iv-label-{b}', b) for b in SEED_BUGS]"): [f"iv-label-{b}" for b in SEED_BUGS],
    ("app/models.py", "key"): [f"model-positions-{kind}" for kind in POSITIONAL_KINDS],
    ("app/models.py", "f'positional-{kind}'"): [f"fig-positional-{kind}" for kind in POSITIONAL_KINDS],
    ("figures/attention.py", "'kind-' + kind"): [f"fig-kind-{kind}" for kind in ATTENTION_KINDS],
    ("figures/attention.py", "KEY_TITLES[kind]"): [f"fig-{key}" for key in attention.KEY_TITLES.values()],
    ("figures/attention.py", "KEY_TITLES[kind] + '-words'"): [
        f"fig-{key}-words" for key in attention.KEY_TITLES.values()
    ],
    ("figures/attention.py", "QUERY_TITLES[kind] + ('-words' if words else '')"): [
        f"fig-{key}{end}" for key in attention.QUERY_TITLES.values() for end in ("", "-words")
    ],
    ("figures/attribution.py", "f'attr-panel-{name}'"): [f"fig-attr-panel-{name}" for name in PANELS],
    ("figures/attribution.py", "f'attr-method-{name}'"): [f"fig-attr-method-{name}" for name in PANELS],
    ("figures/attribution.py", "f'attr-method-{m}'"): [f"fig-attr-method-{m}" for m in attribution.METHODS],
    ("figures/heads.py", "'label-' + label"): [f"fig-label-{name}" for name in LABEL_NAMES],
    ("figures/heads.py", "'label-short-' + head['label']"): [f"fig-label-short-{name}" for name in LABEL_NAMES],
    ("figures/lens.py", "SUBLAYERS[sublayer]"): [f"fig-{key}" for key in lens.SUBLAYERS.values()],
    ("figures/replay.py", "name.replace('_', '-')"): ["fig-train-loss", "fig-valid-loss"],  # its loop's curves
    ("figures/steps.py", "'edges-' + name"): [f"fig-edges-{name}" for name in steps.EDGE_LINES],
    ("figures/steps.py", "'nodes-' + name"): [f"fig-nodes-{name}" for name in steps.NODE_COLOURS],
}


def loop_values(name: ast.Name, parents: dict) -> list[str] | None:
    """The strings `name` takes in the loop around it that binds it from a literal tuple (`for side, ids in
    (("source", a), ("target", b))` binds side to both); None where nothing around it does."""
    node = name
    while node in parents:
        node = parents[node]
        loops = getattr(node, "generators", [node])  # a comprehension's loops, or the node itself
        for loop in loops:
            if not isinstance(loop, ast.For | ast.comprehension) or not isinstance(loop.iter, ast.Tuple | ast.List):
                continue
            if isinstance(loop.target, ast.Name) and loop.target.id == name.id:
                items = loop.iter.elts
            elif isinstance(loop.target, ast.Tuple) and name.id in [getattr(e, "id", None) for e in loop.target.elts]:
                at = [getattr(e, "id", None) for e in loop.target.elts].index(name.id)
                items = [item.elts[at] if isinstance(item, ast.Tuple) else item for item in loop.iter.elts]
            else:
                continue
            values = [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)]
            return values if len(values) == len(items) else None
    return None


def literal_keys(node: ast.expr, parents: dict) -> list[str] | None:
    """The keys an argument names in the source (module doc); None for one that builds its key at run time."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Constant) and node.value is None:
        return []  # a text the registry builds itself (Words' "title")
    if isinstance(node, ast.Name):
        return loop_values(node, parents)
    if isinstance(node, ast.JoinedStr):  # f"whatif-{which}": each literal part, each loop value of the name
        keys = [""]
        for part in node.values:
            named = literal_keys(part.value, parents) if isinstance(part, ast.FormattedValue) else [part.value]
            if named is None or (isinstance(part, ast.FormattedValue) and (part.format_spec or part.conversion > 0)):
                return None
            keys = [key + end for key in keys for end in named]
        return keys
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # "side-" + side
        left, right = literal_keys(node.left, parents), literal_keys(node.right, parents)
        return None if left is None or right is None else [a + b for a in left for b in right]
    if isinstance(node, ast.IfExp):
        body, orelse = literal_keys(node.body, parents), literal_keys(node.orelse, parents)
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.List | ast.Tuple) and all(isinstance(e, ast.Tuple) and e.elts for e in node.elts):
        firsts = [literal_keys(e.elts[0], parents) for e in node.elts]
        return None if None in firsts else [key for keys in firsts for key in keys]
    return None


def key_arguments():
    """(module, key argument, the reader's prefix, the module's parent of each node) of every call of a READERS
    function in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in READERS and len(node.args) > READERS[name][0]:
                yield module, node.args[READERS[name][0]], READERS[name][1], parents


def keys_read() -> tuple[set[str], set[tuple[str, str]]]:
    """(every key the code reads, the sites that build theirs at run time)."""
    keys, built = {i18n.NAME}, set()  # the language menu reads each catalogue's name
    for module, argument, prefix, parents in key_arguments():
        found = literal_keys(argument, parents)
        if found is None:
            built.add((module, ast.unparse(argument)))
        else:
            keys |= {prefix + key for key in found}
    return keys | {key for site in built if site in BUILT for key in BUILT[site]}, built


def test_every_site_that_builds_a_key_is_listed_with_its_table():
    _, built = keys_read()
    assert sorted(built - set(BUILT)) == [], "list each new site in BUILT, with the table its keys come from"
    assert sorted(set(BUILT) - built) == [], "these sites are gone from the code: remove them from BUILT"


def test_every_key_the_code_reads_is_in_the_english_catalogue():
    keys, _ = keys_read()
    assert len(keys) > 400
    assert sorted(keys - set(ENGLISH)) == []


def test_every_english_key_is_read_by_the_code():
    keys, _ = keys_read()
    assert sorted(set(ENGLISH) - keys) == []


def test_a_key_the_code_lacks_and_one_it_never_reads_are_found(tmp_path, monkeypatch):
    module = tmp_path / "transformer_viz"
    module.mkdir()
    (module / "page.py").write_text(
        'T("no-such-key")\nt(f"kind-{k}")\nwords(box, "choices", [("ablation-zero", 0)])\n'
        'rows = [text(f"tokens-{side}") for side, ids in (("source", a), ("target", b))]\n'
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", module)
    keys, built = keys_read()
    assert {"no-such-key", "ablation-zero", "tokens-source", "tokens-target"} <= keys
    assert "ablation-mean" not in keys and "fig-kind-cross" not in keys
    assert built == {("page.py", "f'kind-{k}'")}


def placeholders(template: str) -> list[tuple[str, str | None, str | None]]:
    """Each {name!conversion:spec} of a template, sorted: a translation must fill the same ones the same way."""
    return sorted((name, conv, spec or None) for _, name, spec, conv in string.Formatter().parse(template) if name)


@pytest.mark.parametrize("lang", sorted(i18n.CATALOGUES))
def test_every_translation_has_the_english_texts_placeholders(lang):
    catalogue = i18n.CATALOGUES[lang]
    assert sorted(set(catalogue) - set(ENGLISH)) == [], f"{lang} translates keys English does not have"
    differ = [key for key, text in catalogue.items() if placeholders(text) != placeholders(ENGLISH[key])]
    assert differ == [], f"{lang} fills other placeholders than English"
