"""The app's page in browser tests: moving between its tabs, waiting for what it shows and reading its plots back."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlparse

from transformer_viz.app.common import LOOKS, slides
from transformer_viz.app.share import share_query
from transformer_viz.decoding import DecodeOptions
from transformer_viz.figures import esc
from transformer_viz.figures.style import piece_label

try:
    from playwright.sync_api import TimeoutError as PageTimeout
except ImportError:  # no Playwright: the `browser` fixture skips every test that could wait on a page
    PageTimeout = TimeoutError

# Screenshots go to a temporary folder unless TRANSFORMER_VIZ_SCREENSHOTS names one: the README's
# images in docs/screenshots/ are refreshed from the trained checkpoints with
#   TRANSFORMER_VIZ_TEST_CHECKPOINTS=checkpoints TRANSFORMER_VIZ_SCREENSHOTS=docs/screenshots \
#       ./scripts/test tests/test_app_browser.py tests/test_app_views.py tests/test_app_languages.py \
#       tests/test_app_compare.py tests/test_app_qkv.py tests/test_app_beyond_lens.py tests/test_app_beyond_browser.py \
#       tests/test_app_score.py tests/test_app_tour.py
SCREENSHOTS = Path(
    os.environ.get("TRANSFORMER_VIZ_SCREENSHOTS") or tempfile.mkdtemp(prefix="tv-screenshots-")
).resolve()
SENTENCE = "I see the house."
# One look per way the page draws a figure: the two slide looks differ only in what the camera downloads
# (test_the_slide_looks_differ_only_in_their_download), so the browser checks a fit in one of them.
DRAWN_LOOKS = list({slides(look): look for look in LOOKS}.values())
WAIT = 90_000  # ms: a translation and its dozen figures take ~10 s on a busy 2-core machine

GROUP_OF_TAB = {
    "cross": "attention",
    "dec-self": "attention",
    "enc-self": "attention",
    "overview": "attention",
    "heads": "analysis",
    "rollout": "analysis",
    "beam": "analysis",
    "whatif": "experiments",
    "bugs": "experiments",
    "pe": "model",
    "masks": "model",
    "card": "model",
    "compare-models": "beyond",
    "logit-lens": "beyond",
    "attribution": "beyond",
    "qkv": "beyond",
    "replay": "beyond",
    "geometry": "beyond",
}

# The plot inside a gr.Plot block, once Plotly has drawn it: its title and the tick labels of every axis.
PLOT_INFO = """id => {
    const el = document.querySelector('#' + id + ' .js-plotly-plot');
    if (!el || !el.layout || !el.querySelector('.main-svg')) return null;
    const axes = Object.keys(el.layout).filter(k => /^[xy]axis\\d*$/.test(k)).sort();
    return {title: (el.layout.title && el.layout.title.text) || '', traces: el.data.length,
            ticks: axes.map(k => el.layout[k].ticktext).filter(t => Array.isArray(t))};
}"""
TITLE_HAS = (
    "([id, parts]) => { const info = ("
    + PLOT_INFO
    + ")(id); return !!info && parts.every(p => info.title.includes(p)); }"
)


def open_app(browser, url: str, **context_options):
    """(context, page): a new browser context with `context_options` and a page on the app, its sentence box shown.

    The caller closes the context."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.goto(url, wait_until="load")  # Gradio keeps a connection open: networkidle never comes
    page.wait_for_selector("#sentence textarea", timeout=WAIT)
    return context, page


def open_tab(page, tab: str) -> None:
    """Click the group that holds the view, then the view's own tab (e.g. open_tab(page, "pe"))."""
    page.click(f"#group-{GROUP_OF_TAB[tab]}-button")
    page.click(f"#tab-{tab}-button")


def expected_trace(translator, sentence=SENTENCE, **kwargs):
    return translator.trace(sentence, options=DecodeOptions(), **kwargs)  # the UI's default options


def plot_info(page, elem_id: str) -> dict | None:
    return page.evaluate(PLOT_INFO, elem_id)


def wait_plot(page, elem_id: str, *title_parts: str) -> dict:
    """Wait until the plot is drawn with a title containing every part; return its info."""
    try:
        page.wait_for_function(TITLE_HAS, arg=[elem_id, list(title_parts)], timeout=WAIT)
    except PageTimeout:
        raise AssertionError(
            f"#{elem_id} never showed {title_parts}; it shows {plot_info(page, elem_id)}; "
            f"messages on the page: {toasts(page)}"
        ) from None
    return plot_info(page, elem_id)


# Toasts vanish after a few seconds: an init script keeps every one shown, to explain a failed wait later.
RECORD_TOASTS = """() => {
    window.__toasts = [];
    new MutationObserver(() => document.querySelectorAll('.toast-body').forEach(el => {
        if (!el.dataset.seen) { el.dataset.seen = '1'; window.__toasts.push(el.innerText); }
    })).observe(document, {childList: true, subtree: true});
}"""


def open_app_page(browser, url: str, locale: str, viewport: dict):
    """(context, page): the app at `url` in a fresh context of `locale`, every toast it shows kept (RECORD_TOASTS)."""
    context = browser.new_context(locale=locale, viewport=viewport)
    context.add_init_script(f"({RECORD_TOASTS})()")
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.wait_for_selector("#sentence textarea", timeout=WAIT)
    return context, page


def toasts(page) -> list[str]:
    """Every message (Gradio toast: error, warning) the page has shown.

    All since the start if RECORD_TOASTS was installed, else those shown now.
    """
    return page.evaluate("() => window.__toasts || [...document.querySelectorAll('.toast-body')].map(e => e.innerText)")


def wait_ticks(page, elem_id: str, ticks: list[str]) -> dict:
    """Wait until one axis of the plot is labelled exactly `ticks`."""
    try:
        page.wait_for_function(
            "([id, want]) => { const info = (" + PLOT_INFO + ")(id); "
            "return !!info && info.ticks.some(t => JSON.stringify(t) === JSON.stringify(want)); }",
            arg=[elem_id, ticks],
            timeout=WAIT,
        )
    except PageTimeout:
        raise AssertionError(
            f"#{elem_id} never had an axis labelled {ticks}; it shows {plot_info(page, elem_id)}"
        ) from None
    return plot_info(page, elem_id)


def translation(page) -> str:
    return page.input_value("#translation textarea")


# The page paints from frames of the translation it shows (the lesson's frame, or every step's): the lesson under the
# translation is that translation's, not the one before's (a first visit's example, say), which it replaces.
PAINTS_SHOWN = """() => { const f = transformerViz.page.frames;
  return !!f && f.shown === transformerViz.shownKey(); }"""


def wait_translation(page, text: str) -> None:
    """Until the translation is `text` and the lesson under it is drawn from its frames (PAINTS_SHOWN)."""
    try:
        page.wait_for_function(
            "t => document.querySelector('#translation textarea').value === t", arg=text, timeout=WAIT
        )
    except PageTimeout:
        raise AssertionError(f"the translation never became {text!r}; it is {translation(page)!r}") from None
    try:
        page.wait_for_function(PAINTS_SHOWN, timeout=WAIT)
    except PageTimeout:
        raise AssertionError(f"the lesson of {text!r} never came: {page.evaluate(STEPPING_STATE)}") from None


# What the page's stepping holds (js/page.js: transformerViz.page), for a failure's message: the slider, the frames
# it paints from (their step where they are one translation's lesson alone, their controls and translation), a step
# asked for before frames came, and the translation shown now.
STEPPING_STATE = """() => {
  const p = transformerViz.page, f = p.frames, slider = document.querySelector('#step-slider input[type=number]');
  return {slider: slider && slider.value, frames: f ? {only: f.only, steps: f.steps, key: f.key, shown: f.shown,
          base: f.base} : null, wanted: p.wanted, translation: document.querySelector('#translation textarea').value,
          variants: p.variants && p.variants.base, bases: [...p.bases].map(([name, b]) => [name, b.key, b.shown])};
}"""


# Every step's frames of the translation shown have reached the page (after the lesson's frame).
SETTLED = """() => { const f = transformerViz.page.frames;
  return !!f && f.only === null && f.shown === transformerViz.shownKey(); }"""


def wait_settled(page) -> None:
    """Until every step's frames of the translation shown have reached the page (SETTLED)."""
    page.wait_for_function(SETTLED, timeout=WAIT)


def wait_step(page, step: int) -> None:
    """The step-dependent views show `step` (the slider, the label and the top-k chart agree)."""
    try:
        wait_plot(page, "plot-topk", f"Step {step}:")
    except AssertionError as err:
        raise AssertionError(f"{err}; the page's stepping: {page.evaluate(STEPPING_STATE)}") from None
    page.wait_for_function(
        "s => document.querySelector('#step-label').innerText.startsWith(s)", arg=f"Step {step} (token", timeout=WAIT
    )
    assert page.input_value("#step-slider input[type=number]") == str(step)


def choose(page, elem_id: str, label: str) -> None:
    """Pick an option of a gr.Dropdown the way a visitor does: open it, click the option."""
    page.click(f"#{elem_id} input")
    page.get_by_role("option", name=label, exact=True).click()


def settled(page, timeout: int = 30_000) -> None:
    """Until no component waits for the server (Gradio fades a pending one), for a picture of a page at rest.

    A page still busy after `timeout` ms is pictured as it is: the pictures are for the README, not a test."""
    try:
        page.wait_for_function("() => !document.querySelector('.pending')", polling=100, timeout=timeout)
    except PageTimeout:
        pass


# Every text the visitor can read: the page's own text, the plots' SVG text (titles, ticks, labels) and the values of
# the boxes and menus.
READABLE_JS = """() => [
  document.body.innerText,
  ...[...document.querySelectorAll('.js-plotly-plot text')].map(t => t.textContent),
  ...[...document.querySelectorAll('input, textarea')].map(e => e.value),
].join('\\n')"""


def readable_text(page) -> str:
    return page.evaluate(READABLE_JS)


def screenshot(page, selector: str, name: str, max_height: int = 2000) -> None:
    """An element's picture for the README, cut to its first max_height pixels, once the page is at rest."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    settled(page)
    element = page.locator(selector)
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    if box["height"] <= max_height:
        element.screenshot(path=str(SCREENSHOTS / name), animations="disabled")
        return
    scroll = page.evaluate("() => [window.scrollX, window.scrollY]")  # clip is in page coordinates
    clip = dict(x=box["x"] + scroll[0], y=box["y"] + scroll[1], width=box["width"], height=max_height)
    page.screenshot(path=str(SCREENSHOTS / name), clip=clip, full_page=True, animations="disabled")


def escaped(tokens) -> list[str]:
    """The tick text of an axis labelled with these pieces (as piece_label shows them, escaped)."""
    return [esc(piece_label(t)) for t in tokens]


# ------------------------------------------------------------------------------------------------ a test's own start
# The view a share link sets besides the sentence, the model and the options (js/share.js), as a lesson opens.
LESSON_VIEW = dict(step=0, layer=0, head="mean", tab="tab-cross", lang="en")


def lesson_link(url: str, sentence: str = SENTENCE, model: str = "seed000", branches=(), german="", **view) -> str:
    """The share link of a lesson: `sentence` translated by `model` with the page's default options (and this German
    forced as the output, and these forced tokens), on LESSON_VIEW with `view`'s changes (step=2, layer=1, head="2",
    tab="tab-pe", lang="ja")."""
    query = share_query(sentence, model, DecodeOptions(), branches, german=german)
    return url + query + "&" + urlencode(LESSON_VIEW | view)


# What a page holds now beyond its share link: the sentence box, the looks, Play, the message under the sentence
# and whether every step's frames of the translation shown have arrived. null on a page that is not the app.
AT_REST = (
    """() => {
  const p = window.transformerViz && transformerViz.page, box = document.querySelector('#share-link textarea');
  if (!p || !box) return null;
  const checked = (id) => (document.querySelector('#' + id + ' input:checked') || {}).value;
  const message = document.querySelector('#sentence-error');
  return {link: box.value, sentence: document.querySelector('#sentence textarea').value,
          look: checked('presentation'), units: checked('units'), playing: p.playing,
          message: message ? message.innerText.trim() : '',
          settled: ("""
    + SETTLED
    + """)()};
}"""
)
# The page's share link holds every parameter of the lesson wanted, and no other.
LINK_IS = """want => { const box = document.querySelector('#share-link textarea');
  if (!box || !box.value.startsWith('http')) return false;
  const have = Object.fromEntries(new URL(box.value).searchParams);
  return Object.keys(have).length === Object.keys(want).length && Object.entries(want).every(([k, v]) => have[k] === v);
}"""


# The variants (every other layer's and head's drawings) of the translation shown have reached the page.
VARIANTS_ARRIVED = """() => { const {variants: v, bases} = transformerViz.page, b = v && bases.get(v.base);
  return !!b && b.shown === transformerViz.shownKey(); }"""


def wait_at_rest(page) -> None:
    """Until everything the translation shown sends has arrived: every step's frames, then its variants (the last).

    What a translation's later events draw or empty (a lab's results, an opened view) lands before this returns: a
    click made earlier can see its result emptied by them."""
    wait_settled(page)
    page.wait_for_function(VARIANTS_ARRIVED, timeout=WAIT)


def start_lesson(page, link: str, fresh: bool = False) -> None:
    """Put `page` on the lesson that `link` opens, whatever an earlier test left there: its translation at rest
    (everything it sends arrived, its variants last), on the link's step, layer, head, tab and language, in the
    screen look with pieces, scrolled to the top.

    A page that already shows that translation so, at the link's layer and head, is set to its step and tab in
    place, as a visitor would (cheaper than opening the app again; both are the browser's alone); any other page, or
    any page when `fresh`, is opened from the link. A new layer or head in place would leave the server drawing the
    views that follow them after this returns, and a test that counts the page's requests would count those."""
    want = dict(parse_qsl(urlparse(link).query))
    now = page.evaluate(AT_REST) if page.url.startswith(link.split("?")[0]) and not fresh else None
    have = dict(parse_qsl(urlparse(now["link"]).query)) if now is not None else {}

    def beyond_step_and_tab(query: dict) -> dict:
        return {k: v for k, v in query.items() if k not in ("step", "tab")}

    in_place = (
        now is not None
        and now["settled"]
        and not now["playing"]
        and now["message"] == ""
        and now["sentence"] == want["sentence"]
        and (now["look"], now["units"]) == (LOOKS[0], "pieces")
        and beyond_step_and_tab(have) == beyond_step_and_tab(want)
    )
    if not in_place:
        page.goto(link, wait_until="load")
        page.wait_for_selector("#sentence textarea", timeout=WAIT)
    else:
        if have.get("tab") != want["tab"]:
            open_tab(page, want["tab"].removeprefix("tab-"))
        if have.get("step") != want["step"]:
            page.fill("#step-slider input[type=number]", want["step"])
            page.press("#step-slider input[type=number]", "Enter")
    try:
        page.wait_for_function(LINK_IS, arg=want, timeout=WAIT)
        wait_at_rest(page)
    except PageTimeout:
        raise AssertionError(
            f"the page never showed the lesson {want}; it holds {page.evaluate(AT_REST)}, "
            f"its stepping {page.evaluate(STEPPING_STATE)}"
        ) from None
    page.evaluate("() => window.scrollTo(0, 0)")


@contextmanager
def offline_lesson(browser, path: Path):
    """A lesson file opened from the disk at a projector's size with the network cut, its map drawn; on leaving, no
    error was thrown on it and nothing was asked of any network."""
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 720})
    asked, errors = [], []
    context.route("**/*", lambda route: (asked.append(route.request.url), route.continue_()))
    page = context.new_page()
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(path.as_uri())
        page.wait_for_function("() => !!document.querySelector('#lesson-cross .main-svg')", timeout=20_000)
        yield page
    finally:
        context.close()
    assert errors == []
    assert all(url.startswith("file:") for url in asked), asked
