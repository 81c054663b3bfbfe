"""The side-by-side tab in Chromium at 1280×720, in Japanese: both models' translations, maps and top-k, stepped
together; the model with fewer layers held to its last. Expected values come from the library. Each test opens
the comparison it starts from on the module's page (tests/pages.py: start_lesson), so they pass in any order."""

from __future__ import annotations

import pytest

from tests.pages import (
    SCREENSHOTS,
    WAIT,
    expected_trace,
    lesson_link,
    open_app_page,
    start_lesson,
    wait_plot,
)
from tests.test_figures_fit import misfits, report, settled
from transformer_viz import figures, i18n
from transformer_viz.app.models import model_label
from transformer_viz.app.tabs.beyond_compare import COLUMN_PX
from transformer_viz.figures.style import style
from transformer_viz.translator import load_model

pytestmark = pytest.mark.browser
LANG = "ja"
PAIR = ("seed000", "seed004")  # the test checkpoints: seed004 has one layer and two heads


@pytest.fixture(scope="module")
def page(browser, app_server):
    url, _ = app_server
    context, page = open_app_page(browser, url, "ja-JP", {"width": 1280, "height": 720})
    yield page
    context.close()


@pytest.fixture(scope="module")
def traces(app_server):
    _, folder = app_server
    return {name: expected_trace(load_model(folder / name, device="cpu")) for name in PAIR}


def titles(trace, step: int, layer: int) -> tuple[str, str]:
    """The cross-attention grid's and the top-k's titles the tab shows for a model at `step` and `layer`."""
    with figures.language(LANG):
        grid = figures.attention_grid(trace, "cross", layer, step=step, width=COLUMN_PX)
        return grid.layout.title.text, figures.topk_bar(trace, step).layout.title.text


def wait_translations(page, traces) -> None:
    """Each model's box shows its translation."""
    for i, trace in enumerate(traces.values()):
        page.wait_for_function(
            "([id, text]) => document.querySelector(`#${id} textarea`).value === text",
            arg=[f"compare-translation-{i}", trace.target_text],
            timeout=WAIT,
        )


def wait_models_at(page, traces, step: int, layer: int) -> None:
    for i, trace in enumerate(traces.values()):
        layer_shown = min(layer, trace.n_layers - 1)
        grid, topk = titles(trace, min(step, len(trace.target_ids) - 1), layer_shown)
        wait_plot(page, f"compare-cross-{i}", grid)
        wait_plot(page, f"compare-topk-{i}", topk)


def held_note(traces, step: int, layer: int) -> str:
    """What the note says at `step` and `layer`: each model held at its last step or layer, in order.

    The tiny test checkpoints write as many tokens as each other, and seed004 has one layer; the shipped ones
    (README screenshots) have three layers each.
    """
    said = []
    for name, trace in traces.items():
        label, steps, layers = model_label(name, LANG), len(trace.target_ids), trace.n_layers
        if step >= steps:
            said.append(i18n.text("compare-clamped", LANG, model=label, n=steps, last=steps - 1))
        if layer >= layers:
            said.append(i18n.text("compare-layer-clamped", LANG, model=label, n=layers, last=layers - 1))
    return " ".join(said)


def compare(page, app_server, traces) -> None:
    """The page opened afresh on SENTENCE's lesson in Japanese (no comparison yet), its side-by-side tab run: both
    models at step 0, layer 0."""
    start_lesson(page, lesson_link(app_server[0], lang=LANG, tab="tab-compare-models"), fresh=True)
    assert page.locator("#tab-compare-models").inner_text().count(i18n.text("explain-compare-models", LANG)[:10]) == 1
    for i, name in enumerate(PAIR):  # each box is labelled with its model before anything is compared
        page.wait_for_function(
            "([id, label]) => document.querySelector('#' + id).innerText.includes(label)",
            arg=[f"compare-translation-{i}", model_label(name, LANG)],
            timeout=WAIT,
        )
    page.click("#compare-run")
    wait_translations(page, traces)
    wait_models_at(page, traces, 0, 0)


def test_both_models_side_by_side_stepped_together(page, app_server, traces):
    compare(page, app_server, traces)
    # the two models' columns side by side, inside the 1280 px page
    boxes = [page.locator(f"#compare-cross-{i}").bounding_box() for i in range(2)]
    assert boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"] and boxes[1]["x"] + boxes[1]["width"] <= 1280
    page.fill("#compare-step input[type=number]", "3")
    page.press("#compare-step input[type=number]", "Enter")
    wait_models_at(page, traces, 3, 0)
    assert page.locator("#compare-note").inner_text().strip() == held_note(traces, 3, 0)
    page.fill("#layer input[type=number]", "1")  # the page's layer: the tiny seed004 has only layer 0
    page.press("#layer input[type=number]", "Enter")
    wait_models_at(page, traces, 3, 1)
    page.wait_for_function(
        "t => document.querySelector('#compare-note').innerText.trim() === t", arg=held_note(traces, 3, 1), timeout=WAIT
    )
    font = style(False).font_size
    found = {
        i: misfits(settled(page, i, font)) for i in [f"compare-{v}-{n}" for v in ("cross", "topk") for n in (0, 1)]
    }
    found = {plot_id: problems for plot_id, problems in found.items() if problems}
    assert not found, report(found)  # every text inside its figure, none on another, in the half-page columns
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#compare-models").screenshot(path=str(SCREENSHOTS / "compare-models.png"), animations="disabled")


def test_an_open_comparison_follows_the_next_translation(page, app_server, traces):
    _, folder = app_server
    compare(page, app_server, traces)
    page.fill("#compare-step input[type=number]", "3")
    page.press("#compare-step input[type=number]", "Enter")
    page.fill("#layer input[type=number]", "1")
    page.press("#layer input[type=number]", "Enter")
    wait_models_at(page, traces, 3, 1)
    sentence = "We need a train station."
    before = traces
    traces = {name: expected_trace(load_model(folder / name, device="cpu"), sentence) for name in PAIR}
    assert all(traces[name].target_text != before[name].target_text for name in PAIR)  # else nothing would show
    page.fill("#sentence textarea", sentence)
    page.click("#translate")
    wait_translations(page, traces)
    wait_models_at(page, traces, 3, 1)  # at the step and layer it was at
