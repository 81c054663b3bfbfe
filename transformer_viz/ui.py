"""The Gradio app: layout first, then wiring. All work happens in handlers.py and figures.py."""
from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import gradio as gr
from gradio.components.plot import PlotData

from . import __version__, figures
from . import handlers as h
from .decoding import DecodeOptions

TITLE = "transformer-viz: look inside a Transformer while it translates"
EXAMPLES = [
    "I get up early every morning.",                 # separable verb: "stehe … auf"
    "The weather is nice today.",                    # inversion: "Heute ist das Wetter schön"
    "I think that he is right.",                     # subordinate clause: verb goes last
    "My brother has bought a new car.",              # perfect tense: participle at the end
    "The children are playing in the garden.",
    "We need a train station.",                      # compound: "Bahnhof"
    "Where is the station?",
]
# Markdown: write tokens such as `<s>` in backticks, or the browser takes them for HTML tags (<s> strikes text out).
EXPLAIN = {
    "cross": "Each row is one target token being produced (the query); each column is a source token (a key). "
             "Bright cells show which English pieces the decoder read when it wrote that German piece.",
    "dec-self": "The decoder reads only what it has already written: row t can look at `<s>` and the tokens before "
                "it, never ahead: every weight above the diagonal is exactly zero (the causal mask), and rows not produced yet are grey.",
    "enc-self": "Every English piece looks at every other piece (no mask except padding): this is how the encoder "
                "mixes context into each token's vector.",
    "overview": "Every layer × head at once. Heads specialise: some look at the previous token, some at the same "
                "position, some park on `</s>` when they have nothing to do. Pick one to open it large.",
    "pe": "Positions are not words: the model adds a vector per position to each embedding. Sinusoidal encodings "
          "use waves of different frequencies (fast on the left, slow on the right); learned ones are trained. "
          "Nearby positions get similar vectors, which the similarity matrix shows as a bright band.",
    "pe-compare": "The two bundled models side by side: seed000 adds the fixed sinusoidal table, seed004 learned "
                  "its positions from data. Compare the patterns and how smoothly similarity falls off with distance.",
    "masks": "A mask says which keys a query may attend to (1) and which it may not (0). Masked scores become −∞ "
             "before the softmax, so their weight is exactly zero.",
}
# gr.Plot has no click event with point data: listen to Plotly's own and hand the head to a hidden textbox.
OVERVIEW_CLICK_JS = """() => {
  const attach = () => {
    const plot = document.querySelector('#plot-overview .js-plotly-plot');
    if (!plot || plot.dataset.tvClick || !plot.on) return;
    plot.dataset.tvClick = '1';
    plot.on('plotly_click', (event) => {
      const meta = event.points[0].data.meta;  // [layer, head], set by figures.overview
      const box = document.querySelector('#overview-click textarea, #overview-click input');
      if (!meta || !box) return;
      box.value = `layer ${meta[0]} head ${meta[1]} (${Date.now()})`;  // changes even when the same head is clicked again
      box.dispatchEvent(new Event('input', {bubbles: true}));
    });
  };
  new MutationObserver(attach).observe(document.body, {childList: true, subtree: true});
}"""
CSS = "#step-label {min-height: 2.5em} .tv-hidden {display: none !important}"
# System fonts only: the page must load nothing from outside the machine.
THEME = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])


# The figures' look: on screen, or for slides (large fonts, white) with a 3× PNG or an SVG download.
LOOKS = ["screen", "slides (PNG download)", "slides (SVG download)"]


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


def build_demo() -> gr.Blocks:
    models = h.available_models()
    with gr.Blocks(title="transformer-viz") as demo:
        session = gr.State(None)
        gr.Markdown(f"# {TITLE}\nType an English sentence; the model translates it into German one token at a time. "
                    "Step through the translation and watch every head of every layer.")
        with gr.Row():
            with gr.Column(scale=3):
                sentence = gr.Textbox(label="English sentence", elem_id="sentence", max_lines=3, max_length=2000,
                                      placeholder="I get up early every morning.")
                with gr.Row():
                    translate_btn = gr.Button("Translate", variant="primary", elem_id="translate", scale=1)
                    model = gr.Dropdown(models, value=models[0] if models else None, label="Model", elem_id="model",
                                        allow_custom_value=False, scale=2)
                with gr.Accordion("Decoding options", open=False):
                    strategy = gr.Radio(["greedy", "beam", "sample"], value="greedy", label="Strategy", elem_id="strategy")
                    with gr.Row():
                        beam = gr.Slider(1, 8, value=4, step=1, label="Beam size", elem_id="beam-size")
                        max_len = gr.Slider(1, 128, value=64, step=1, label="Max new tokens", elem_id="max-len")
                    with gr.Row():
                        temperature = gr.Slider(0.05, 2.0, value=1.0, step=0.05, label="Temperature", elem_id="temperature")
                        top_k = gr.Slider(0, 50, value=0, step=1, label="Top-k (0 = off)", elem_id="top-k")
                        top_p = gr.Slider(0.05, 1.0, value=1.0, step=0.05, label="Top-p", elem_id="top-p")
                        seed = gr.Number(0, precision=0, label="Seed", elem_id="seed")
                gr.Examples(EXAMPLES, inputs=sentence, label="Examples with interesting attention")
            with gr.Column(scale=4):
                translation = gr.Textbox(label="German translation", elem_id="translation", interactive=False)
                notices = gr.Markdown(elem_id="notices")
                tokens = gr.Dataframe(headers=["side", "position", "piece", "id"], label="Tokenisation (SentencePiece pieces)",
                                      elem_id="tokens", interactive=False, max_height=220)
                with gr.Row():
                    presentation = gr.Radio(LOOKS, value=LOOKS[0], label="Figures", elem_id="presentation")
                    download = gr.DownloadButton("Download trace (JSON)", elem_id="download-trace", interactive=False)
                with gr.Row():
                    share = gr.Textbox(label="Share link (query string)", elem_id="share-link", interactive=False, scale=4)
                    copy = gr.Button("Copy link", elem_id="copy-link", scale=1)

        with gr.Row(equal_height=True):
            prev_btn = gr.Button("◀ Previous", elem_id="step-prev", scale=1)
            step = gr.Slider(0, 1, value=0, step=1, label="Step", elem_id="step-slider", scale=6)
            next_btn = gr.Button("Next ▶", elem_id="step-next", scale=1)
            play_btn = gr.Button("Play", elem_id="step-play", scale=1)
        step_md = gr.Markdown(elem_id="step-label")
        timer = gr.Timer(0.8, active=False)
        with gr.Row():
            with gr.Column(scale=3):
                topk = gr.Plot(label="Next-token probabilities", elem_id="plot-topk")
            with gr.Column(scale=2):
                alt = gr.Dropdown([], label="Choose another token at this step", elem_id="alternative")
                branch_btn = gr.Button("Force it and continue (branch)", elem_id="branch")
                unbranch_btn = gr.Button("Back to the original translation", elem_id="unbranch")
                branch_md = gr.Markdown(elem_id="branch-info")
        with gr.Row():
            layer = gr.Slider(0, 1, value=0, step=1, label="Layer", elem_id="layer")
            head = gr.Dropdown(["mean"], value="mean", label="Head (alignment and pipeline views)", elem_id="head")

        with gr.Tabs(elem_id="views"):
            with gr.Tab("Cross-attention", elem_id="tab-cross"):
                gr.Markdown(EXPLAIN["cross"])
                cross = gr.Plot(elem_id="plot-cross")
                alignment = gr.Plot(elem_id="plot-alignment")
            with gr.Tab("Decoder self-attention", elem_id="tab-dec-self"):
                gr.Markdown(EXPLAIN["dec-self"])
                dec_self = gr.Plot(elem_id="plot-dec-self")
            with gr.Tab("Encoder self-attention", elem_id="tab-enc-self"):
                gr.Markdown(EXPLAIN["enc-self"])
                enc_self = gr.Plot(elem_id="plot-enc-self")
            with gr.Tab("Overview", elem_id="tab-overview"):
                gr.Markdown(EXPLAIN["overview"])
                with gr.Row():
                    kind = gr.Radio(list(h.KINDS), value="cross", label="Attention", elem_id="overview-kind")
                    pick = gr.Dropdown([], label="Open layer / head", elem_id="overview-pick")
                overview = gr.Plot(elem_id="plot-overview")
                clicked = gr.Textbox(elem_id="overview-click", elem_classes=["tv-hidden"], show_label=False, container=False)
                large = gr.Plot(elem_id="plot-head")
            with gr.Tab("Positional encoding", elem_id="tab-pe"):
                gr.Markdown(EXPLAIN["pe"])
                pe = gr.Plot(elem_id="plot-pe")
                with gr.Row():
                    pe_curves = gr.Plot(elem_id="plot-pe-curves")
                    pe_sim = gr.Plot(elem_id="plot-pe-similarity")
                gr.Markdown(EXPLAIN["pe-compare"])
                with gr.Row():
                    pe_sin = gr.Plot(elem_id="plot-pe-sinusoidal")
                    pe_learned = gr.Plot(elem_id="plot-pe-learned")
                with gr.Row():
                    pe_sin_sim = gr.Plot(elem_id="plot-pe-sinusoidal-similarity")
                    pe_learned_sim = gr.Plot(elem_id="plot-pe-learned-similarity")
            with gr.Tab("Masks", elem_id="tab-masks"):
                gr.Markdown(EXPLAIN["masks"])
                with gr.Row():
                    enc_mask = gr.Plot(elem_id="plot-enc-mask")
                    masks = gr.Plot(elem_id="plot-masks")
                    cross_mask = gr.Plot(elem_id="plot-cross-mask")
                pipeline = gr.Plot(elem_id="plot-pipeline")
            with gr.Tab("Model card", elem_id="tab-card"):
                card = gr.Markdown(elem_id="model-card")
        gr.Markdown(f"transformer-viz {__version__} · runs offline · weights trained from scratch on the Ding dictionary (GPL-2+)")

        # ------------------------------------------------------------------ wiring
        options_in = [strategy, beam, temperature, top_k, top_p, seed, max_len]
        step_out = [topk, cross, alignment, dec_self, masks, pipeline]
        static_out = [enc_self, overview, pe, pe_curves, pe_sim, enc_mask, cross_mask, pe_sin, pe_learned, pe_sin_sim, pe_learned_sim]
        step_keys = ["plot-topk", "plot-cross", "plot-alignment", "plot-dec-self", "plot-masks", "plot-pipeline"]
        static_keys = ["plot-enc-self", "plot-overview", "plot-pe", "plot-pe-curves", "plot-pe-similarity", "plot-enc-mask", "plot-cross-mask",
                       "plot-pe-sinusoidal", "plot-pe-learned", "plot-pe-sinusoidal-similarity", "plot-pe-learned-similarity"]

        def draw_step(sess, t, lay, hd, pres):
            if sess is None:
                return [gr.skip()] * (len(step_out) + 2)
            trace = sess.trace
            t = h.clamp_step(trace, t)
            figs = h.step_figures(trace, t, int(lay), hd, slides(pres))
            return [plot(figs[k], pres) for k in step_keys] + [h.step_label(trace, t), gr.update(choices=h.alternatives(trace, t), value=None)]

        def draw_all(sess, t, lay, hd, pres, knd):
            if sess is None:
                return [gr.skip()] * (len(step_out) + 2 + len(static_out))
            figs = {**h.static_figures(sess.trace, int(lay), knd, slides(pres)), **h.comparison_figures(slides(pres))}
            return draw_step(sess, t, lay, hd, pres) + [plot(figs[k], pres) for k in static_keys]

        @user_error
        def on_translate(text, model_name, *opts):
            if not model_name:
                raise ValueError("no model is available: train one (see README) or set TRANSFORMER_VIZ_HUB_MODEL")
            options = h.decode_options(*opts)
            sess = h.translate(text, model_name, options)
            return new_session_outputs(sess, text, model_name, options)

        def new_session_outputs(sess, text, model_name, options: DecodeOptions):
            trace = sess.trace
            translator = h.get_translator(sess.model)
            cfg = translator.config
            last = len(trace.target_ids) - 1
            path = Path(tempfile.mkdtemp(prefix="trace-")) / "trace.json"
            path.write_text(trace.to_json(), encoding="utf-8")
            heads = ["mean"] + [str(i) for i in range(cfg.n_heads)]
            picks = [f"layer {l} head {hh}" for l in range(cfg.n_layers) for hh in range(cfg.n_heads)]
            notes = "\n".join(f"- {n}" for n in trace.notices) or ""
            branch_info = ("**Branch:** " + "; ".join(sess.branches)) if sess.branches else ""
            return [
                sess, trace.target_text, notes, h.tokens_table(trace),
                gr.update(minimum=0, maximum=max(last, 1), value=last, interactive=last > 0),
                gr.update(minimum=0, maximum=max(cfg.n_layers - 1, 1), interactive=cfg.n_layers > 1),
                gr.update(choices=heads), gr.update(choices=picks, value=None),
                gr.update(value=str(path), interactive=True), h.share_query(text, model_name, options),
                h.model_card(translator), branch_info,
            ]

        translate_out = [session, translation, notices, tokens, step, layer, head, pick, download, share, card, branch_md]

        def translate_if_linked(text, model_name, *opts):
            """On page load or a new model: translate straight away when there is a sentence."""
            return [gr.skip()] * len(translate_out) if not text else on_translate(text, model_name, *opts)

        render_in = [session, step, layer, head, presentation, kind]
        render_out = step_out + [step_md, alt] + static_out

        translate_event = dict(fn=on_translate, inputs=[sentence, model] + options_in, outputs=translate_out)
        translate_btn.click(**translate_event, api_visibility="private").then(draw_all, render_in, render_out, api_visibility="private")
        sentence.submit(**translate_event, api_visibility="private").then(draw_all, render_in, render_out, api_visibility="private")
        # .input, not .change: a share link that sets the model on load must not translate twice, and
        # picking a model before typing a sentence is not an error.
        model.input(translate_if_linked, [sentence, model] + options_in, translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private")

        step.input(draw_step, [session, step, layer, head, presentation], step_out + [step_md, alt], api_visibility="private",
                   trigger_mode="always_last")

        def move(sess, t, delta):
            return gr.skip() if sess is None else h.clamp_step(sess.trace, int(t) + delta)

        prev_btn.click(lambda s, t: move(s, t, -1), [session, step], step, api_visibility="private").then(
            draw_step, [session, step, layer, head, presentation], step_out + [step_md, alt], api_visibility="private")
        next_btn.click(lambda s, t: move(s, t, +1), [session, step], step, api_visibility="private").then(
            draw_step, [session, step, layer, head, presentation], step_out + [step_md, alt], api_visibility="private")

        def start_play(sess):
            return (gr.Timer(active=sess is not None), 0) if sess is not None else (gr.Timer(active=False), gr.skip())

        def tick(sess, t):
            if sess is None or int(t) >= len(sess.trace.target_ids) - 1:
                return gr.Timer(active=False), gr.skip()
            return gr.Timer(active=True), int(t) + 1

        play_btn.click(start_play, session, [timer, step], api_visibility="private").then(
            draw_step, [session, step, layer, head, presentation], step_out + [step_md, alt], api_visibility="private")
        timer.tick(tick, [session, step], [timer, step], api_visibility="private").then(
            draw_step, [session, step, layer, head, presentation], step_out + [step_md, alt], api_visibility="private")

        for control in (layer, presentation):
            control.change(draw_all, render_in, render_out, api_visibility="private")
        head.change(draw_step, [session, step, layer, head, presentation], step_out + [step_md, alt], api_visibility="private")
        kind.change(draw_all, render_in, render_out, api_visibility="private")

        def open_head(sess, choice, knd, pres):
            if sess is None or not choice:
                return gr.skip()
            _, lay, _, hd = choice.split()[:4]  # "layer L head H", perhaps followed by a click's timestamp
            return plot(figures.attention_head(sess.trace, h.KINDS[knd], int(lay), int(hd), presentation=slides(pres)), pres)

        pick.change(open_head, [session, pick, kind, presentation], large, api_visibility="private")
        # A click on a thumbnail: OVERVIEW_CLICK_JS writes "layer L head H" into the hidden box.
        clicked.change(open_head, [session, clicked, kind, presentation], large, api_visibility="private")

        @user_error
        def on_branch(sess, t, token_id):
            if sess is None or token_id is None:
                raise ValueError("translate a sentence and choose a token first")
            new = h.branch(sess, h.clamp_step(sess.trace, t), int(token_id))
            return new_session_outputs(new, new.trace.source_text, new.model, DecodeOptions(**new.options))

        def on_unbranch(sess):
            if sess is None:
                return [gr.skip()] * len(translate_out)
            back = h.unbranch(sess)
            return new_session_outputs(back, back.trace.source_text, back.model, DecodeOptions(**back.options))

        branch_btn.click(on_branch, [session, step, alt], translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private")
        unbranch_btn.click(on_unbranch, session, translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private")
        copy.click(None, share, None, js="(q) => { const url = location.origin + location.pathname + q; "
                   "navigator.clipboard && navigator.clipboard.writeText(url); return q; }")

        def on_load(request: gr.Request):
            values = h.parse_query(dict(request.query_params)) if request is not None else {}
            out = [values.get("sentence", gr.skip()),
                   values["model"] if values.get("model") in models else gr.skip()]
            for key in ("strategy", "beam", "temperature", "top_k", "top_p", "seed", "max_len"):
                out.append(values.get(key, gr.skip()))
            return out

        demo.load(None, None, None, js=OVERVIEW_CLICK_JS)
        demo.load(on_load, None, [sentence, model] + options_in, api_visibility="private").then(
            translate_if_linked, [sentence, model] + options_in, translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private")

        @user_error
        def api_translate(text: str, model_name: str | None = None) -> str:
            """Translate English text to German with a bundled model (default: the first listed)."""
            name = model_name or (models[0] if models else None)
            if name not in models:
                raise ValueError(f"unknown model {name!r}; choose one of {models}")
            return h.get_translator(name).translate(text)

        gr.api(api_translate, api_name="translate")
    return demo


def launch(**kwargs) -> None:
    demo = build_demo()
    demo.queue(default_concurrency_limit=4, max_size=64)
    demo.launch(theme=THEME, css=CSS, **kwargs)
