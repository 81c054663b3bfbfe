"""What the page and its tabs share: the page's constants, figures for gr.Plot, error messages, and its words."""

from __future__ import annotations

import functools

import gradio as gr
from gradio.components.plot import PlotData

from .. import __version__, figures, i18n
from ..figures.guess import GUESS_CSS
from ..figures.keys import KEYS_CSS
from ..js import inline_scripts

# A first visit opens on this sentence, translated at step 0 (links.link_reader), and the sentence box shows it as its
# placeholder; the server traces it while it starts (warm.py), once for every visitor (traces.py).
LESSON_EXAMPLE = "I get up early every morning."
EXAMPLES = [
    "I switch off the light.",  # separable verb: "schalte … aus" (or "ab"), the particle at the end
    "Today the weather is nice.",  # inversion: "Heute ist das Wetter schön", the verb second
    "I know that she is tired.",  # subordinate clause: "…, dass sie müde ist", the verb last
    "My father has bought a house.",  # perfect tense: the participle "gekauft" at the end
    "The children are playing in the garden.",  # "in the" contracted: "im Garten"
    "The kitchen table is old.",  # compound: "Küchentisch"
    "The weather is nice today.",
    "Where is the station?",
]
# The lesson's maps fill the screen from where they start down to its bottom edge (js/lesson.js sets the height,
# from 300 px up to their full size on a tall screen; before it runs, an estimate). On screen the main map and the
# top-k bars stretch to it (FITTED_PLOTS are drawn without a height of their own: the main map for the box a
# 1280×720 projector gives it, figures.views.LESSON_FIT_PX); for slides they keep their height, so that no label runs
# into the next, and scroll inside the box.
# The figures' look, by name: on screen, or for slides (large fonts, white) with a 3× PNG or an SVG download. The
# names are what the page and the server pass; the look's radio shows each in the visitor's language (LOOK_KEYS).
LOOKS = [SCREEN, SLIDES_PNG, SLIDES_SVG] = ["screen", "slides-png", "slides-svg"]
LOOK_KEYS = ["look-screen", "look-png", "look-svg"]
FITTED_PLOTS = ("plot-topk", "plot-cross")
PLOT_ROW = "tv-plots"  # the class of a row of plots
# A slide look chosen: a class on the page's root (js/page.js: markLook). Not a `:has()` on the look's radio, which
# Chromium re-matched at every change of the page's DOM: a step painted in 41–81 ms instead of 23–29 (bench_page).
SLIDE_LOOK = "html.tv-slide-look"
LESSON_HEIGHT = "var(--tv-lesson-height, clamp(300px, calc(100vh - 380px), 820px))"
CSS = (
    # the step line between the step controls and the maps, closer to both than the page's gaps: the maps keep
    # their room on a projector's first screen
    "#step-label {min-height: 1.5em; margin: -12px 0 -10px} #step-label p {margin: 0}"
    " .tv-hidden {display: none !important}"
    # read by a screen reader, not shown (the step's text alternative: what the maps show)
    " .tv-screen-reader {position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0;"
    " overflow: hidden; clip-path: inset(50%); white-space: nowrap; border: 0}"
    # a refused sentence: the answer still on the page is the sentence before's, greyed out
    " .gradio-container:has(#sentence-error.tv-refused) :is(#translation, #token-strip, #lesson-maps, #step-label)"
    " {opacity: .35; filter: grayscale(1)}"
    # a refused German (your_german.py): the score still shown is the German before's
    " .gradio-container:has(#your-german-error.tv-refused) :is(#plot-your-german, #your-german-explanation)"
    " {opacity: .35; filter: grayscale(1)}"
    f" #plot-cross, #plot-topk {{height: {LESSON_HEIGHT}; overflow-y: auto}}"
    f" {', '.join(f'#{p} .js-plotly-plot' for p in FITTED_PLOTS)} {{min-height: calc({LESSON_HEIGHT} - 24px)}}"
    # on screen (the look's radio on its first choice) they are exactly the box's height, so a smaller box (a
    # notice above) redraws them smaller; a slide keeps its own height and scrolls
    f" .gradio-container:has(#presentation input[value='{SCREEN}']:checked)"
    f" :is({', '.join(f'#{p} .js-plotly-plot' for p in FITTED_PLOTS)}) {{height: calc({LESSON_HEIGHT} - 24px)}}"
    # the step controls in one low row, so that the lesson's map starts higher on a projector's screen
    " #step-prev, #step-next, #step-play {min-height: 0; padding: 2px 8px}"
    # the examples wait, as the sentence box does, until the page's load has translated its link (header.py)
    " .gradio-container:has(#translate:disabled) #examples {pointer-events: none; opacity: .6}"
    " #step-slider, #layer, #head {padding: 4px 10px}"
    " #title h3 {margin: 0 0 .2em} #model input, #head input {padding-right: 1.5em; text-overflow: ellipsis}"
    " .tv-strip-row {display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px; line-height: 1.6}"
    " .tv-side {min-width: 5em; font-size: .85em; opacity: .7}"
    " .tv-piece {padding: 0 .3em; border: 1px solid transparent; border-radius: 4px; font: inherit;"
    " background: none; color: inherit}"
    " .tv-word {margin-left: .5em} .tv-fold {padding: 0 .3em; opacity: .6}"
    " button.tv-piece {cursor: pointer; border-color: var(--border-color-primary)}"
    " button.tv-piece.tv-current {background: var(--color-accent); color: white; font-weight: bold}"
    # plots side by side on screen are one under the other in a slide look: each is drawn as wide as a slide
    f" {SLIDE_LOOK} .{PLOT_ROW} {{flex-direction: column}} {SLIDE_LOOK} .{PLOT_ROW} > * {{width: 100%}}"
    f" {KEYS_CSS}"  # the presenter's keys' help panel, shown by the key ?
    # the guided tour's panel (js/tour-panel.js): over the page's corner while a tour is open, beside the maps
    " #tour-panel:not(.tv-tour-open) {display: none !important}"
    " #tour-panel.tv-tour-open {position: fixed; right: 16px; bottom: 16px; z-index: 50; width: min(380px, 92vw);"
    " max-height: 70vh; overflow: auto; padding: 10px 14px; background: var(--background-fill-primary);"
    " border: 1px solid var(--border-color-primary); border-radius: 8px; box-shadow: 0 4px 16px #0003}"
    " .tv-tour-row {display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0}"
    " #tour-count {margin-left: auto; opacity: .7} #tour-text {white-space: pre-wrap} #tour-error {color: #b00020}"
    " #tour-panel button {padding: 2px 10px; border: 1px solid var(--border-color-primary); border-radius: 4px}"
    " #tour-panel button:disabled {opacity: .4} #tour-note, #tour-link {width: 100%}"
    # the part of the page the tour's stop points at
    " .tv-tour-point {outline: 3px solid #e69f00 !important; outline-offset: 2px}"
    f" {GUESS_CSS} #guess-panel {{margin: -8px 0 -6px}}"  # guess first, and what it hides while a step is hidden
    # its switch: under the step controls' right end, beside the step line, where it takes no room from the maps;
    # on a narrow screen, where the step line may wrap under it, at the end of the controls' row
    " #guess-switch {flex: 0 0 auto; min-width: max-content; align-self: center} #step-controls {position: relative}"
    " @media (min-width: 700px) {#guess-switch {position: absolute; right: 0; top: 100%; width: auto; z-index: 1}}"
    " #guess-switch .html-container {padding: 0 12px}"
)
# System fonts only: the page must load nothing from outside the machine.
# The page's browser code, in files of its own (js/): each defines its functions and, in the browser, puts them on
# window.transformerViz (in this order: page.js uses stepping.js, plots.js, keys.js, the presenter's keys, and
# guess.js with guess-panel.js, guess first); the
# events call them in one line. theme.js keeps the page light (a dark system setting or `?__theme=dark`
# notwithstanding).
JS_FILES = (
    "stepping.js",
    "plots.js",
    "keys.js",
    "guess.js",
    "guess-panel.js",
    "page.js",
    "share.js",
    "tour.js",
    "tour-panel.js",
    "lesson.js",
    "theme.js",
)


def page_head() -> str:
    """The <script> elements of JS_FILES, for the page's <head>: each in a scope of its own, as Node runs a module."""
    return inline_scripts(JS_FILES)


# The page is light on purpose (js/theme.js says why): the body's dark colours, which Gradio's page shows under a dark
# system setting before its scripts run, are the light ones.
THEME = gr.themes.Default(
    font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"]
).set(body_background_fill_dark="white", body_text_color_dark="*neutral_800")


def slides(look) -> bool:
    return look in (SLIDES_PNG, SLIDES_SVG)


def fills_box(plot_id: str, look) -> bool:
    """Whether a plot is drawn to fill its box on the page: FITTED_PLOTS on screen; slides keep the figure's own
    height (their fonts need it), in a box that scrolls."""
    return plot_id in FITTED_PLOTS and not slides(look)


def plot(fig, look=SCREEN, fit: bool = False) -> PlotData | None:
    """A Plotly figure for gr.Plot with our modebar config (the camera downloads a 3× PNG, or an SVG).

    fit: drop the figure's own height, so that it fills its box on the page (CSS gives the lesson's maps theirs).
    """
    if fig is None:
        return None
    if fit:
        fig.layout.height = None
    fmt = "svg" if look == SLIDES_SVG else "png"
    return PlotData(type="plotly", plot=figures.figure_json(fig, fmt=fmt, slide=slides(look)))


def user_error(fn):
    """Turn the library's ValueErrors (bad input, bad options) into a message in the browser."""

    @functools.wraps(fn)  # keeps the signature and type hints: gr.api builds the endpoint's parameters from them
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, TypeError) as err:
            raise gr.Error(str(err), print_exception=False) from None

    return wrapped


def localised_errors(fn):
    """Like user_error, for handlers whose first input is the visitor's language: the message comes in it."""

    @functools.wraps(fn)
    def wrapped(lang, *args, **kwargs):
        try:
            return fn(lang, *args, **kwargs)
        except (ValueError, TypeError) as err:
            raise gr.Error(i18n.message(err, lang), print_exception=False) from None  # by its key, if it has one

    return wrapped


class Words:
    """Every piece of text on the page, by i18n key, so one switch can put it all into another language."""

    def __init__(self) -> None:
        self.entries: list[tuple[gr.components.Component | gr.blocks.Block, str, object]] = []

    def __call__(self, component, attr: str, key):
        """Register `component`'s `attr` (label, value, choices, choices-of or value-of) as the text of `key`;
        returns it."""
        self.entries.append((component, attr, key))
        return component

    @property
    def components(self) -> list:
        return [component for component, _, _ in self.entries]

    def part(self, start: int, stop: int | None = None) -> Words:
        """The texts registered from the `start`-th to before the `stop`-th, as Words of their own."""
        part = Words()
        part.entries = self.entries[start:stop]
        return part

    def updates(self, lang: str) -> list:
        """One gr.update per registered component with its text in `lang`."""
        out = []
        for _, attr, key in self.entries:
            if attr == "choices":  # key: [(i18n key, value)]
                out.append(gr.update(choices=[(i18n.text(k, lang), v) for k, v in key]))
            elif attr == "choices-of":  # key: language → [(label, value)], for labels made of more than one text
                out.append(gr.update(choices=key(lang)))
            elif attr == "value-of":  # key: language → value, for a value made of more than one text
                out.append(gr.update(value=key(lang)))
            elif attr == "footer":
                out.append(gr.update(value=i18n.text(key, lang, version=__version__)))
            elif attr == "title":
                out.append(gr.update(value=f"### {i18n.text('title', lang)}"))
            else:
                out.append(gr.update(**{attr: i18n.text(key, lang)}))
        return out
