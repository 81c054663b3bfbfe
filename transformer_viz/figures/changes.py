"""Changes between JSON values: what the browser is sent to turn a figure it holds into another; and what a set of
frames is drawn for (frame_key), which the browser compares with its controls.

The variants (a new layer or head drawn in the page) and the lesson file send a plot's drawing at every step as
changes: a cross-attention head's heatmap once, then each step's moved outline and title. The browser makes them
with applyChange (js/stepping.js); tests/test_js.py checks that both sides agree.
"""

from __future__ import annotations

import json


def frame_key(lay, hd, pres, lng, unt) -> str:
    """What frames were drawn for: [layer, head, look, language, units], as js/stepping.js's frameKey writes it."""
    return json.dumps([int(lay), str(hd), str(pres), str(lng), str(unt)], separators=(",", ":"))


def json_changes(a, b):
    """What turns JSON value a into b, or None where they are equal: {key: change} for two objects (["-"] where a
    key goes), ["[", {index: change}, length] for two lists that hold objects or lists (the items past a's end
    set, the list cut or grown to b's length), else ["=", b]."""
    if a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        out = {}
        for key in [*a, *(key for key in b if key not in a)]:
            change = ["-"] if key not in b else ["=", b[key]] if key not in a else json_changes(a[key], b[key])
            if change is not None:
                out[key] = change
        return out
    if isinstance(a, list) and isinstance(b, list) and any(isinstance(x, (dict, list)) for x in a + b):
        changed = {str(i): json_changes(a[i], y) if i < len(a) else ["=", y] for i, y in enumerate(b)}
        return ["[", {i: change for i, change in changed.items() if change is not None}, len(b)]
    return ["=", b]


def step_changes(frames: list, drawn: list) -> list:
    """A plot's drawing at every step as changes: step 0's to the frames' step 0, each later step's to the one before
    (a cross-attention head's heatmap is sent once; each step moves the outline and the title)."""
    figures = [None if text is None else json.loads(text) for text in drawn]
    first = None if frames[0] is None else json.loads(frames[0])
    return [json_changes(before, after) or {} for before, after in zip([first, *figures[:-1]], figures)]
