"""The "Tokens: pieces / words" switch in Chromium: the main map's ticks become words, stay words on the next
step, and go back to pieces. Same server as test_app_browser.py (two tiny random checkpoints)."""

from __future__ import annotations

import pytest

from tests.pages import SENTENCE, escaped, expected_trace, open_app, wait_plot, wait_step, wait_ticks, wait_translation
from transformer_viz.figures import esc
from transformer_viz.lab.analysis import word_labels, word_spans
from transformer_viz.translator import load_model

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(browser, app_server):
    context, page = open_app(browser, app_server[0], viewport={"width": 1400, "height": 1000})
    yield page
    context.close()


def test_switching_to_words_relabels_the_main_map(page, app_server):
    _, folder = app_server
    translator = load_model(folder / "seed000", device="cpu")
    trace = expected_trace(translator)
    pieces = escaped(trace.source_tokens)
    words = [esc(w) for w in word_labels(trace.source_tokens, word_spans(trace.source_tokens))]
    assert words != pieces, "the sentence has a word of several pieces"
    page.fill("#sentence textarea", SENTENCE)
    page.click("#translate")
    wait_translation(page, trace.target_text)
    wait_ticks(page, "plot-cross", pieces)
    assert page.locator("#units input:checked").get_attribute("value") == "pieces"

    page.get_by_role("radio", name="words", exact=True).check()
    info = wait_ticks(page, "plot-cross", words)
    assert pieces not in info["ticks"] and "· words" in info["title"]
    page.click("#step-next")  # a step redraws the map in the units chosen
    wait_step(page, 1)
    assert words in wait_plot(page, "plot-cross", "step 1:", "· words")["ticks"]

    page.get_by_role("radio", name="pieces", exact=True).check()
    assert "· words" not in wait_ticks(page, "plot-cross", pieces)["title"]
