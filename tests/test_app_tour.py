"""The guided tour in Chromium: the built-in tour's stops each reopening their view in two languages, a teacher's own
tour built, downloaded, reopened from its file and from its link, and refused tours explained in the visitor's
language, with nothing fetched.

A tour's checks and the panel's state are tested in Node (tests/js/tour.test.js) and on the server
(tests/test_tour.py); here the real page restores each stop from its link, as a share link is restored.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlparse

import pytest

from tests.pages import SCREENSHOTS, WAIT, lesson_link, open_tab, settled, start_lesson, wait_settled, wait_step
from transformer_viz import i18n
from transformer_viz.app import tour

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

BUILTIN = tour.packaged_tours()[tour.BUILTIN]
SHARE_LINK = "() => { const box = document.querySelector('#share-link textarea'); return box ? box.value : ''; }"
PANEL_SHOWN = (
    "() => { const el = document.querySelector('#tour-panel'); return !!el && el.getClientRects().length > 0; }"
)


@pytest.fixture(scope="module")
def page(browser):
    """One tab at a projector's size, every address it asks for recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, accept_downloads=True)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda err: errors.append(str(err)))
    tab.asked = []
    tab.on("request", lambda request: tab.asked.append(request.url))
    yield tab
    context.close()
    assert errors == []


def at_stop(page, number: int) -> dict:
    """Until the page is at stop `number` (its link opened, its translation at rest): the share link's query."""
    page.wait_for_function("n => new URLSearchParams(location.search).get('tour-stop') === n", arg=str(number))
    page.wait_for_function(PANEL_SHOWN, timeout=WAIT)
    wait_settled(page)
    page.wait_for_function(f"() => ({SHARE_LINK})().startsWith('http')", timeout=WAIT)
    return dict(parse_qsl(urlparse(page.evaluate(SHARE_LINK)).query))


def restored(view: dict, library) -> dict:
    """What the page's reader of a link restores of a stop's `view` with the server's model: a layer the model lacks
    is its last, a step past the translation its last, a branch the vocabulary lacks none."""
    want = {key: str(value) for key, value in view.items()}
    want["layer"] = str(min(int(view["layer"]), library.config.n_layers - 1))
    forced = [int(pair.split(":")[1]) for pair in view.get("branch", "").split(",") if pair]
    if any(token >= library.config.tgt_vocab_size for token in forced):
        del want["branch"]
    if "branch" not in want:
        last = len(library.trace(view["sentence"]).target_ids) - 1
        want["step"] = str(min(int(view["step"]), last))
    return want


def test_the_builtin_tour_restores_each_stop_in_japanese(page, app_server, library):
    """Each stop reopened from its link, its text in the page's language (Japanese: a language that is not the
    catalogue's source; that every stop's key is in every catalogue is checked on the server, test_tour.py)."""
    url, _ = app_server
    lang = "ja"
    start_lesson(page, lesson_link(url, lang=lang, tab="tab-cross"))
    page.click("#tour-start")
    stops = BUILTIN["stops"]
    for number, stop in enumerate(stops, start=1):
        link = at_stop(page, number)
        want = restored(stop["view"], library)
        assert {key: link.get(key) for key in want} == want, f"stop {number}"
        assert "branch" in link or "branch" not in want
        assert link["lang"] == lang
        assert page.inner_text("#tour-count") == f"{number} / {len(stops)}"
        assert page.inner_text("#tour-text") == i18n.text(stop["text"], lang)
        page.wait_for_selector(f"#{stop['point']}.tv-tour-point", timeout=WAIT)
        assert page.locator(".tv-tour-point").count() == 1
        if "action" in stop:
            lab_state_is_there(page, stop["action"])
        if number == 5 and lang == "en":
            settled(page)
            page.screenshot(path=str(SCREENSHOTS / "tour.png"))
        if number < len(stops):
            page.click("#tour-next")
    assert page.is_disabled("#tour-next")
    page.click("#tour-prev")
    at_stop(page, len(stops) - 1)
    assert page.inner_text("#tour-text") == i18n.text(stops[-2]["text"], lang)
    page.click("#tour-close")
    page.wait_for_function(f"() => !({PANEL_SHOWN})()")
    assert page.locator(".tv-tour-point").count() == 0


def lab_state_is_there(page, action: dict) -> None:
    """The stop's action is done: its head switched off and the lab run, or the two models compared."""
    if action["name"] == "head-off":
        label = f"L{action['layer']} H{action['head']}"
        box = page.locator(f"#ablate-{action['kind']} label", has_text=label).locator("input")
        page.wait_for_function("() => document.querySelector('#whatif-summary').innerText.trim() !== ''", timeout=WAIT)
        assert box.is_checked()
    else:
        page.wait_for_function(
            "() => document.querySelector('#compare-translation-1 textarea').value !== ''", timeout=WAIT
        )


def test_a_teachers_tour_is_built_downloaded_and_reopened_from_its_file_and_its_link(page, app_server, tmp_path):
    url, _ = app_server
    start_lesson(page, lesson_link(url, lang="en"))
    page.click("#tour-start")
    at_stop(page, 1)
    page.click("#tour-own summary")
    # two views with their notes: the tour's first stop, then the masks at step 1
    page.fill("#tour-note", "First: the pieces. **as typed**")
    page.select_option("#tour-point", "token-strip")
    page.click("#tour-add")
    first_view = dict(parse_qsl(urlparse(page.evaluate(SHARE_LINK)).query))
    assert page.inner_text("#tour-count") == "1 / 1"
    assert page.inner_text("#tour-text") == "First: the pieces. **as typed**"
    # the teacher moves on in place, as in class: the masks' tab, a step on
    open_tab(page, "masks")
    page.click("#step-next")
    wait_step(page, 1)
    page.wait_for_function(
        "() => new URL(document.querySelector('#share-link textarea').value).searchParams.get('tab') === 'tab-masks'"
    )
    page.fill("#tour-note", "Second: the mask at step 1.")
    page.select_option("#tour-point", "plot-masks")
    page.click("#tour-add")
    page.fill("#tour-note", "A third, removed again.")
    page.click("#tour-add")
    assert page.inner_text("#tour-count") == "3 / 3"
    page.click("#tour-remove")
    assert page.inner_text("#tour-count") == "2 / 2"
    page.click("#tour-earlier")  # the second stop first
    assert page.inner_text("#tour-count") == "1 / 2"
    page.click("#tour-later")
    assert page.inner_text("#tour-text") == "Second: the mask at step 1."
    with page.expect_download() as download:
        page.click("#tour-download")
    file = tmp_path / "tour.json"
    download.value.save_as(file)
    data = tour.check_tour(file.read_bytes())  # the server's checks take the downloaded file as it is
    assert [stop["note"] for stop in data["stops"]] == [
        "First: the pieces. **as typed**",
        "Second: the mask at step 1.",
    ]
    assert [stop["point"] for stop in data["stops"]] == ["token-strip", "plot-masks"]
    second = data["stops"][1]["view"]
    assert (second["step"], second["tab"]) == (1, "tab-masks")
    assert data["stops"][0]["view"]["sentence"] == first_view["sentence"]
    link = page.input_value("#tour-link")
    # from its file: read in the browser, opened at its first stop
    page.goto(url + "?lang=de")
    page.wait_for_selector("#tour-start", timeout=WAIT)
    page.evaluate("() => document.querySelector('#tour-start').scrollIntoView()")
    page.set_input_files("#tour-file", str(file))
    at_stop(page, 1)
    assert page.inner_text("#tour-text") == "First: the pieces. **as typed**"
    page.click("#tour-next")
    shown = at_stop(page, 2)
    assert (shown["step"], shown["tab"]) == ("1", "tab-masks")
    assert shown["lang"] == "de" and page.inner_text("#tour-prev") == i18n.text("tour-prev", "de")
    # from its link: the whole tour inline, opened at its first stop
    assert len(urlparse(link).query) <= 2 * tour.SCHEMA["max_inline_chars"]
    page.goto(link)
    at_stop(page, 1)
    assert page.inner_text("#tour-count") == "1 / 2"
    assert page.inner_text("#tour-text") == "First: the pieces. **as typed**"
    assert {urlparse(asked).hostname for asked in page.asked} <= {"127.0.0.1", None}  # the file went nowhere


@pytest.mark.parametrize(
    "query, lang, key",
    [
        ("tour=https://example.org/tour.json", "ja", "err-tour-url"),
        ("tour=no-such-tour", "de", "err-tour-unknown"),
    ],
)
def test_a_refused_tour_link_is_explained_in_the_visitors_language(page, app_server, query, lang, key):
    url, _ = app_server
    page.asked.clear()
    page.goto(f"{url}?lang={lang}&{query}")
    page.wait_for_function(PANEL_SHOWN, timeout=WAIT)
    values = {"name": "no-such-tour"} if key == "err-tour-unknown" else {}
    said = f"{i18n.text('tour-refused', lang)} {i18n.text(key, lang, **values)}"
    page.wait_for_function("t => document.querySelector('#tour-error').innerText === t", arg=said, timeout=WAIT)
    assert {urlparse(asked).hostname for asked in page.asked} <= {"127.0.0.1", None}  # nothing fetched from elsewhere


def test_a_refused_tour_file_is_explained_and_its_html_never_shown(page, app_server, tmp_path):
    url, _ = app_server
    page.goto(f"{url}?lang=ko")
    page.wait_for_selector("#tour-start", timeout=WAIT)
    bad = json.loads(json.dumps(BUILTIN))
    bad["stops"][2] = dict(bad["stops"][2], note="<img src=x onerror=alert(1)>")
    del bad["stops"][2]["text"]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(bad), encoding="utf-8")
    page.set_input_files("#tour-file", str(file))
    said = f"{i18n.text('tour-refused', 'ko')} {i18n.text('err-tour-html', 'ko', stop=3)}"
    page.wait_for_function("t => document.querySelector('#tour-error').innerText === t", arg=said, timeout=WAIT)
    assert page.locator("#tour-panel img").count() == 0
    assert "tour-stop" not in page.url  # nothing opened
