"""The lesson file: one HTML page that steps through a translation with no server (figures/lesson.py).

Its data, words and size are checked here; Chromium then opens it from the disk with the network cut, steps,
switches layer and head, clicks a token, and sees the map follow each time.
"""

from __future__ import annotations

import json
import re

import plotly
import pytest

from tests.tiny import EVIL, tiny_tokenizer_file, tiny_translator, with_evil_tokens
from transformer_viz import i18n
from transformer_viz.__main__ import main
from transformer_viz.app.tour import BUILTIN, lesson_stops, read_tour
from transformer_viz.figures.keys import keys_help
from transformer_viz.figures.lesson import lesson, lesson_data, step_line
from transformer_viz.hub.hub import save_checkpoint


@pytest.fixture(scope="module")
def long_trace():
    """A translation of 20 target tokens or more (the random tiny model runs on to its length limit)."""
    trace = tiny_translator(max_len=22).trace("my brother wants a cat and the dog sees the garden.")
    assert len(trace.target_ids) >= 20
    return trace


@pytest.fixture(scope="module")
def page_file(tmp_path_factory, long_trace):
    path = tmp_path_factory.mktemp("lesson") / "lesson.html"
    lesson(long_trace, path, layer=1, head="2")
    return path


def data_of(page: str) -> dict:
    """The lesson data a page holds."""
    text = re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(text.replace("<\\/", "</"))


def test_the_file_holds_every_step_and_every_layer_and_head(long_trace, page_file):
    data = data_of(page_file.read_text(encoding="utf-8"))
    frames, variants, steps = data["frames"], data["variants"], len(long_trace.target_ids)
    assert frames["steps"] == steps and all(len(plot) == steps for plot in frames["plots"])
    assert len(frames["label"]) == len(frames["strip"]) == steps
    assert frames["key"] == json.dumps([1, "2", "screen", "en", "pieces"], separators=(",", ":"))
    assert (frames["layers"], frames["heads"]) == (long_trace.n_layers, long_trace.n_heads)  # for the keys
    combos = {f"{layer}/{head}" for layer in range(long_trace.n_layers) for head in data["heads"]}
    assert set(variants["keys"][0]) == combos and data["heads"] == ["mean", "0", "1", "2", "3"]
    # every combination but the frames' own comes as changes, one per step; the top-k chart follows no head
    assert set(variants["patches"][0]) == combos - {"1/2"}
    assert all(len(changes) == steps for changes in variants["patches"][0].values())
    assert variants["keys"][1] is None and variants["patches"][1] is None
    first = json.loads(frames["plots"][0][3])
    assert "Layer 1" in first["layout"]["title"]["text"] and "step 3" in first["layout"]["title"]["text"]


def test_the_file_needs_nothing_from_outside(page_file, long_trace):
    page = page_file.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", page)  # every script inline, nothing fetched
    assert f"plotly.js v{plotly.offline.get_plotlyjs_version()}" in page
    assert "function framesFor(" in page and "function openLesson(" in page  # the page's own stepping module
    assert len(page.encode()) < 8_000_000, "a 20-token translation's lesson stays under 8 MB"


def test_the_step_line_shows_pieces_as_the_axes_do_and_tokens_as_text(trace):
    evil = with_evil_tokens(trace)
    lines = [step_line(evil, t) for t in range(len(evil.target_ids))]
    assert any("&lt;" in line for line in lines) and not any(EVIL in line for line in lines)
    assert all("<b>" in line and "▁" not in line and "**" not in line for line in lines)
    assert "<b>" in step_line(trace, 0, "ko") and "<strong>" not in step_line(trace, 0, "ko")
    assert step_line(trace, 0, "ja").startswith("ステップ 0")


def test_the_lesson_speaks_the_visitors_language(trace):
    data, english = lesson_data(trace, "ja"), lesson_data(trace, "en")
    assert data["words"] == {key: i18n.text(key, "ja") for key in english["words"]} != english["words"]
    assert data["frames"]["label"][0].startswith("ステップ 0") and data["frames"]["play"] == i18n.text("play", "ja")
    assert data["view"]["lang"] == "ja" and json.loads(data["frames"]["key"])[3] == "ja"


def test_the_file_has_the_presenters_keys_and_says_them_in_its_language(trace):
    page = lesson(trace, lang="ko")
    assert "function keyAction(" in page  # the page's own keys module
    assert keys_help("ko") in page and i18n.text("keys-play", "ko") in keys_help("ko")
    assert keys_help("en") not in page


def test_a_head_or_layer_the_model_lacks_is_refused(trace):
    with pytest.raises(ValueError, match="head must be in 0..3"):
        lesson_data(trace, head="x")
    with pytest.raises(ValueError, match="layer"):
        lesson_data(trace, layer=7)


def test_the_command_line_writes_a_lesson(tmp_path, capsys):
    model = save_checkpoint(tmp_path / "tiny", tiny_translator().model, tiny_tokenizer_file())
    out = tmp_path / "mine.html"
    assert main(["lesson", "I see the house.", "--model", str(model), "--out", str(out), "--max-new-tokens", "5"]) == 0
    assert data_of(out.read_text(encoding="utf-8"))["frames"]["steps"] <= 5
    assert "lesson written to" in capsys.readouterr().err
    assert main(["lesson", "I see.", "--model", str(model), "--out", str(out), "--head", "9"]) == 2
    assert capsys.readouterr().err.startswith("error: head must be in")


@pytest.mark.browser
def test_the_file_steps_offline_in_a_browser(browser, page_file):
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 720})
    asked = []
    context.route("**/*", lambda route: (asked.append(route.request.url), route.continue_()))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(page_file.as_uri())
        page.wait_for_function("() => !!document.querySelector('#lesson-cross .main-svg')", timeout=20_000)
        title = "() => document.querySelector('#lesson-cross').layout.title.text"
        assert "Layer 1 · Head 2" in page.evaluate(title) and "step 0:" in page.evaluate(title)
        page.click("#step-next")
        assert "step 1:" in page.evaluate(title)
        assert page.inner_text("#step-label").startswith("Step 1 (token 2 of")
        page.select_option("#layer", "0")
        page.select_option("#head", "mean")
        assert "Layer 0 · Head mean" in page.evaluate(title) and "step 1:" in page.evaluate(title)
        page.click('#token-strip [data-step="4"]')
        assert "step 4:" in page.evaluate(title)
        assert page.evaluate("() => document.querySelector('#step-slider').value") == "4"
        page.keyboard.press("ArrowLeft")
        assert "step 3:" in page.evaluate(title)
        topk = "() => document.querySelector('#lesson-topk').layout.title.text"
        assert page.evaluate(topk).startswith("Step 3:")
    finally:
        context.close()
    assert errors == []
    assert all(url.startswith("file:") for url in asked), asked  # nothing asked of any network


def builtin_on(trace, lang: str = "ja") -> list[dict]:
    """The built-in tour's stops on `trace`'s sentence, in `lang`, as the lesson file holds them."""
    return lesson_stops(read_tour(BUILTIN), trace, lang)


def test_a_tours_stops_on_the_files_own_sentence_go_into_it(tmp_path, capsys):
    builtin = read_tour(BUILTIN)
    sentence = builtin["stops"][0]["view"]["sentence"]
    trace = tiny_translator(max_len=8).trace(sentence)
    stops = builtin_on(trace)
    own = [s for s in builtin["stops"] if s["view"]["sentence"] == sentence and "branch" not in s["view"]]
    assert len(stops) == len(own) == len(builtin["stops"]) - 1  # the branch's stop is another translation
    assert [s["text"] for s in stops] == [i18n.text(s["text"], "ja") for s in own]
    assert all(s["layer"] < trace.n_layers and s["step"] < len(trace.target_ids) for s in stops)
    assert [s["head"] for s in stops] == [s["view"]["head"] for s in own]
    assert builtin_on(tiny_translator().trace("Another sentence.")) == []
    model = save_checkpoint(tmp_path / "tiny", tiny_translator().model, tiny_tokenizer_file())
    out = tmp_path / "toured.html"
    assert main(["lesson", sentence, "--model", str(model), "--out", str(out), "--lang", "ja", "--tour", BUILTIN]) == 0
    assert [s["text"] for s in data_of(out.read_text(encoding="utf-8"))["tour"]] == [s["text"] for s in stops]


@pytest.mark.browser
def test_a_tour_in_the_file_steps_through_its_stops_offline(browser, tmp_path):
    builtin = read_tour(BUILTIN)
    trace = tiny_translator(max_len=8).trace(builtin["stops"][0]["view"]["sentence"])
    stops = builtin_on(trace, "en")
    stops[1] = dict(stops[1], text="<b>a note, as typed</b>")  # a teacher's note is shown as text
    path = tmp_path / "toured.html"
    lesson(trace, path, lang="en", tour=stops)
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 720})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    title = "() => document.querySelector('#lesson-cross').layout.title.text"
    try:
        page.goto(path.as_uri())
        page.wait_for_function("() => !!document.querySelector('#lesson-cross .main-svg')", timeout=20_000)
        for number, stop in enumerate(stops, start=1):
            assert page.inner_text("#tour-count") == f"{number} / {len(stops)}"
            assert page.inner_text("#tour-text") == stop["text"]
            assert page.evaluate("() => document.querySelector('#step-slider').value") == str(stop["step"])
            assert (page.input_value("#layer"), page.input_value("#head")) == (str(stop["layer"]), stop["head"])
            head = "mean" if stop["head"] == "mean" else stop["head"]
            assert f"Layer {stop['layer']} · Head {head}" in page.evaluate(title).replace("<br>", "")
            assert f"step {stop['step']}:" in page.evaluate(title)
            if number < len(stops):
                page.click("#tour-next")
        assert page.locator("#tour-text b").count() == 0
        assert page.is_disabled("#tour-next") and page.inner_text("#tour-prev") == i18n.text("tour-prev", "en")
    finally:
        context.close()
    assert errors == []
