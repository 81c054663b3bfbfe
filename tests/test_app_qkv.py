"""The "One query in numbers" tab in Chromium at 1280×720: drawn after a translation at the page's step, its text
inside its SVG in both looks, a click on a key opening q ∘ k, and its explanation and figures in Japanese and Korean.
Each test puts the module's page on the lesson it starts from (tests/pages.py: start_lesson).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.pages import (
    WAIT,
    escaped,
    expected_trace,
    open_tab,
    screenshot,
    toasts,
    wait_plot,
    wait_step,
)
from tests.test_figures_fit import misfits, report, settled
from transformer_viz import i18n
from transformer_viz.figures import query_numbers
from transformer_viz.figures.style import style
from transformer_viz.translator import load_model

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "The cat sleeps on the sofa."
SCORES = """name => {
    const el = document.querySelector('#plot-qkv .js-plotly-plot');
    return Array.from(el._fullData.find(d => d.name === name).z[1]);
}"""


def fits(page, plot_id: str, presentation: bool) -> None:
    drawn = settled(page, plot_id, style(presentation).font_size)
    assert drawn["texts"], f"{plot_id} shows no text"
    assert not (found := misfits(drawn)), report({plot_id: found})


def click_key(page, key: int, n_keys: int) -> None:
    """Click key `key`'s column in the K panel (the third panel: x3y3)."""
    keys = page.locator("#plot-qkv .nsewdrag").nth(2)
    keys.scroll_into_view_if_needed()  # under the explanation: below a 720 px screen's fold
    box = keys.bounding_box()
    page.mouse.click(box["x"] + box["width"] * (key + 0.5) / n_keys, box["y"] + box["height"] / 2)


def test_one_query_at_the_pages_step_in_both_looks_and_a_key_clicked(lesson, app_server):
    trace = expected_trace(load_model(app_server[1] / "seed000", device="cpu"), SENTENCE)
    page = lesson(fresh=True)  # a page whose Beyond tabs were never opened, its translation at rest
    assert len(trace.target_ids) >= 3, "the test steps twice"
    # a step moved while the tab is hidden is shown once the tab opens, also the first time it opens (the view was
    # drawn at step 0 by the translation: a tab Gradio had not yet mounted kept that drawing)
    page.fill("#step-slider input[type=number]", "1")
    page.press("#step-slider input[type=number]", "Enter")
    wait_step(page, 1)
    open_tab(page, "qkv")
    info = wait_plot(page, "plot-qkv", "One query in numbers", "Layer 0", "Head 0", "step 1")
    assert escaped(trace.source_tokens) in info["ticks"], f"the keys are not the source tokens: {info['ticks']}"
    scaled = page.evaluate(SCORES, "scores")  # the q·k_j ÷ √d_head row under the keys, as the page holds it
    np.testing.assert_allclose(scaled, query_numbers(trace, "cross", 0, 0, 1).scaled, atol=1e-4)
    fits(page, "plot-qkv", presentation=False)
    screenshot(page, "#tab-qkv", "qkv.png")
    # the last key that cross- and decoder self-attention both have: the view stays open when the kind changes
    key = min(len(trace.source_tokens), len(trace.decoder_input_tokens)) - 1
    click_key(page, key, len(trace.source_tokens))
    wait_plot(page, "plot-qkv-key", f"q ∘ k for key {key} ", "step 1")
    fits(page, "plot-qkv-key", presentation=False)
    page.click("#step-next")  # with the tab open, the page's Next moves both views
    wait_plot(page, "plot-qkv", "step 2")
    wait_plot(page, "plot-qkv-key", f"q ∘ k for key {key} ", "step 2")
    page.get_by_role("radio", name="decoder self", exact=True).check()
    wait_plot(page, "plot-qkv", "Decoder self-attention")
    slides = i18n.text("look-png", "en")  # the radio's label; its value is the look's name
    page.get_by_role("radio", name=slides, exact=True).check()  # slides: both views again, in large type
    page.wait_for_function(
        "() => document.querySelector('#plot-qkv .js-plotly-plot').layout.font.size === 20", timeout=WAIT
    )
    fits(page, "plot-qkv", presentation=True)
    fits(page, "plot-qkv-key", presentation=True)
    assert not toasts(page), toasts(page)


@pytest.mark.parametrize("lang, title", [("ja", "1 つのクエリを数値で"), ("ko", "쿼리 하나를 숫자로")])
def test_the_explanation_and_the_figures_speak_the_language(lesson, app_server, lang, title):
    trace = expected_trace(load_model(app_server[1] / "seed000", device="cpu"), SENTENCE)
    page = lesson(step=1, tab="tab-qkv")
    wait_plot(page, "plot-qkv", "One query in numbers", "step 1")
    fits(page, "plot-qkv", presentation=False)  # drawn and at rest: a click now lands on its keys
    click_key(page, 0, len(trace.source_tokens))  # both figures, before the language changes
    wait_plot(page, "plot-qkv-key", "q ∘ k for key 0 ", "step 1")
    page.get_by_label(i18n.LANGUAGES[lang]).check()
    explanation = i18n.text("explain-qkv", lang)[:20]
    page.wait_for_function(
        "t => document.querySelector('#tab-qkv').innerText.includes(t)", arg=explanation, timeout=WAIT
    )
    wait_plot(page, "plot-qkv", title)
    wait_plot(page, "plot-qkv-key", title)
    assert page.locator("#tab-qkv-button").inner_text() == i18n.text("tab-qkv", lang)
