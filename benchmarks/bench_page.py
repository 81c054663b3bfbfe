"""The page in a browser: click-to-paint of a step, a scrub, a tab, a head, a layer, a translation (also right
after a 3,000-character paste was translated), a look and a language.

    python benchmarks/bench_page.py [--repeat 20] [--threads 1]

Starts app.py on the bundled checkpoints and drives Debian's Chromium with Playwright at 1280×720.
Each measurement runs in the page, from the visitor's action (its pointerdown, or a drag's input event)
until the first animation frame at which the page shows its result: the main map's title names the new
step, the opened tab's plot shows the step, the map carries the new sentence's pieces, the new look's
fonts, the new language's title (and, reported beside as language_labels, the page's own labels in it), the
new head's or layer's name. Translations, looks and languages each wait for the page to settle (every step's
frames arrived) before the next; variants_arrive is how long after a translation's click the variants (every
other layer's and head's drawings) reached the page. The wall clock around Playwright's driving is reported beside.

The baseline, measured in the same run, is a round trip to the server for the figures: a head change with the
variants put aside, so that the server draws the head's frames (frames_unless_drawn) and the page paints them,
as every head change did before the variants. Ratios below 1 are faster than the baseline. Prints a JSON report;
BENCHMARKS.md keeps the latest numbers.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import free_port, start_app, wait_for_page  # noqa: E402
from common import parser  # noqa: E402  (it puts the project root on the path)

from tests.conftest import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402  (the browser tests' Chromium and its flags)
from tests.pages import VARIANTS_ARRIVED  # noqa: E402

SENTENCES = [  # ten words each
    "The children are playing in the garden with their friends.",
    "My brother reads a book in the kitchen every evening.",
]
PASTE = " ".join(SENTENCES * 60)[:3000]  # a page of text pasted into the box: cut to 2,000 characters, 128 tokens
TITLE = (
    "(id => { const el = document.querySelector('#' + id + ' .js-plotly-plot'); "
    "return el && el.layout && el.layout.title ? (el.layout.title.text || '') : ''; })"
)
STEP = "() => Math.round(Number(document.querySelector('#step-slider input[type=number]').value))"
WAIT = 120_000


def until(page, predicate: str, arg=None) -> None:
    page.wait_for_function(predicate, arg=arg, polling="raf", timeout=WAIT)


# In the page: the time of the visitor's action (its pointerdown, or the input event of a drag), and of the first
# animation frame from then on at which the page shows its result: a loop of the page's own animation frames checks
# it from before the action, so that neither Playwright's round trips to drive the browser (about 30 ms a click here)
# nor a late start of its polling count. The wall clock around Playwright's driving is reported beside.
ARM = """([predicates, arg]) => {
  window.tvActed = null;
  window.tvPainted = predicates.map(() => null);
  const acted = () => { if (window.tvActed === null) window.tvActed = performance.now(); };
  const once = {capture: true, once: true};
  for (const kind of ['pointerdown', 'input', 'keydown']) document.addEventListener(kind, acted, once);
  predicates.forEach((predicate, i) => {
    const shows = eval(predicate);
    const poll = () => {
      if (window.tvActed !== null && shows(arg)) window.tvPainted[i] = performance.now();
      else requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
  });
}"""
WALL: list[float] = []  # each clicked()'s wall-clock milliseconds, in order
ALSO: dict[str, list[float]] = {}  # by name: the times until a clicked()'s `also` predicate held
# new variants (not those the page held before the last clicked()) for the translation on the page have arrived
VARIANTS = f"() => transformerViz.page.variants !== window.tvHeldVariants && ({VARIANTS_ARRIVED})()"


def clicked(page, action, predicate: str, arg=None, also: tuple[str, str] | None = None) -> float:
    """Milliseconds from the action `action()` performs in the page until `predicate` holds there (see ARM); the
    time until `also` = (name, predicate) holds too, if given, goes to ALSO[name]."""
    predicates = [predicate] + ([also[1]] if also else [])
    page.evaluate(ARM, [predicates, arg])
    page.evaluate("() => { window.tvHeldVariants = transformerViz.page.variants; }")
    start = time.perf_counter()
    action()
    until(page, "() => window.tvPainted.every(t => t !== null)")
    WALL.append((time.perf_counter() - start) * 1000)
    times = page.evaluate("() => window.tvPainted.map(t => t - window.tvActed)")
    if also:
        ALSO.setdefault(also[0], []).append(times[1])
    return times[0]


def shows_step(step: int) -> str:
    return f"() => {TITLE}('plot-cross').includes('step {step}:')"


def steps(page, repeat: int) -> list[float]:
    """Next, and Previous at the last step: the main map names the step."""
    last = page.evaluate("() => Number(document.querySelector('#step-slider input[type=range]').max)")
    samples, forward = [], True
    for _ in range(repeat):
        now = page.evaluate(STEP)
        forward = forward if 0 < now < last else now == 0
        to, button = (now + 1, "#step-next") if forward else (now - 1, "#step-prev")
        samples.append(clicked(page, lambda b=button: page.click(b), shows_step(to)))
    return samples


def scrubs(page, repeat: int) -> list[float]:
    """The slider dragged to another step (its range input's input event, as a drag fires it)."""
    last = page.evaluate("() => Number(document.querySelector('#step-slider input[type=range]').max)")
    drag = (
        "t => { const r = document.querySelector('#step-slider input[type=range]'); r.value = t; "
        "r.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    samples = []
    for i in range(repeat):
        to = (page.evaluate(STEP) + 1 + i % max(last, 1)) % (last + 1)
        samples.append(clicked(page, lambda t=to: page.evaluate(drag, t), shows_step(to)))
    return samples


def tabs(page, repeat: int) -> list[float]:
    """Between the decoder self-attention and the cross-attention tabs, a step taken between each: the opened
    tab's plot is drawn, at the step the page is on (its title names it)."""
    samples = []
    for i in range(repeat):
        tab, plot_id = ("tab-dec-self", "plot-dec-self") if i % 2 == 0 else ("tab-cross", "plot-alignment")
        now = page.evaluate(STEP)
        page.click("#step-next" if now == 0 else "#step-prev")
        until(page, shows_step(1 if now == 0 else now - 1))
        drawn = (
            f"() => {{ const el = document.querySelector('#{plot_id} .js-plotly-plot'); "
            "return !!el && el.offsetParent !== null && !!el.querySelector('.main-svg') && "
            f"{TITLE}('{plot_id}').includes('step ' + ({STEP})() + ':'); }}"
        )
        samples.append(clicked(page, lambda t=tab: page.click(f"#{t}-button"), drawn))
    return samples


def head_changes(page, repeat: int, by_server: bool = False) -> list[float]:
    """A head chosen in the menu (0 and 1 in turn): the main map names it. by_server: with the variants put aside,
    so that the server draws the head's frames; the baseline."""
    samples = []
    kept = page.evaluate("() => transformerViz.page.variants")
    for i in range(repeat):
        if by_server:
            page.evaluate("() => { transformerViz.page.variants = null; }")
        page.click("#head input")
        option = page.locator("ul[role=listbox] li", has_text=str(i % 2)).first
        samples.append(clicked(page, option.click, f"() => {TITLE}('plot-cross').includes('Head {i % 2}<br>')"))
        if by_server:
            settled(page, variants=False)
    page.evaluate("v => { transformerViz.page.variants = v; }", kept)
    return samples


def layer_changes(page, repeat: int) -> list[float]:
    """The layer slider dragged (layers 1 and 0 in turn): the main map names the layer."""
    drag = (
        "l => { const r = document.querySelector('#layer input[type=range]'); r.value = l; "
        "r.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    samples = []
    for i in range(repeat):
        layer = 1 - i % 2
        shows = f"() => {TITLE}('plot-cross').includes('Layer {layer} ')"
        samples.append(clicked(page, lambda lay=layer: page.evaluate(drag, lay), shows))
        page.wait_for_timeout(300)  # what else a layer redraws (the tabs' other plots) comes from the server
    return samples


def translations(page, repeat: int) -> list[float]:
    """A ten-word sentence translated: the main map shows step 0 over its pieces."""
    samples = []
    for i in range(repeat):
        sentence = SENTENCES[i % 2]
        page.fill("#sentence textarea", sentence)
        shows = shows_pieces(sentence)
        samples.append(
            clicked(page, lambda: page.click("#translate"), shows, word_of(sentence), ("variants", VARIANTS))
        )
        settled(page)
    return samples


def word_of(sentence: str) -> str:
    """A piece of the sentence's second word, to find on the main map's keys."""
    return sentence.split()[1].lower()[:4]


def shows_pieces(sentence: str) -> str:
    """The main map shows step 0 over the pieces of a ten-word sentence (its argument: word_of the sentence; fewer
    than 40 keys: not a paste that holds the word too)."""
    return (
        "w => { const el = document.querySelector('#plot-cross .js-plotly-plot'); "
        "if (!el || !el.layout) return false; "
        "const ticks = Object.keys(el.layout).filter(k => /^xaxis/.test(k)).map(k => el.layout[k].ticktext || []);"
        " return ticks.flat().length < 40 && ticks.flat().join(' ').toLowerCase().includes(w) && "
        + TITLE
        + "('plot-cross').includes('step 0:'); }"
    )


def after_pastes(page, repeat: int) -> list[float]:
    """A ten-word sentence translated right after a 3,000-character paste's every step's frames reached the page (its
    other plots may still be coming): whether a long translation slows the one after it. Timed as `translations`,
    to the main map at step 0 over the new pieces (a paste has no variants to wait for: frames.VARIANTS_MAX_CELLS)."""
    samples = []
    for i in range(repeat):
        page.fill("#sentence textarea", PASTE)
        serial = page.evaluate("() => transformerViz.page.frames.serial")
        page.click("#translate")
        until(page, "s => { const f = transformerViz.page.frames; return f.serial > s && f.only === null; }", serial)
        sentence = SENTENCES[i % 2]
        page.fill("#sentence textarea", sentence)
        samples.append(clicked(page, lambda: page.click("#translate"), shows_pieces(sentence), word_of(sentence)))
        settled(page, variants=False)
    return samples


def switches(page, repeat: int, what: str) -> list[float]:
    """The look (screen ↔ slides) or the language (English ↔ 日本語): the main map is drawn anew in it."""
    samples = []
    for i in range(repeat):
        before = page.evaluate(
            "() => { const el = document.querySelector('#plot-cross .js-plotly-plot'); "
            "return JSON.stringify([el.layout.font, el.layout.title]); }"
        )
        changed = (
            "b => { const el = document.querySelector('#plot-cross .js-plotly-plot'); "
            "return !!el && !!el.layout && JSON.stringify([el.layout.font, el.layout.title]) !== b; }"
        )
        # the page's own labels, relabelled after the map (only a new language changes them)
        relabelled = ("labels", "b => document.querySelector('#translate').innerText.trim() !== b[1]")
        if what == "look":
            label = "slides (PNG download)" if i % 2 == 0 else "screen"  # the radios' English labels
            target, also = page.locator("#presentation label", has_text=label).first, None
        else:
            target, also = page.locator("#language label").nth(1 if i % 2 == 0 else 0), relabelled
        button = page.inner_text("#translate").strip()
        samples.append(clicked(page, target.click, changed.replace("b =>", "([b]) =>"), [before, button], also))
        settled(page)
    return samples


def settled(page, variants: bool = True) -> None:
    """Until every step's frames have arrived after the lesson's frame, and the variants after them where asked
    (a visitor does not switch twice a second, and the server's drawing of the variants must not slow the next
    measurement)."""
    lesson = page.evaluate("() => { const f = transformerViz.page.frames; return f.only !== null ? f.serial : -1; }")
    until(page, "s => { const f = transformerViz.page.frames; return f.only === null && f.serial > s; }", lesson)
    if variants:
        until(page, VARIANTS)


def timed(measure, *args) -> tuple[float, float]:
    """`measure(*args)`'s median in the page and its median by the wall clock."""
    first = len(WALL)
    return median(measure(*args)), median(WALL[first:])


def median(samples: list[float]) -> float:
    return round(statistics.median(samples), 1)


def main() -> None:
    args = parser(__doc__).parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = start_app(None, port, Path(tempfile.gettempdir()) / f"bench_page_{port}.log", args.threads)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for_page(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            page = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 720}).new_page()
            page.goto(url, wait_until="load")
            page.wait_for_selector("#sentence textarea", timeout=WAIT)
            runs = {"translate": timed(translations, page, max(args.repeat // 2, 4))}
            until(page, VARIANTS)
            runs["variants_arrive"] = (median(ALSO["variants"]), runs["translate"][1])
            runs["baseline_round_trip"] = timed(head_changes, page, args.repeat, True)
            runs["head"] = timed(head_changes, page, args.repeat)
            runs["layer"] = timed(layer_changes, page, args.repeat)
            runs["step"] = timed(steps, page, args.repeat)
            runs["scrub"] = timed(scrubs, page, args.repeat)
            runs["tab"] = timed(tabs, page, args.repeat)
            # an even number of switches: the page ends in the screen look and in English, as the pastes' check reads it
            switched = 2 * max(args.repeat // 4, 2)
            runs["look"] = timed(switches, page, switched, "look")
            runs["language"] = timed(switches, page, switched, "language")
            runs["language_labels"] = (median(ALSO["labels"]), runs["language"][1])
            # last: a paste's frames stay among the page's kept frames, which must not weigh on the others
            runs["translate_after_paste"] = timed(after_pastes, page, max(args.repeat // 4, 3))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    order = ["baseline_round_trip", "step", "scrub", "tab", "head", "layer", "translate", "translate_after_paste"]
    order += ["variants_arrive", "look"]
    order += ["language", "language_labels"]
    report = {f"{name}_ms": runs[name][0] for name in order}
    base = report["baseline_round_trip_ms"]
    report["ratios_to_baseline"] = {name: round(runs[name][0] / base, 3) for name in order}
    report["wall_clock_ms"] = {name: runs[name][1] for name in order}  # with Playwright's driving
    report["machine"] = f"{platform.machine()}, {platform.python_version()}, repeat {args.repeat}"
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
