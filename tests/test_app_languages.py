"""The app in its five languages, driven by Chromium: the browser's language, ?lang= and the switch.

Uses the same server as test_app_browser.py (two tiny checkpoints) with fresh browser contexts whose locale
sets the Accept-Language header, as a visitor's browser would.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlparse

import pytest

from tests.pages import SCREENSHOTS, SENTENCE, WAIT, open_tab, settled, wait_translation
from transformer_viz import i18n
from transformer_viz.decoding import DecodeOptions
from transformer_viz.figures.labels import piece_label
from transformer_viz.translator import load_model

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def open_app(browser, app_server):
    """open_app(locale, query) → a page of the app in a browser whose preferred language is `locale`."""
    url, _ = app_server
    contexts = []

    def open_page(locale: str, query: str = ""):
        context = browser.new_context(locale=locale, viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.goto(url + query, wait_until="load")
        page.wait_for_selector("#sentence textarea", timeout=WAIT)
        return page

    yield open_page
    for context in contexts:
        context.close()


def wait_text(page, selector: str, text: str) -> None:
    """Wait until the element's visible text contains `text`."""
    try:
        page.wait_for_function(
            "([s, t]) => { const el = document.querySelector(s); return !!el && el.innerText.includes(t); }",
            arg=[selector, text],
            timeout=WAIT,
        )
    except Exception:
        shown = page.locator(selector).inner_text() if page.locator(selector).count() else None
        raise AssertionError(f"{selector} never showed {text!r}; it shows {shown!r}") from None


def expect_language(page, lang: str) -> None:
    """Buttons, tabs and explanations all speak `lang`."""
    wait_text(page, "#translate", i18n.text("translate", lang))
    wait_text(page, "#tab-cross-button", i18n.text("tab-cross", lang))
    wait_text(page, "#tab-cross", i18n.text("explain-cross", lang)[:12])
    wait_text(page, "#step-next", i18n.text("next", lang))


# A browser's locale and the language the page opens in: traditional Chinese is shown in English, not simplified.
BROWSERS = [("ja-JP", "ja"), ("ko-KR", "ko"), ("en-US", "en"), ("de-DE", "de"), ("zh-CN", "zh")]
TRADITIONAL = [("zh-TW", "en"), ("zh-HK", "en")]


MENU_TEXT_AND_ARROW_JS = """() => {
  const input = document.querySelector('#model input'), style = getComputedStyle(input);
  const pen = document.createElement('canvas').getContext('2d');
  pen.font = style.font;
  const end = input.getBoundingClientRect().left + parseFloat(style.paddingLeft) + pen.measureText(input.value).width;
  const arrows = [...document.querySelectorAll('#model svg')].map(svg => svg.getBoundingClientRect().left);
  return [end, Math.min(...arrows.filter(x => x > 0))];
}"""


@pytest.mark.parametrize("locale, lang", BROWSERS + TRADITIONAL)
def test_the_browsers_language_chooses_the_page_language_and_its_menu_fits_at_1280(open_app, locale, lang):
    page = open_app(locale)
    expect_language(page, lang)
    assert page.locator("#language input:checked").get_attribute("value") == lang
    # the model menu's label in that language ends before its arrow once the page is a projector's width; the page's
    # load has answered first (its example on the page, the menu enabled), its loading indicators gone
    page.wait_for_function("() => !document.querySelector('#model input').disabled", timeout=WAIT)
    settled(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_timeout(300)  # the layout follows the new width
    end, arrow = page.evaluate(MENU_TEXT_AND_ARROW_JS)
    assert end <= arrow, f"the label ends at {end:.0f} px, under the arrow at {arrow:.0f} px"


def test_lang_in_the_link_wins_over_the_browser(open_app):
    page = open_app("en-US", "?lang=ko")
    expect_language(page, "ko")


def test_nothing_is_translated_before_the_page_has_read_its_link(browser, app_server):
    """Until the page's load has read its link, the sentence box, model menu and Translate are disabled; once read,
    a sentence is translated by the link's model with the link's length. Before, a sentence translated as soon as
    the box showed (the load's answer late, as on a busy server) was translated by the default model at the default
    length while the menu and the share link then named the link's."""
    url, folder = app_server
    length = 5
    trace = load_model(folder / "seed004", device="cpu").trace(SENTENCE, options=DecodeOptions(max_new_tokens=length))
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720})
    page = context.new_page()
    held = []  # the load's request for its link to be read, answered only when the test lets it go

    def hold_the_load(route):
        if not held and (route.request.post_data_json or {}).get("data") == []:
            held.append(route)
        else:
            route.continue_()

    try:
        page.route("**/queue/join*", hold_the_load)
        page.goto(f"{url}?{urlencode(dict(model='seed004', max_len=length, lang='ko'))}", wait_until="load")
        for _ in range(200):  # the route's handler runs while the test waits
            if held:
                break
            page.wait_for_timeout(50)
        assert held, "the page's load did not ask for its link to be read"
        for control in ("#sentence textarea", "#model input", "#translate"):
            assert page.locator(control).is_disabled(), f"{control} can be used before the link is read"
        held[0].continue_()
        page.fill("#sentence textarea", SENTENCE)  # waits until the box is enabled
        page.click("#translate")
        wait_text(page, "#translate", i18n.text("translate", "ko"))
        wait_translation(page, trace.target_text)
        link = dict(parse_qsl(urlparse(page.input_value("#share-link textarea")).query))
        assert (link["model"], link["max_len"], link["lang"]) == ("seed004", str(length), "ko"), link
        assert page.input_value("#model input").endswith("(seed004)")
    finally:
        context.close()


def test_switching_language_relabels_everything_and_the_step(open_app, app_server):
    _, folder = app_server
    page = open_app("en-US")
    page.fill("#sentence textarea", SENTENCE)
    page.click("#translate")
    trace = load_model(folder / "seed000", device="cpu").trace(SENTENCE, options=DecodeOptions())
    wait_translation(page, trace.target_text)  # the page opened on the example: this sentence's lesson replaces it
    first = 0  # a translation opens on its first step
    wait_text(page, "#step-label", f"Step {first} (token")
    page.get_by_label("日本語").check()
    expect_language(page, "ja")
    wait_text(page, "#step-label", f"ステップ {first}")
    page.get_by_label("한국어").check()
    expect_language(page, "ko")
    wait_text(page, "#step-label", f"{first}단계")
    # The token is bold in Korean too, where a particle follows it directly ("**.**을" would show its asterisks).
    page.wait_for_function(
        "t => { const b = document.querySelector('#step-label strong'); return !!b && b.innerText === t; }",
        arg=piece_label(trace.steps[first]["token"]),  # as the axes show it
        timeout=WAIT,
    )
    # The figures follow: the top-k chart's title is Korean too.
    page.wait_for_function(
        "t => { const el = document.querySelector('#plot-topk .js-plotly-plot');"
        " return !!el && !!el.layout && el.layout.title.text.startsWith(t); }",
        arg=f"{first}단계: 다음 토큰의 확률",
        timeout=WAIT,
    )
    # The download button is relabelled, not refilled: it still hands over this translation's trace.
    wait_text(page, "#download-trace", i18n.text("download", "ko"))
    with page.expect_download(timeout=WAIT) as download:
        page.click("#download-trace")
    assert json.loads(Path(download.value.path()).read_text(encoding="utf-8"))["target"]["ids"] == trace.target_ids
    open_tab(page, "dec-self")
    wait_text(page, "#tab-dec-self", "디코더는 이미 쓴 것만")
    assert page.locator("#tab-dec-self s").count() == 0  # `<s>` stays text in Korean too
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    settled(page)
    page.screenshot(path=str(SCREENSHOTS / "ui-ko.png"), full_page=False)


def test_errors_arrive_in_the_chosen_language(open_app, app_server):
    page = open_app("ja-JP")
    expect_language(page, "ja")
    page.fill("#sentence textarea", "   ")
    page.click("#translate")
    wait_text(page, "#sentence-error", i18n.text("err-empty", "ja"))  # in place, under the sentence
    page.fill("#sentence textarea", SENTENCE)  # and the page recovers: a real sentence translates, in Japanese
    page.click("#translate")
    wait_translation(page, load_model(app_server[1] / "seed000", device="cpu").translate(SENTENCE))
    page.wait_for_function("() => !document.querySelector('#sentence-error')?.innerText.trim()", timeout=WAIT)
    wait_text(page, "#step-label", "ステップ")
    page.wait_for_function(
        "() => { const el = document.querySelector('#plot-cross .js-plotly-plot');"
        " return !!el && !!el.layout && el.layout.title.text.includes('層'); }",
        timeout=WAIT,
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    settled(page)
    page.screenshot(path=str(SCREENSHOTS / "ui-ja.png"), full_page=False)


# Where the model menu's text ends and where its arrow begins, in the page: the text measured in the input's font.
