"""The training replay and query–key geometry tabs in Chromium at 1280×720, after a translation, in English and
Japanese: the replay runs through the model's snapshots and its slider steps back through them, a model without
snapshots says so; the plane and the neighbours are drawn with their text inside their figures, and no two of the
plane's point labels on each other, on screen and on a slide."""

from __future__ import annotations

import itertools

import pytest

from tests.pages import WAIT, choose, open_app_page, screenshot, toasts, wait_plot, wait_translation
from tests.test_figures_fit import VIEWPORT, misfits, outside, overlap_depth, settled
from transformer_viz import i18n
from transformer_viz.app.models import model_label
from transformer_viz.figures.style import style
from transformer_viz.training.snapshots import list_snapshots
from transformer_viz.translator import load_model

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

SENTENCE = "I see the house."
LABELS_APART_PX = 1.0  # two point labels may share a strip this deep (subpixel rounding)


def open_view(page, tab: str) -> None:
    """The Beyond attention group, then one of its tabs (without waiting on navigation: a tab click makes none)."""
    page.click("#group-beyond-button", no_wait_after=True, timeout=WAIT)
    page.click(f"#tab-{tab}-button", no_wait_after=True, timeout=WAIT)


def point_labels(drawn: dict) -> list[dict]:
    """The plane's point labels (its queries' and keys' tokens) among a drawn plot's texts (TEXTS' reading)."""
    return [t for t in drawn["texts"] if t["where"].endswith(" in textpoint")]


def labels_on_labels(labels: list[dict]) -> list[str]:
    """The pairs of point labels drawn on each other."""
    return [
        f"{a['text']!r} and {b['text']!r} overlap by {depth:.1f} px"
        for a, b in itertools.combinations(labels, 2)
        if (depth := overlap_depth(a["corners"], b["corners"])) > LABELS_APART_PX
    ]


def snapshot_said(lang: str, n: int, total: int) -> str:
    """How the tab's line starts when it shows snapshot n of total ("Snapshot 1 of 3")."""
    return i18n.text("replay-shown", lang, n=n, total=total, step=0, loss=0.0, token="", p=0.0).split(":")[0]


def replay_runs(page, lang: str, n: int) -> None:
    """The button replays the translation through the n snapshots: the last (the trained model) first, then the
    slider back to the first."""
    ready = i18n.text("replay-ready", lang, model="seed000", n=n)[:20]
    page.wait_for_function(
        "t => document.querySelector('#replay-status').innerText.includes(t)", arg=ready, timeout=WAIT
    )
    page.click("#replay-run")
    for plot_id in ("plot-replay", "plot-replay-heads", "plot-replay-probs", "plot-replay-loss"):
        wait_plot(page, plot_id)
    starts = "t => document.querySelector('#replay-status').innerText.startsWith(t)"
    page.wait_for_function(starts, arg=snapshot_said(lang, n, n), timeout=WAIT)
    assert page.input_value("#replay-slider input[type=number]") == str(n)  # the slider counts as its line does
    if lang == "en":  # the README's
        screenshot(page, "#tab-replay", "replay-en.png")
    page.press("#replay-slider input[type=range]", "Home")  # the keyboard (no pointer release): the first snapshot
    page.wait_for_function(starts, arg=snapshot_said(lang, 1, n), timeout=WAIT)
    assert page.input_value("#replay-slider input[type=number]") == "1"
    assert not toasts(page), toasts(page)


def says_none(page, lang: str, model: str) -> None:
    """A model without snapshots: the tab says so, its button stays off and nothing is drawn."""
    none = i18n.text("replay-none", lang, model=model).split("`")[0].strip()
    try:
        page.wait_for_function(
            "t => document.querySelector('#replay-status').innerText.includes(t)", arg=none[:20], timeout=WAIT
        )
    except Exception:
        raise AssertionError(f"{page.inner_text('#replay-status')!r} {toasts(page)}") from None
    assert page.locator("#replay-run").is_disabled()
    assert page.locator("#tab-replay .js-plotly-plot").count() == 0, "a model without snapshots draws nothing"
    assert not toasts(page), toasts(page)


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_both_tabs_after_a_translation(browser, app_server, library, locale):
    lang = i18n.language(locale)
    url, folder = app_server
    context, page = open_app_page(browser, url, locale, VIEWPORT)
    try:
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, library.translate(SENTENCE))

        open_view(page, "replay")
        snapshots = list_snapshots(folder / "seed000")
        if snapshots:
            replay_runs(page, lang, len(snapshots))
        else:
            says_none(page, lang, "seed000")

        open_view(page, "geometry")
        layer = {"en": "layer 0", "ja": "層 0"}[lang]
        wait_plot(page, "plot-geometry", layer)
        font = style(False).font_size
        plane = settled(page, "plot-geometry", font)
        assert [t["text"] for t in plane["texts"] if outside(t, plane["svg"])] == []
        assert point_labels(plane), "the plane labels its points"
        assert labels_on_labels(point_labels(plane)) == []
        neighbours = settled(page, "plot-neighbours", font)
        if lang == "en":  # the README's
            screenshot(page, "#tab-geometry", "geometry-en.png")
        assert neighbours["texts"] and not misfits(neighbours), misfits(neighbours)
        page.locator("#presentation input").nth(1).check()  # a slides' look (LOOKS[1]): larger labels
        slide = point_labels(settled(page, "plot-geometry", style(True).font_size))
        assert slide, "the plane labels its points"
        assert labels_on_labels(slide) == []
        page.click("#geometry-kind label:nth-of-type(2)")  # decoder self-attention
        wait_plot(page, "plot-geometry", i18n.text("fig-kind-decoder_self", lang).split(" ")[0])
        decoder = point_labels(settled(page, "plot-geometry", style(True).font_size))
        assert decoder, "the plane labels its points"
        assert labels_on_labels(decoder) == []
        assert not toasts(page), toasts(page)
    finally:
        context.close()


def test_a_model_without_snapshots_says_so(browser, app_server, library):
    url, folder = app_server
    if list_snapshots(folder / "seed004"):
        pytest.skip("these checkpoints' seed004 keeps snapshots")
    context, page = open_app_page(browser, url, "en-US", VIEWPORT)
    try:
        choose(page, "model", model_label("seed004", "en"))
        page.fill("#sentence textarea", SENTENCE)
        page.click("#translate")
        wait_translation(page, load_model(folder / "seed004", device="cpu").translate(SENTENCE))
        open_view(page, "replay")
        says_none(page, "en", "seed004")
    finally:
        context.close()
