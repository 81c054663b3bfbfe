"""The page's browser code under Node's own test runner (tests/js/*.test.js): its modules alone, no browser.

The frames, the variants and the change format are the server's: this file draws them from a tiny model (and the
frames the server draws for every layer and head, which the browser must make alike), writes them as fixtures, and
the JavaScript tests read them (TRANSFORMER_VIZ_JS_FIXTURES), so both sides are tested on one definition.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_tour import BAD_STOPS
from tests.tiny import tiny_translator
from transformer_viz import figures
from transformer_viz.app import handlers as h
from transformer_viz.app import stepping, tour
from transformer_viz.app.common import LOOKS, plot
from transformer_viz.app.frames import N_OUT, lesson_frame, shown_key, step_frames, variants
from transformer_viz.app.registry import PLOTS
from transformer_viz.app.session import Session
from transformer_viz.figures.changes import json_changes, step_changes
from transformer_viz.figures.narrow import NARROW_PX, drawn
from transformer_viz.figures.views import PHONE_FIT_PX

JS_TESTS = Path(__file__).parent / "js"
CONTROLS = (1, "2", LOOKS[0], "en", "pieces")  # the layer, head, look, language and units the frames are drawn at

# Values and the change that turns the first into the second, beyond the real figures' changes below.
CHANGES = [
    ({"x": 1, "y": 2}, {"x": 3}),
    ({"x": {"y": [1, 2]}}, {"x": {"y": [1, 3], "z": None}}),
    ([{"a": 1}, {"a": 2}], [{"a": 1}]),
    ([{"a": 1}], [{"a": 2}, {"b": 1}]),
    ([1, 2], "text"),
    ({"k": [{"a": [1, {"b": 2}]}]}, {"k": [{"a": [1, {"b": 3, "c": [4]}]}, {"d": 5}]}),
]


def write_fixtures(folder: Path) -> None:
    """The server's side of what the browser code reads, drawn from a tiny model, as JSON files in `folder`."""
    sess = Session(tiny_translator(max_len=8).trace("I see the house."), "tiny-seed000", {})
    lay, hd, pres, lng, unt = CONTROLS
    lesson = lesson_frame(sess, 0, *CONTROLS)  # in the order the server sends them: the lesson's frame first
    complete = step_frames(sess, 0, *CONTROLS)
    later = step_frames(sess, 0, *CONTROLS)  # newer frames of the same view
    combos = [(layer, head) for layer in range(sess.trace.n_layers) for head in ["mean", "0", "1", "2", "3"]]
    drawn_for = {f"{layer}/{head}": step_frames(sess, 0, layer, head, pres, lng, unt) for layer, head in combos}
    served = {combo: frames["plots"] for combo, frames in drawn_for.items()}
    served_alt = {combo: frames["alt"] for combo, frames in drawn_for.items()}  # the step's text alternatives
    changes = [[a, b, json_changes(a, b)] for a, b in CHANGES]
    # a real plot's drawing changed step after step, as the variants send it
    cross = complete["plots"][complete["ids"].index("plot-cross")]
    drawn = step_frames(sess, 0, 0, "0", pres, lng, unt)["plots"][complete["ids"].index("plot-cross")]
    figures = [json.loads(cross[0]), *map(json.loads, drawn)]
    changes += [[a, b, change] for a, b, change in zip(figures, figures[1:], step_changes(cross, drawn))]
    fixtures = {
        "narrow.json": narrow_fixture(),
        "changes.json": changes,
        "frames.json": dict(
            view=dict(zip(("layer", "head", "presentation", "lang", "units"), CONTROLS)),
            shown=shown_key(sess, lng),
            outputs=N_OUT,
            complete=complete,
            lesson=lesson,
            later=later,
            variants=variants(sess, 0, lay, hd, pres, lng, unt),
            served=served,
            served_alt=served_alt,
        ),
        "start.json": stepping.start_config(),
        "tour.json": tour_fixture(),
    }
    for name, value in fixtures.items():
        (folder / name).write_text(json.dumps(value), encoding="utf-8")


def tour_fixture() -> dict:
    """What the page hands js/tour.js: the rules, the packaged tours and the words, from the server's definitions."""
    tours = tour.packaged_tours()
    return dict(rules=tour.rules(), tours=tours, words=tour.page_words(tours), bad_stops=BAD_STOPS)


def narrow_fixture() -> dict:
    """The lesson's map of a long sentence as the page receives it, carrying its drawing for a phone's box; and that
    drawing as the builder makes it (figures/narrow.py: drawn), with the width below which the page takes it."""
    trace = tiny_translator(max_len=24).trace("my brother and my sister want the garden, a cat and the house.")
    (cross,) = [p for p in PLOTS if p.id == "plot-cross"]
    wide = h.view_figures([cross], trace, step=1)[cross.id]
    phone = figures.attention_head(trace, "cross", 0, "mean", step=1, fit_px=PHONE_FIT_PX, width=NARROW_PX)
    return dict(
        wide=plot(wide, LOOKS[0], fit=True).plot, narrow=drawn(phone), below=wide.layout.meta["narrow"]["below"]
    )


def test_the_browser_modules_pass_their_node_tests(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the browser modules' own tests need `node --test`")
    files = sorted(JS_TESTS.glob("*.test.js"))
    assert files, "no browser module tests found"
    write_fixtures(tmp_path)
    env = {**os.environ, "TRANSFORMER_VIZ_JS_FIXTURES": str(tmp_path)}
    run = subprocess.run([node, "--test", *map(str, files)], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout
    assert "# skipped 0" in run.stdout, "a test skipped: the fixtures did not reach it"
