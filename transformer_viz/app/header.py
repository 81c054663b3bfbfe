"""The page above the tabs: the title and language, the sentence and how to decode it, the translation, the steps."""

from __future__ import annotations

import os
from collections.abc import Mapping

import gradio as gr

from .. import i18n
from ..decoding import CHOSEN, STRATEGIES
from ..figures import UNITS
from ..figures.guess import GUESS_PANEL, guess_switch
from ..figures.keys import keys_help
from ..translator import MAX_CHARS
from .common import EXAMPLES, LESSON_EXAMPLE, LOOK_KEYS, LOOKS, PLOT_ROW, SCREEN, Words
from .downloads import lesson_download
from .handlers import tokens_table
from .models import model_choices
from .registry import CLICK_BOX
from .session import SLIDER_RANGES
from .tabs import Controls, Plots, hidden_box

T = i18n.text  # English when the page is built; Words switches it
# The sentence box takes far more than the translator reads, so that a long paste reaches it and its cut is
# announced (notice-cut-chars) instead of the box cutting it without a word; the bound only keeps the request small.
PASTE_LIMIT = 10 * MAX_CHARS
# The language menu's width: its five names ("English", "Deutsch", "日本語", "한국어", "简体中文") on one line.
LANGUAGE_MENU_PX = 560
DUPLICATE_PX = 160  # "Duplicate this Space" and its icon, in the longest language


class Header:
    """The components above the tabs, named by what they show."""

    session: gr.State  # the visitor's session.Session
    lang: gr.Radio
    # the sentence and how to decode it
    sentence: gr.Textbox
    sentence_error: gr.Markdown  # under the sentence: why it was not translated, or what was cut; hidden when empty
    sentence_said: gr.State  # the keyed messages sentence_error shows, to say them again in a new language
    translate_btn: gr.Button
    model: gr.Dropdown
    strategy: gr.Radio
    beam: gr.Slider
    max_len: gr.Slider
    temperature: gr.Slider
    top_k: gr.Slider
    top_p: gr.Slider
    seed: gr.Number
    # the translation and what comes with it
    translation: gr.Textbox
    notices: gr.Markdown
    tokens: gr.Dataframe
    presentation: gr.Radio  # one of LOOKS
    units: gr.Radio  # the attention maps' rows and columns: one of figures.UNITS, "pieces" or "words"
    download: gr.DownloadButton
    lesson_btn: gr.Button  # the lesson file (downloads.lesson_download)
    lesson_file: gr.File  # where the lesson file is offered
    share: gr.Textbox
    copy: gr.Button
    tour_btn: gr.Button  # the built-in tour (js/tour-panel.js)
    # the decoding steps, one at a time
    strip: gr.HTML  # the source and target tokens, the step's one marked (strip.token_strip)
    strip_click: gr.Textbox  # hidden: the step of the target token clicked in the strip
    plot_click: gr.Textbox  # hidden: a click on a server-drawn plot (registry.CLICK_BOX)
    prev_btn: gr.Button
    step: gr.Slider
    next_btn: gr.Button
    play_btn: gr.Button
    step_md: gr.Markdown
    step_alt: gr.Markdown  # the step in a sentence for a screen reader (figures.alt): a live region, seen by none
    frames: gr.JSON  # hidden: every step's figures, label, alternatives and strip, drawn in the browser (stepping.py)
    variants: gr.JSON  # hidden: the frames' plots in every other layer and head, as changes (stepping.variants)
    switch: gr.Textbox  # hidden: counts new layers and heads; its change paints them (stepping.wire_switch)
    drawn: gr.Textbox  # hidden: whether the page made a new layer's or head's frames itself (js/page.js: drawnHere)
    plots: Plots  # the step's cross-attention and, beside it, the top-k bar
    alt: gr.Dropdown  # another token to branch on at this step
    branch_btn: gr.Button
    unbranch_btn: gr.Button
    branch_md: gr.Markdown
    layer: gr.Slider
    head: gr.Dropdown

    @property
    def options(self) -> list:
        """The decoding options' controls, named and ordered as decoding.CHOSEN (session.decode_options' order)."""
        return [getattr(self, option.name) for option in CHOSEN]

    @property
    def controls(self) -> Controls:
        """What the tab groups read and listen to."""
        return Controls(
            self.session,
            self.lang,
            self.layer,
            self.head,
            self.presentation,
            self.units,
            download=self.download,
            step=self.step,
            click=self.plot_click,
        )


def lay_out(words: Words, models: list[str]) -> Header:
    """Build the page above the tabs inside the open gr.Blocks; `models` fills the model menu (the first is chosen).

    Lesson first: the sentence, the token strip, the step controls and the step's maps fit a 1280×720 screen; the
    decoding options, the translation's details and the branch controls follow below them.
    """
    top = Header()
    top.session = gr.State(None)
    with gr.Row(equal_height=True):
        words(gr.Markdown(f"### {T('title')}", elem_id="title"), "title", None)
        lay_out_duplicate(words)
        top.lang = words(
            gr.Radio(
                [(name, code) for code, name in i18n.LANGUAGES.items()],
                value=i18n.DEFAULT,
                label=T("language"),
                elem_id="language",
                scale=0,
                min_width=LANGUAGE_MENU_PX,
                show_label=False,  # each language is named in itself
                container=False,
            ),
            "label",
            "language",
        )
    lay_out_sentence(words, models, top)
    lay_out_steps(words, top)
    with gr.Row():
        with gr.Column(scale=3):
            lay_out_branch(words, top)
            lay_out_translation(words, top)
        with gr.Column(scale=2):
            lay_out_options(words, top)
    wire_lesson_download(top)
    return top


def space_id(environ: Mapping[str, str] = os.environ) -> str | None:
    """The Space the page runs on ('owner/name'), or None anywhere else: a Space's environment has SYSTEM=spaces and
    SPACE_ID, and gradio's DuplicateButton opens the Space's duplication only where it finds both."""
    if environ.get("SYSTEM") != "spaces":
        return None
    return environ.get("SPACE_ID") or None


def lay_out_duplicate(words: Words) -> gr.DuplicateButton | None:
    """The Duplicate this Space button beside the title, on a Space only (space_id): elsewhere it would do nothing."""
    if space_id() is None:
        return None
    button = gr.DuplicateButton(T("duplicate-space"), elem_id="duplicate-space", scale=0, min_width=DUPLICATE_PX)
    return words(button, "value", "duplicate-space")


def wire_lesson_download(top: Header) -> None:
    """Download lesson: the file written for the translation shown (its layer, head and language), then downloaded
    in the page from its file box (js/page.js)."""
    inputs = [top.session, top.lang, top.layer, top.head]
    written = top.lesson_btn.click(lesson_download, inputs, [top.lesson_file], api_visibility="private")
    written.then(None, js="() => transformerViz.downloadFile('lesson-file')", api_visibility="private")


def lay_out_sentence(words: Words, models: list[str], top: Header) -> None:
    """The sentence, Translate and the model menu, in one row; under them, what went wrong with the sentence.

    The three start disabled and the page's load enables them once it has translated its link's sentence, or the
    example (page.wire_translation): a translation asked for before the link was read was made with the default
    model and options, while the menu and the share link then showed the link's; one asked for before the link's
    own translation arrived was then replaced by it."""
    with gr.Row(equal_height=True):
        top.sentence = words(
            gr.Textbox(
                label=T("sentence"),
                elem_id="sentence",
                max_lines=3,
                max_length=PASTE_LIMIT,
                placeholder=LESSON_EXAMPLE,
                scale=4,
                interactive=False,
            ),
            "label",
            "sentence",
        )
        top.translate_btn = words(
            gr.Button(
                T("translate"), variant="primary", elem_id="translate", scale=1, min_width=120, interactive=False
            ),
            "value",
            "translate",
        )
        top.model = words(
            gr.Dropdown(
                model_choices(models),
                value=models[0] if models else None,
                label=T("model"),
                elem_id="model",
                allow_custom_value=False,
                scale=2,
                min_width=360,  # the longest label ("pre-LN (前置) · 正弦波の位置 (seed000)") beside its arrow
                interactive=False,
            ),
            "label",
            "model",
        )
        words(top.model, "choices-of", lambda lang: model_choices(models, lang))
    top.sentence_error = gr.Markdown(elem_id="sentence-error", visible=False)
    top.sentence_said = gr.State([])


def lay_out_options(words: Words, top: Header) -> None:
    """The decoding options, folded, and the example sentences."""
    with words(gr.Accordion(T("options"), open=False), "label", "options"):
        top.strategy = words(
            gr.Radio(list(STRATEGIES), value="greedy", label=T("strategy"), elem_id="strategy"), "label", "strategy"
        )
        with gr.Row():
            top.beam = slider(words, "beam", "beam-size", value=4, step=1)
            top.max_len = slider(words, "max_len", "max-len", value=64, step=1)
        with gr.Row():
            top.temperature = slider(words, "temperature", "temperature", value=1.0, step=0.05)
            top.top_k = slider(words, "top_k", "top-k", value=0, step=1)
            top.top_p = slider(words, "top_p", "top-p", value=1.0, step=0.05)
            top.seed = words(gr.Number(0, precision=0, label=T("seed"), elem_id="seed"), "label", "seed")
    # The examples wait with the sentence box (common.CSS: not clickable while Translate is disabled): clicked while
    # the page opened on its link's lesson, an example was put in the box and then replaced by the link's sentence.
    examples = gr.Examples(EXAMPLES, inputs=top.sentence, label=T("examples"), elem_id="examples")
    words(examples.dataset, "label", "examples")
    # A click on an example translates it, as a click on Translate would (the same events), once it is in the box
    # and Translate is enabled (js/page.js).
    examples.load_input_event.then(None, js=TRANSLATE_CLICK_JS, api_visibility="private")


TRANSLATE_CLICK_JS = "() => transformerViz.pressWhenEnabled('translate')"


def slider(words: Words, option: str, key: str, value, step) -> gr.Slider:
    """A decoding option's slider over its SLIDER_RANGES; `key` is its elem_id and its label's i18n key."""
    return words(gr.Slider(*SLIDER_RANGES[option], value=value, step=step, label=T(key), elem_id=key), "label", key)


def lay_out_translation(words: Words, top: Header) -> None:
    """The translation, its tokens, the figures' look and units, the trace download and the share link."""
    top.translation = words(
        gr.Textbox(label=T("translation"), elem_id="translation", interactive=False), "label", "translation"
    )
    top.tokens = words(
        gr.Dataframe(
            value=tokens_table(None),  # headers only; each translation and language switch fills it in its language
            label=T("tokens"),
            elem_id="tokens",
            interactive=False,
            max_height=220,
        ),
        "label",
        "tokens",
    )
    with gr.Row():
        top.presentation = gr.Radio(
            list(zip([T(k) for k in LOOK_KEYS], LOOKS)), value=SCREEN, label=T("figures"), elem_id="presentation"
        )
        words(top.presentation, "label", "figures")
        words(top.presentation, "choices", list(zip(LOOK_KEYS, LOOKS)))
        top.units = gr.Radio([(T(f"units-{u}"), u) for u in UNITS], value=UNITS[0], label=T("units"), elem_id="units")
        words(top.units, "label", "units")
        words(top.units, "choices", [(f"units-{u}", u) for u in UNITS])
        top.download = words(
            gr.DownloadButton(T("download"), elem_id="download-trace", interactive=False), "label", "download"
        )  # value is the file
        top.lesson_btn = words(
            gr.Button(T("download-lesson"), elem_id="download-lesson", interactive=False), "value", "download-lesson"
        )  # written when pressed (downloads.lesson_download), into the file box, and downloaded from there
    top.lesson_file = gr.File(visible=False, elem_id="lesson-file", interactive=False)
    with gr.Row():
        top.share = words(
            gr.Textbox(label=T("share"), elem_id="share-link", interactive=False, scale=4), "label", "share"
        )
        top.copy = words(gr.Button(T("copy"), elem_id="copy-link", scale=1), "value", "copy")
        # the guided tour, beside the link: each of its stops is a link (js/tour-panel.js draws the panel)
        top.tour_btn = words(gr.Button(T("tour-start"), elem_id="tour-start", scale=1), "value", "tour-start")
    gr.HTML(elem_id="tour-panel")


def lay_out_steps(words: Words, top: Header) -> None:
    """The lesson: the token strip, the step controls, the layer and the head, the step's cross-attention and top-k."""
    # Before the first translation the strip says what to do; the language switch puts that back before the
    # redraw that follows it fills the strip again.
    top.strip = words(gr.HTML(T("intro"), elem_id="token-strip"), "value", "intro")
    top.strip_click = hidden_box("strip-click")  # js/page.js writes the clicked target token's step here
    top.plot_click = hidden_box(CLICK_BOX)  # js/plots.js writes a click on a server-drawn plot here
    with gr.Row(equal_height=True, elem_id="step-controls"):
        top.prev_btn = words(gr.Button(T("prev"), elem_id="step-prev", scale=1, min_width=100), "value", "prev")
        top.step = words(
            gr.Slider(0, 1, value=0, step=1, label=T("step"), elem_id="step-slider", scale=4), "label", "step"
        )
        top.next_btn = words(gr.Button(T("next"), elem_id="step-next", scale=1, min_width=100), "value", "next")
        top.play_btn = words(gr.Button(T("play"), elem_id="step-play", scale=1, min_width=100), "value", "play")
        top.layer = words(
            gr.Slider(0, 1, value=0, step=1, label=T("layer"), elem_id="layer", scale=2), "label", "layer"
        )
        # beside the layer, on the first screen: the head of the main map (and of every view that shows one)
        top.head = words(
            gr.Dropdown(["mean"], value="mean", label=T("head"), elem_id="head", scale=1, min_width=120),
            "label",
            "head",
        )
        # guess first's switch, beside the step controls (js/guess-panel.js)
        switch = gr.HTML(guess_switch(), elem_id="guess-switch", scale=0, padding=False)  # as wide as its label
        words(switch, "value-of", guess_switch)
    # guess first's choices and score, under the step controls while it is on (js/guess-panel.js)
    gr.HTML(GUESS_PANEL, elem_id="guess-panel")
    # the step in words, over the maps: on the first screen with them, one line at 1280 px in every language
    top.step_md = gr.Markdown(elem_id="step-label")
    # and what the maps show at the step, said to a screen reader (js/page.js makes it a polite live region, quiet
    # during Play); not shown on screen, where the maps say it
    top.step_alt = gr.Markdown(elem_id="step-alt", elem_classes=["tv-screen-reader"])
    top.frames = gr.JSON(visible=False, elem_id="step-frames")
    top.variants = gr.JSON(visible=False, elem_id="step-variants")
    top.switch, top.drawn = hidden_box("step-switch"), hidden_box("frames-drawn")
    top.plots = Plots()
    with gr.Row(elem_id="lesson-maps", elem_classes=[PLOT_ROW]):
        with gr.Column(scale=3):
            top.plots.place("plot-cross")
        with gr.Column(scale=2):
            words(top.plots.place("plot-topk", label=T("topk")), "label", "topk")
    top.notices = gr.Markdown(elem_id="notices")
    # the presenter's keys' help, shown over the lesson by the key ? (js/keys.js; common.CSS places it)
    words(gr.HTML(keys_help(), elem_id="keys-help", js_on_load=None), "value-of", keys_help)


def lay_out_branch(words: Words, top: Header) -> None:
    """Another token to force at this step, its branch and the way back."""
    with gr.Row(equal_height=True):
        # its choices are drawn in the page at each step, never told to the server: on_branch checks the value
        top.alt = words(
            gr.Dropdown([], label=T("alternative"), elem_id="alternative", scale=3, allow_custom_value=True),
            "label",
            "alternative",
        )
        top.branch_btn = words(gr.Button(T("branch"), elem_id="branch", scale=1), "value", "branch")
        top.unbranch_btn = words(
            gr.Button(T("unbranch"), elem_id="unbranch", interactive=False, scale=1), "value", "unbranch"
        )
    top.branch_md = gr.Markdown(elem_id="branch-info")
