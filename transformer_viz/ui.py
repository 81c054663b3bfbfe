"""The Gradio app: layout first, then wiring. All work happens in handlers.py and figures.py."""
from __future__ import annotations

import functools
import html
import tempfile
from pathlib import Path

import gradio as gr
from gradio.components.plot import PlotData

from . import __version__, figures
from . import handlers as h
from . import i18n
from .decoding import DecodeOptions
from .interventions import SEED_BUGS

EXAMPLES = [
    "I get up early every morning.",                 # separable verb: "stehe … auf"
    "The weather is nice today.",                    # inversion: "Heute ist das Wetter schön"
    "I think that he is right.",                     # subordinate clause: verb goes last
    "My brother has bought a new car.",              # perfect tense: participle at the end
    "The children are playing in the garden.",
    "We need a train station.",                      # compound: "Bahnhof"
    "Where is the station?",
]
# gr.Plot has no click event with point data: listen to Plotly's own and write what was clicked into a
# hidden textbox, whose change event the server handles. [plot id, box id, point → text or null]
CLICK_JS = """() => {
  const clicks = [
    ['plot-overview', 'overview-click', p => p.data.meta ? `layer ${p.data.meta[0]} head ${p.data.meta[1]}` : null],
    ['plot-heads-cross', 'heads-click', p => p.customdata ? `cross ${p.customdata[0]} ${p.customdata[1]}` : null],
    ['plot-heads-dec-self', 'heads-click', p => p.customdata ? `decoder_self ${p.customdata[0]} ${p.customdata[1]}` : null],
    ['plot-heads-enc-self', 'heads-click', p => p.customdata ? `encoder_self ${p.customdata[0]} ${p.customdata[1]}` : null],
    ['plot-beam', 'beam-click', p => (p.customdata === undefined || p.customdata === null) ? null : `${p.customdata}`],
  ];
  const attach = () => {
    for (const [plotId, boxId, read] of clicks) {
      const plot = document.querySelector(`#${plotId} .js-plotly-plot`);
      if (!plot || plot.dataset.tvClick || !plot.on) continue;
      plot.dataset.tvClick = '1';
      plot.on('plotly_click', (event) => {
        const value = read(event.points[0]);
        const box = document.querySelector(`#${boxId} textarea, #${boxId} input`);
        if (value === null || !box) return;
        box.value = `${value} (${Date.now()})`;  // changes even when the same point is clicked again
        box.dispatchEvent(new Event('input', {bubbles: true}));
      });
    }
  };
  new MutationObserver(attach).observe(document.body, {childList: true, subtree: true});
}"""
CSS = "#step-label {min-height: 2.5em} .tv-hidden {display: none !important}"
# System fonts only: the page must load nothing from outside the machine.
THEME = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])


# The figures' look: on screen, or for slides (large fonts, white) with a 3× PNG or an SVG download.
LOOKS = ["screen", "slides (PNG download)", "slides (SVG download)"]
LOOK_KEYS = ["look-screen", "look-png", "look-svg"]


def slides(look) -> bool:
    return look in LOOKS[1:]


def plot(fig, look=LOOKS[0]) -> PlotData | None:
    """A Plotly figure for gr.Plot with our modebar config (the camera downloads a 3× PNG, or an SVG)."""
    if fig is None:
        return None
    return PlotData(type="plotly", plot=figures.figure_json(fig, fmt="svg" if look == LOOKS[2] else "png"))


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
            raise gr.Error(i18n.message(str(err), lang), print_exception=False) from None
    return wrapped


class Words:
    """Every piece of text on the page, by i18n key, so one switch can put it all into another language."""

    def __init__(self) -> None:
        self.entries: list[tuple[gr.components.Component | gr.blocks.Block, str, object]] = []

    def __call__(self, component, attr: str, key):
        """Register `component`'s `attr` (label, value or choices) as the text of `key`; returns the component."""
        self.entries.append((component, attr, key))
        return component

    @property
    def components(self) -> list:
        return [component for component, _, _ in self.entries]

    def updates(self, lang: str) -> list:
        """One gr.update per registered component with its text in `lang`."""
        out = []
        for _, attr, key in self.entries:
            if attr == "choices":  # key: [(i18n key, value)]
                out.append(gr.update(choices=[(i18n.text(k, lang), v) for k, v in key]))
            elif attr == "footer":
                out.append(gr.update(value=i18n.text(key, lang, version=__version__)))
            elif attr == "title":
                out.append(gr.update(value=f"# {i18n.text('title', lang)}\n{i18n.text('intro', lang)}"))
            else:
                out.append(gr.update(**{attr: i18n.text(key, lang)}))
        return out


def build_demo() -> gr.Blocks:
    models = h.available_models()
    T = i18n.text  # English when the page is built; Words switches it
    with gr.Blocks(title="transformer-viz") as demo:
        session = gr.State(None)
        words = Words()
        with gr.Row():
            words(gr.Markdown(f"# {T('title')}\n{T('intro')}"), "title", None)
            lang = gr.Radio([(name, code) for code, name in i18n.LANGUAGES.items()], value=i18n.DEFAULT,
                            label=T("language"), elem_id="language", scale=0, min_width=260)
            words(lang, "label", "language")
        with gr.Row():
            with gr.Column(scale=3):
                sentence = words(gr.Textbox(label=T("sentence"), elem_id="sentence", max_lines=3, max_length=2000,
                                            placeholder="I get up early every morning."), "label", "sentence")
                with gr.Row():
                    translate_btn = words(gr.Button(T("translate"), variant="primary", elem_id="translate", scale=1), "value", "translate")
                    model = words(gr.Dropdown(models, value=models[0] if models else None, label=T("model"), elem_id="model",
                                              allow_custom_value=False, scale=2), "label", "model")
                with words(gr.Accordion(T("options"), open=False), "label", "options"):
                    strategy = words(gr.Radio(["greedy", "beam", "sample"], value="greedy", label=T("strategy"),
                                              elem_id="strategy"), "label", "strategy")
                    with gr.Row():
                        beam = words(gr.Slider(1, 8, value=4, step=1, label=T("beam-size"), elem_id="beam-size"), "label", "beam-size")
                        max_len = words(gr.Slider(1, 128, value=64, step=1, label=T("max-len"), elem_id="max-len"), "label", "max-len")
                    with gr.Row():
                        temperature = words(gr.Slider(0.05, 2.0, value=1.0, step=0.05, label=T("temperature"),
                                                      elem_id="temperature"), "label", "temperature")
                        top_k = words(gr.Slider(0, 50, value=0, step=1, label=T("top-k"), elem_id="top-k"), "label", "top-k")
                        top_p = words(gr.Slider(0.05, 1.0, value=1.0, step=0.05, label=T("top-p"), elem_id="top-p"), "label", "top-p")
                        seed = words(gr.Number(0, precision=0, label=T("seed"), elem_id="seed"), "label", "seed")
                examples = gr.Examples(EXAMPLES, inputs=sentence, label=T("examples"))
                words(examples.dataset, "label", "examples")
            with gr.Column(scale=4):
                translation = words(gr.Textbox(label=T("translation"), elem_id="translation", interactive=False), "label", "translation")
                notices = gr.Markdown(elem_id="notices")
                tokens = words(gr.Dataframe(headers=["side", "position", "piece", "id"], label=T("tokens"),
                                            elem_id="tokens", interactive=False, max_height=220), "label", "tokens")
                with gr.Row():
                    presentation = gr.Radio(list(zip([T(k) for k in LOOK_KEYS], LOOKS)), value=LOOKS[0], label=T("figures"),
                                            elem_id="presentation")
                    words(presentation, "label", "figures")
                    words(presentation, "choices", list(zip(LOOK_KEYS, LOOKS)))
                    download = words(gr.DownloadButton(T("download"), elem_id="download-trace", interactive=False), "label", "download")  # value is the file
                with gr.Row():
                    share = words(gr.Textbox(label=T("share"), elem_id="share-link", interactive=False, scale=4), "label", "share")
                    copy = words(gr.Button(T("copy"), elem_id="copy-link", scale=1), "value", "copy")

        with gr.Row(equal_height=True):
            prev_btn = words(gr.Button(T("prev"), elem_id="step-prev", scale=1), "value", "prev")
            step = words(gr.Slider(0, 1, value=0, step=1, label=T("step"), elem_id="step-slider", scale=6), "label", "step")
            next_btn = words(gr.Button(T("next"), elem_id="step-next", scale=1), "value", "next")
            play_btn = words(gr.Button(T("play"), elem_id="step-play", scale=1), "value", "play")
        step_md = gr.Markdown(elem_id="step-label")
        timer = gr.Timer(0.8, active=False)
        with gr.Row():
            with gr.Column(scale=3):
                topk = words(gr.Plot(label=T("topk"), elem_id="plot-topk"), "label", "topk")
            with gr.Column(scale=2):
                alt = words(gr.Dropdown([], label=T("alternative"), elem_id="alternative"), "label", "alternative")
                branch_btn = words(gr.Button(T("branch"), elem_id="branch"), "value", "branch")
                unbranch_btn = words(gr.Button(T("unbranch"), elem_id="unbranch"), "value", "unbranch")
                branch_md = gr.Markdown(elem_id="branch-info")
        with gr.Row():
            layer = words(gr.Slider(0, 1, value=0, step=1, label=T("layer"), elem_id="layer"), "label", "layer")
            head = words(gr.Dropdown(["mean"], value="mean", label=T("head"), elem_id="head"), "label", "head")

        def explain(key: str) -> gr.Markdown:
            return words(gr.Markdown(T(f"explain-{key}"), elem_classes=["tv-explain"]), "value", f"explain-{key}")

        def lab_results(prefix: str) -> list:
            """[State, original translation, changed translation, summary, probability plot, maps plot] of a lab."""
            state = gr.State(None)
            with gr.Row():
                boxes = [words(gr.Textbox(label=T(f"whatif-{which}"), elem_id=f"{prefix}-{which}", interactive=False), "label",
                               f"whatif-{which}") for which in ("original", "changed")]
            return [state, *boxes, gr.Markdown(elem_id=f"{prefix}-summary"), gr.Plot(elem_id=f"plot-{prefix}-probs"),
                    gr.Plot(elem_id=f"plot-{prefix}-maps")]

        with gr.Tabs(elem_id="views"):
            with words(gr.Tab(T("group-attention"), elem_id="group-attention"), "label", "group-attention"):
                with gr.Tabs(elem_id="views-attention"):
                    with words(gr.Tab(T("tab-cross"), elem_id="tab-cross"), "label", "tab-cross"):
                        explain("cross")
                        cross = gr.Plot(elem_id="plot-cross")
                        alignment = gr.Plot(elem_id="plot-alignment")
                    with words(gr.Tab(T("tab-dec-self"), elem_id="tab-dec-self"), "label", "tab-dec-self"):
                        explain("dec-self")
                        dec_self = gr.Plot(elem_id="plot-dec-self")
                    with words(gr.Tab(T("tab-enc-self"), elem_id="tab-enc-self"), "label", "tab-enc-self"):
                        explain("enc-self")
                        enc_self = gr.Plot(elem_id="plot-enc-self")
                    with words(gr.Tab(T("tab-overview"), elem_id="tab-overview"), "label", "tab-overview"):
                        explain("overview")
                        with gr.Row():
                            kind = gr.Radio([(T(f"kind-{k}"), k) for k in h.KINDS], value="cross", label=T("overview-kind"),
                                            elem_id="overview-kind")
                            words(kind, "label", "overview-kind")
                            words(kind, "choices", [(f"kind-{k}", k) for k in h.KINDS])
                            pick = words(gr.Dropdown([], label=T("overview-pick"), elem_id="overview-pick"), "label", "overview-pick")
                        overview = gr.Plot(elem_id="plot-overview")
                        clicked = gr.Textbox(elem_id="overview-click", elem_classes=["tv-hidden"], show_label=False, container=False)
                        large = gr.Plot(elem_id="plot-head")
            with words(gr.Tab(T("group-analysis"), elem_id="group-analysis"), "label", "group-analysis"):
                with gr.Tabs(elem_id="views-analysis"):
                    with words(gr.Tab(T("tab-heads"), elem_id="tab-heads"), "label", "tab-heads"):
                        explain("heads")
                        with gr.Row():
                            heads_cross = gr.Plot(elem_id="plot-heads-cross")
                            heads_dec = gr.Plot(elem_id="plot-heads-dec-self")
                            heads_enc = gr.Plot(elem_id="plot-heads-enc-self")
                        heads_clicked = gr.Textbox(elem_id="heads-click", elem_classes=["tv-hidden"], show_label=False, container=False)
                        heads_open = gr.Plot(elem_id="plot-heads-open")
                    with words(gr.Tab(T("tab-rollout"), elem_id="tab-rollout"), "label", "tab-rollout"):
                        explain("rollout")
                        rollout = gr.Plot(elem_id="plot-rollout")
                        rollout_words = gr.Plot(elem_id="plot-rollout-words")
                        explain("words")
                        words_cross = gr.Plot(elem_id="plot-words-cross")
                    with words(gr.Tab(T("tab-beam"), elem_id="tab-beam"), "label", "tab-beam"):
                        explain("beam")
                        beam_tree = gr.Plot(elem_id="plot-beam")
                        beam_clicked = gr.Textbox(elem_id="beam-click", elem_classes=["tv-hidden"], show_label=False, container=False)
                        beam_info = gr.Markdown(elem_id="beam-node-info")
                        beam_node = gr.Plot(elem_id="plot-beam-node")
            with words(gr.Tab(T("group-experiments"), elem_id="group-experiments"), "label", "group-experiments"):
                with gr.Tabs(elem_id="views-experiments"):
                    with words(gr.Tab(T("tab-whatif"), elem_id="tab-whatif"), "label", "tab-whatif"):
                        explain("whatif")
                        with gr.Row():
                            ablate_groups = [words(gr.CheckboxGroup([], label=T(f"ablate-{key}"), elem_id=f"ablate-{key}"), "label", f"ablate-{key}")
                                             for key in ("enc", "dec", "cross")]
                        with gr.Row():
                            ablation = gr.Radio([(T("ablation-zero"), "zero"), (T("ablation-mean"), "mean")], value="zero",
                                                label=T("ablation"), elem_id="ablation")
                            words(ablation, "label", "ablation")
                            words(ablation, "choices", [("ablation-zero", "zero"), ("ablation-mean", "mean")])
                            no_positions = words(gr.Checkbox(label=T("iv-label-no_positions"), elem_id="no-positions"), "label", "iv-label-no_positions")
                            no_causal = words(gr.Checkbox(label=T("iv-label-no_causal_mask"), elem_id="no-causal-mask"), "label", "iv-label-no_causal_mask")
                            whatif_kind = gr.Radio([(T(f"kind-{k}"), k) for k in h.KINDS], value="decoder self", label=T("whatif-kind"),
                                                   elem_id="whatif-kind")
                            words(whatif_kind, "label", "whatif-kind")
                            words(whatif_kind, "choices", [(f"kind-{k}", k) for k in h.KINDS])
                        whatif_btn = words(gr.Button(T("whatif-run"), variant="primary", elem_id="whatif-run"), "value", "whatif-run")
                        whatif_out = lab_results("whatif")
                    with words(gr.Tab(T("tab-bugs"), elem_id="tab-bugs"), "label", "tab-bugs"):
                        explain("bugs")
                        with gr.Row():
                            bug = gr.Radio([(T(f"iv-label-{b}"), b) for b in SEED_BUGS], value=SEED_BUGS[0], label=T("bug"), elem_id="bug")
                            words(bug, "label", "bug")
                            words(bug, "choices", [(f"iv-label-{b}", b) for b in SEED_BUGS])
                        bug_btn = words(gr.Button(T("bug-run"), variant="primary", elem_id="bug-run"), "value", "bug-run")
                        bug_out = lab_results("bug")
            with words(gr.Tab(T("group-model"), elem_id="group-model"), "label", "group-model"):
                with gr.Tabs(elem_id="views-model"):
                    with words(gr.Tab(T("tab-pe"), elem_id="tab-pe"), "label", "tab-pe"):
                        explain("pe")
                        pe = gr.Plot(elem_id="plot-pe")
                        with gr.Row():
                            pe_curves = gr.Plot(elem_id="plot-pe-curves")
                            pe_sim = gr.Plot(elem_id="plot-pe-similarity")
                        explain("pe-compare")
                        with gr.Row():
                            pe_sin = gr.Plot(elem_id="plot-pe-sinusoidal")
                            pe_learned = gr.Plot(elem_id="plot-pe-learned")
                        with gr.Row():
                            pe_sin_sim = gr.Plot(elem_id="plot-pe-sinusoidal-similarity")
                            pe_learned_sim = gr.Plot(elem_id="plot-pe-learned-similarity")
                    with words(gr.Tab(T("tab-masks"), elem_id="tab-masks"), "label", "tab-masks"):
                        explain("masks")
                        with gr.Row():
                            enc_mask = gr.Plot(elem_id="plot-enc-mask")
                            masks = gr.Plot(elem_id="plot-masks")
                            cross_mask = gr.Plot(elem_id="plot-cross-mask")
                        pipeline = gr.Plot(elem_id="plot-pipeline")
                    with words(gr.Tab(T("tab-card"), elem_id="tab-card"), "label", "tab-card"):
                        card = gr.Markdown(elem_id="model-card")
        words(gr.Markdown(T("footer", version=__version__)), "footer", "footer")

        # ------------------------------------------------------------------ wiring
        options_in = [strategy, beam, temperature, top_k, top_p, seed, max_len]
        step_out = [topk, cross, alignment, dec_self, masks, pipeline]
        static_out = [enc_self, overview, pe, pe_curves, pe_sim, enc_mask, cross_mask, pe_sin, pe_learned, pe_sin_sim, pe_learned_sim,
                      heads_cross, heads_dec, heads_enc, rollout, rollout_words, words_cross, beam_tree]
        step_keys = ["plot-topk", "plot-cross", "plot-alignment", "plot-dec-self", "plot-masks", "plot-pipeline"]
        static_keys = ["plot-enc-self", "plot-overview", "plot-pe", "plot-pe-curves", "plot-pe-similarity", "plot-enc-mask", "plot-cross-mask",
                       "plot-pe-sinusoidal", "plot-pe-learned", "plot-pe-sinusoidal-similarity", "plot-pe-learned-similarity",
                       "plot-heads-cross", "plot-heads-dec-self", "plot-heads-enc-self", "plot-rollout", "plot-rollout-words",
                       "plot-words-cross", "plot-beam"]

        def draw_step(sess, t, lay, hd, pres, lng):
            if sess is None:
                return [gr.skip()] * (len(step_out) + 2)
            trace = sess.trace
            t = h.clamp_step(trace, t)
            figs = h.step_figures(trace, t, int(lay), hd, slides(pres), lang=lng)
            return [plot(figs[k], pres) for k in step_keys] + [h.step_label(trace, t, lng), gr.update(choices=h.alternatives(trace, t), value=None)]

        def draw_all(sess, t, lay, hd, pres, lng, knd):
            if sess is None:
                return [gr.skip()] * (len(step_out) + 2 + len(static_out))
            figs = {**h.static_figures(sess.trace, int(lay), knd, slides(pres), lang=lng),
                    **h.comparison_figures(slides(pres), lang=lng), **h.analysis_figures(sess.trace, int(lay), slides(pres), lang=lng)}
            return draw_step(sess, t, lay, hd, pres, lng) + [plot(figs[k], pres) for k in static_keys]

        @localised_errors
        def on_translate(lng, text, model_name, *opts):
            if not model_name:
                raise gr.Error(i18n.text("err-no-model", lng), print_exception=False)
            options = h.decode_options(*opts)
            sess = h.translate(text, model_name, options)
            return new_session_outputs(sess, text, model_name, options, lng)

        def new_session_outputs(sess, text, model_name, options: DecodeOptions, lng):
            trace = sess.trace
            translator = h.get_translator(sess.model)
            cfg = translator.config
            last = len(trace.target_ids) - 1
            path = Path(tempfile.mkdtemp(prefix="trace-")) / "trace.json"
            path.write_text(trace.to_json(), encoding="utf-8")
            heads = ["mean"] + [str(i) for i in range(cfg.n_heads)]
            picks = [f"layer {l} head {hh}" for l in range(cfg.n_layers) for hh in range(cfg.n_heads)]
            notes = "\n".join(f"- {i18n.message(n, lng)}" for n in trace.notices) or ""
            branch_info = i18n.text("branch-info", lng, branches="; ".join(sess.branches)) if sess.branches else ""
            return [
                sess, trace.target_text, notes, h.tokens_table(trace),
                gr.update(minimum=0, maximum=max(last, 1), value=last, interactive=last > 0),
                gr.update(minimum=0, maximum=max(cfg.n_layers - 1, 1), interactive=cfg.n_layers > 1),
                gr.update(choices=heads), gr.update(choices=picks, value=None),
                gr.update(value=str(path), interactive=True), h.share_query(text, model_name, options),
                h.model_card(translator), branch_info,
            ]

        translate_out = [session, translation, notices, tokens, step, layer, head, pick, download, share, card, branch_md]
        lab_reset = ablate_groups + [whatif_out[0], bug_out[0]]

        def reset_labs(sess):
            """A new translation (or model): head checkboxes for its model; the labs' old comparisons no longer apply."""
            if sess is None:
                return [gr.skip()] * len(lab_reset)
            cfg = h.get_translator(sess.model).config
            return [gr.update(choices=h.head_choices(cfg.n_layers, cfg.n_heads, kind), value=[]) for kind in h.LAB_KINDS] + [None, None]

        def translate_if_linked(lng, text, model_name, *opts):
            """On page load or a new model: translate straight away when there is a sentence."""
            return [gr.skip()] * len(translate_out) if not text else on_translate(lng, text, model_name, *opts)

        step_in = [session, step, layer, head, presentation, lang]
        render_in = step_in + [kind]
        render_out = step_out + [step_md, alt] + static_out

        translate_in = [lang, sentence, model] + options_in
        translate_event = dict(fn=on_translate, inputs=translate_in, outputs=translate_out)
        translate_btn.click(**translate_event, api_visibility="private").then(draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, session, lab_reset, api_visibility="private")
        sentence.submit(**translate_event, api_visibility="private").then(draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, session, lab_reset, api_visibility="private")
        # .input, not .change: a share link that sets the model on load must not translate twice, and
        # picking a model before typing a sentence is not an error.
        model.input(translate_if_linked, translate_in, translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, session, lab_reset, api_visibility="private")

        step.input(draw_step, step_in, step_out + [step_md, alt], api_visibility="private",
                   trigger_mode="always_last")

        def move(sess, t, delta):
            return gr.skip() if sess is None else h.clamp_step(sess.trace, int(t) + delta)

        prev_btn.click(lambda s, t: move(s, t, -1), [session, step], step, api_visibility="private").then(
            draw_step, step_in, step_out + [step_md, alt], api_visibility="private")
        next_btn.click(lambda s, t: move(s, t, +1), [session, step], step, api_visibility="private").then(
            draw_step, step_in, step_out + [step_md, alt], api_visibility="private")

        def start_play(sess):
            return (gr.Timer(active=sess is not None), 0) if sess is not None else (gr.Timer(active=False), gr.skip())

        def tick(sess, t):
            if sess is None or int(t) >= len(sess.trace.target_ids) - 1:
                return gr.Timer(active=False), gr.skip()
            return gr.Timer(active=True), int(t) + 1

        play_btn.click(start_play, session, [timer, step], api_visibility="private").then(
            draw_step, step_in, step_out + [step_md, alt], api_visibility="private")
        timer.tick(tick, [session, step], [timer, step], api_visibility="private").then(
            draw_step, step_in, step_out + [step_md, alt], api_visibility="private")

        # .input, not .change: a new translation resets the layer slider's range, which must not redraw everything twice.
        for control in (layer, presentation, kind):
            control.input(draw_all, render_in, render_out, api_visibility="private")
        head.input(draw_step, step_in, step_out + [step_md, alt], api_visibility="private")

        def open_head(sess, choice, knd, pres, lng):
            """The head chosen in the menu or clicked in the overview, large; and the choice, to redraw it later."""
            if sess is None or not choice:
                return gr.skip(), gr.skip()
            _, lay, _, hd = choice.split()[:4]  # "layer L head H", perhaps followed by a click's timestamp
            with figures.language(lng):
                return plot(figures.attention_head(sess.trace, h.KINDS[knd], int(lay), int(hd), presentation=slides(pres)), pres), choice

        large_choice = gr.State("")  # the head shown in `large`: the menu and the thumbnails both open one
        pick.change(open_head, [session, pick, kind, presentation, lang], [large, large_choice], api_visibility="private")
        # A click on a thumbnail: OVERVIEW_CLICK_JS writes "layer L head H" into the hidden box.
        clicked.change(open_head, [session, clicked, kind, presentation, lang], [large, large_choice], api_visibility="private")

        def open_summary_head(sess, choice, pres, lng):
            """A click on a head-summary cell ('kind layer head') opens that head large."""
            if sess is None or not choice:
                return gr.skip()
            knd, lay, hd = h.parse_click(choice, 3)
            with figures.language(lng):
                return plot(figures.attention_head(sess.trace, knd, int(lay), int(hd), presentation=slides(pres)), pres)

        heads_clicked.change(open_summary_head, [session, heads_clicked, presentation, lang], heads_open, api_visibility="private")

        @localised_errors
        def open_beam_node(lng, sess, choice, lay, pres):
            """A click on a beam-tree node: the attention when that node's token was chosen."""
            if sess is None or not choice:
                return gr.skip(), gr.skip()
            node = int(h.parse_click(choice, 1)[0])
            trace, t = h.beam_node_trace(sess, node)
            info = i18n.text("beam-node", lng, node=node, step=t, tokens=" ".join(html.escape(x) for x in trace.target_tokens[: t + 1]))
            with figures.language(lng):
                return info, plot(figures.attention_grid(trace, "cross", int(lay), step=t, presentation=slides(pres)), pres)

        beam_clicked.change(open_beam_node, [lang, session, beam_clicked, layer, presentation], [beam_info, beam_node],
                            api_visibility="private")

        # What if? and the seed-bug lab: each keeps its Comparison in a State, so layer/head changes only redraw.
        BUG_KIND = {"mask_ignored": "decoder_self", "scale_multiplied": "cross", "scale_d_model": "cross",
                    "target_padding_unmasked": "decoder_self"}

        def lab_outputs(comp, knd, lay, hd, pres, lng):
            figs = h.lab_figures(comp, knd, int(lay), hd, slides(pres), lang=lng)
            return [comp, comp.original.target_text, comp.changed.target_text, h.comparison_summary(comp, lng),
                    plot(figs["probs"], pres), plot(figs["maps"], pres)]

        @localised_errors
        def on_whatif(lng, sess, enc, dec, crs, abl, no_pos, no_mask, knd, lay, hd, pres):
            if sess is None:
                raise gr.Error(i18n.text("err-translate-first", lng), print_exception=False)
            intervention = h.intervention_from_ui((enc or []) + (dec or []) + (crs or []), abl, no_pos, no_mask)
            return lab_outputs(h.run_comparison(sess, intervention), h.KINDS[knd], lay, hd, pres, lng)

        @localised_errors
        def on_bug(lng, sess, name, lay, hd, pres):
            if sess is None:
                raise gr.Error(i18n.text("err-translate-first", lng), print_exception=False)
            comp = h.run_comparison(sess, h.intervention_from_ui([], bug=name))
            return lab_outputs(comp, BUG_KIND[name], lay, hd, pres, lng)

        whatif_btn.click(on_whatif, [lang, session] + ablate_groups + [ablation, no_positions, no_causal, whatif_kind, layer, head,
                                                                      presentation], whatif_out, api_visibility="private")
        bug_btn.click(on_bug, [lang, session, bug, layer, head, presentation], bug_out, api_visibility="private")

        def redraw_labs(wcomp, bcomp, knd, bname, lay, hd, pres, lng):
            """The layer, head, look, map kind or language changed: redraw both labs from their stored comparisons."""
            out = []
            for comp, kind_name in ((wcomp, h.KINDS[knd]), (bcomp, BUG_KIND[bname])):
                if comp is None:
                    out += [gr.skip()] * 3
                    continue
                figs = h.lab_figures(comp, kind_name, int(lay), hd, slides(pres), lang=lng)
                out += [h.comparison_summary(comp, lng), plot(figs["probs"], pres), plot(figs["maps"], pres)]
            return out

        labs_in = [whatif_out[0], bug_out[0], whatif_kind, bug, layer, head, presentation, lang]
        labs_out = whatif_out[-3:] + bug_out[-3:]  # summary, probabilities, maps of each lab
        for control in (layer, head, presentation, whatif_kind):
            control.input(redraw_labs, labs_in, labs_out, api_visibility="private")

        @localised_errors
        def on_branch(lng, sess, t, token_id):
            if sess is None or token_id is None:
                raise gr.Error(i18n.text("err-translate-first", lng), print_exception=False)
            new = h.branch(sess, h.clamp_step(sess.trace, t), int(token_id))
            return new_session_outputs(new, new.trace.source_text, new.model, DecodeOptions(**new.options), lng)

        def on_unbranch(lng, sess):
            if sess is None:
                return [gr.skip()] * len(translate_out)
            back = h.unbranch(sess)
            return new_session_outputs(back, back.trace.source_text, back.model, DecodeOptions(**back.options), lng)

        branch_btn.click(on_branch, [lang, session, step, alt], translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, session, lab_reset, api_visibility="private")
        unbranch_btn.click(on_unbranch, [lang, session], translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, session, lab_reset, api_visibility="private")
        copy.click(None, share, None, js="(q) => { const url = location.origin + location.pathname + q; "
                   "navigator.clipboard && navigator.clipboard.writeText(url); return q; }")

        def on_load(request: gr.Request):
            values = h.parse_query(dict(request.query_params)) if request is not None else {}
            out = [values.get("sentence", gr.skip()),
                   values["model"] if values.get("model") in models else gr.skip()]
            for key in ("strategy", "beam", "temperature", "top_k", "top_p", "seed", "max_len"):
                out.append(values.get(key, gr.skip()))
            # ?lang=ja in the link wins; otherwise the browser's preferred languages decide.
            headers = request.headers if request is not None else {}
            chosen = i18n.language(values["lang"]) if values.get("lang") else i18n.from_accept_language(headers.get("accept-language"))
            return out + [chosen]

        def relabel(lng, sess):
            """Every label, button, tab and explanation in the chosen language; the notices too."""
            notes = "" if sess is None else "\n".join(f"- {i18n.message(n, lng)}" for n in sess.trace.notices)
            return words.updates(lng) + [notes]

        def reopen_views(lng, sess, head_choice, summary_choice, beam_choice, knd, lay, pres):
            """The views a click opened (a head, a head-summary cell, a beam node), redrawn in the new language."""
            def redrawn(draw, *args, width: int = 1):
                try:
                    return draw(*args)
                except (gr.Error, IndexError, ValueError):  # the choice belonged to an earlier translation or model
                    return (gr.skip(),) * width if width > 1 else gr.skip()

            return [redrawn(open_head, sess, head_choice, knd, pres, lng, width=2)[0],
                    redrawn(open_summary_head, sess, summary_choice, pres, lng),
                    *redrawn(open_beam_node, lng, sess, beam_choice, lay, pres, width=2)]

        # Every figure's titles, axes and hovers are in the visitor's language too: redraw them all.
        lang.change(relabel, [lang, session], words.components + [notices], api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private").then(
            redraw_labs, labs_in, labs_out, api_visibility="private").then(
            reopen_views, [lang, session, large_choice, heads_clicked, beam_clicked, kind, layer, presentation],
            [large, heads_open, beam_info, beam_node], api_visibility="private")
        demo.load(None, None, None, js=CLICK_JS)
        demo.load(on_load, None, [sentence, model] + options_in + [lang], api_visibility="private").then(
            translate_if_linked, translate_in, translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, session, lab_reset, api_visibility="private")

        @user_error
        def api_translate(text: str, model_name: str | None = None) -> str:
            """Translate English text to German with a bundled model (default: the first listed); too long a text is refused."""
            name = model_name or (models[0] if models else None)
            if name not in models:
                raise ValueError(f"unknown model {name!r}; choose one of {models}")
            return h.get_translator(name).translate(text, truncate=False)

        gr.api(api_translate, api_name="translate")
    return demo


def launch(**kwargs) -> None:
    demo = build_demo()
    demo.queue(default_concurrency_limit=4, max_size=64)
    demo.launch(theme=THEME, css=CSS, **kwargs)
