"""The app's layout: every component on the page, in order, with each text registered for the language switch."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import __version__, i18n
from ..decoding import STRATEGIES
from ..lab.interventions import SEED_BUGS
from . import handlers as h
from .common import EXAMPLES, LOOK_KEYS, LOOKS, Words
from .session import SLIDER_RANGES

T = i18n.text  # English when the page is built; Words switches it


@dataclass
class Page:
    """The components the wiring needs, named by what they show; top to bottom as on the page."""

    session: gr.State  # the visitor's handlers.Session
    words: Words
    lang: gr.Radio
    # the sentence and how to decode it
    sentence: gr.Textbox
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
    download: gr.DownloadButton
    share: gr.Textbox
    copy: gr.Button
    # the decoding steps, one at a time
    prev_btn: gr.Button
    step: gr.Slider
    next_btn: gr.Button
    play_btn: gr.Button
    step_md: gr.Markdown
    timer: gr.Timer
    topk: gr.Plot
    alt: gr.Dropdown  # another token to branch on at this step
    branch_btn: gr.Button
    unbranch_btn: gr.Button
    branch_md: gr.Markdown
    layer: gr.Slider
    head: gr.Dropdown
    # attention
    cross: gr.Plot
    alignment: gr.Plot
    dec_self: gr.Plot
    enc_self: gr.Plot
    kind: gr.Radio  # which attention the overview shows
    pick: gr.Dropdown  # "layer L head H" to open large
    overview: gr.Plot
    clicked: gr.Textbox  # hidden: CLICK_JS writes the clicked overview thumbnail here
    large: gr.Plot
    # analysis
    heads_cross: gr.Plot
    heads_dec: gr.Plot
    heads_enc: gr.Plot
    heads_clicked: gr.Textbox  # hidden, like `clicked`
    heads_open: gr.Plot
    rollout: gr.Plot
    rollout_words: gr.Plot
    words_cross: gr.Plot
    beam_tree: gr.Plot
    beam_clicked: gr.Textbox  # hidden, like `clicked`
    beam_info: gr.Markdown
    beam_node: gr.Plot
    # experiments: What if? and the seed bugs
    ablate_groups: list[gr.CheckboxGroup]  # encoder self, decoder self, cross
    ablation: gr.Radio
    no_positions: gr.Checkbox
    no_causal: gr.Checkbox
    whatif_kind: gr.Radio
    whatif_btn: gr.Button
    whatif_out: list  # see lab_results
    bug: gr.Radio
    bug_btn: gr.Button
    bug_out: list  # see lab_results
    # the model
    pe: gr.Plot
    pe_curves: gr.Plot
    pe_sim: gr.Plot
    pe_sin: gr.Plot
    pe_learned: gr.Plot
    pe_sin_sim: gr.Plot
    pe_learned_sim: gr.Plot
    enc_mask: gr.Plot
    masks: gr.Plot
    cross_mask: gr.Plot
    pipeline: gr.Plot
    card: gr.Markdown


def explain(words: Words, key: str) -> gr.Markdown:
    return words(gr.Markdown(T(f"explain-{key}"), elem_classes=["tv-explain"]), "value", f"explain-{key}")


def lab_results(words: Words, prefix: str) -> list:
    """[State, original translation, changed translation, summary, probability plot, maps plot] of a lab."""
    state = gr.State(None)
    with gr.Row():
        boxes = [
            words(
                gr.Textbox(label=T(f"whatif-{which}"), elem_id=f"{prefix}-{which}", interactive=False),
                "label",
                f"whatif-{which}",
            )
            for which in ("original", "changed")
        ]
    return [
        state,
        *boxes,
        gr.Markdown(elem_id=f"{prefix}-summary"),
        gr.Plot(elem_id=f"plot-{prefix}-probs"),
        gr.Plot(elem_id=f"plot-{prefix}-maps"),
    ]


def lay_out(models: list[str]) -> Page:
    """Build the page inside the open gr.Blocks; `models` fills the model menu (the first is chosen)."""
    session = gr.State(None)
    words = Words()
    with gr.Row():
        words(gr.Markdown(f"# {T('title')}\n{T('intro')}"), "title", None)
        lang = gr.Radio(
            [(name, code) for code, name in i18n.LANGUAGES.items()],
            value=i18n.DEFAULT,
            label=T("language"),
            elem_id="language",
            scale=0,
            min_width=260,
        )
        words(lang, "label", "language")
    with gr.Row():
        with gr.Column(scale=3):
            sentence = words(
                gr.Textbox(
                    label=T("sentence"),
                    elem_id="sentence",
                    max_lines=3,
                    max_length=2000,
                    placeholder="I get up early every morning.",
                ),
                "label",
                "sentence",
            )
            with gr.Row():
                translate_btn = words(
                    gr.Button(T("translate"), variant="primary", elem_id="translate", scale=1), "value", "translate"
                )
                model = words(
                    gr.Dropdown(
                        models,
                        value=models[0] if models else None,
                        label=T("model"),
                        elem_id="model",
                        allow_custom_value=False,
                        scale=2,
                    ),
                    "label",
                    "model",
                )
            with words(gr.Accordion(T("options"), open=False), "label", "options"):
                strategy = words(
                    gr.Radio(list(STRATEGIES), value="greedy", label=T("strategy"), elem_id="strategy"),
                    "label",
                    "strategy",
                )
                with gr.Row():
                    beam = words(
                        gr.Slider(*SLIDER_RANGES["beam"], value=4, step=1, label=T("beam-size"), elem_id="beam-size"),
                        "label",
                        "beam-size",
                    )
                    max_len = words(
                        gr.Slider(*SLIDER_RANGES["max_len"], value=64, step=1, label=T("max-len"), elem_id="max-len"),
                        "label",
                        "max-len",
                    )
                with gr.Row():
                    temperature = words(
                        gr.Slider(
                            *SLIDER_RANGES["temperature"],
                            value=1.0,
                            step=0.05,
                            label=T("temperature"),
                            elem_id="temperature",
                        ),
                        "label",
                        "temperature",
                    )
                    top_k = words(
                        gr.Slider(*SLIDER_RANGES["top_k"], value=0, step=1, label=T("top-k"), elem_id="top-k"),
                        "label",
                        "top-k",
                    )
                    top_p = words(
                        gr.Slider(*SLIDER_RANGES["top_p"], value=1.0, step=0.05, label=T("top-p"), elem_id="top-p"),
                        "label",
                        "top-p",
                    )
                    seed = words(gr.Number(0, precision=0, label=T("seed"), elem_id="seed"), "label", "seed")
            examples = gr.Examples(EXAMPLES, inputs=sentence, label=T("examples"))
            words(examples.dataset, "label", "examples")
        with gr.Column(scale=4):
            translation = words(
                gr.Textbox(label=T("translation"), elem_id="translation", interactive=False), "label", "translation"
            )
            notices = gr.Markdown(elem_id="notices")
            tokens = words(
                gr.Dataframe(
                    headers=["side", "position", "piece", "id"],
                    label=T("tokens"),
                    elem_id="tokens",
                    interactive=False,
                    max_height=220,
                ),
                "label",
                "tokens",
            )
            with gr.Row():
                presentation = gr.Radio(
                    list(zip([T(k) for k in LOOK_KEYS], LOOKS)),
                    value=LOOKS[0],
                    label=T("figures"),
                    elem_id="presentation",
                )
                words(presentation, "label", "figures")
                words(presentation, "choices", list(zip(LOOK_KEYS, LOOKS)))
                download = words(
                    gr.DownloadButton(T("download"), elem_id="download-trace", interactive=False), "label", "download"
                )  # value is the file
            with gr.Row():
                share = words(
                    gr.Textbox(label=T("share"), elem_id="share-link", interactive=False, scale=4), "label", "share"
                )
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
            unbranch_btn = words(gr.Button(T("unbranch"), elem_id="unbranch", interactive=False), "value", "unbranch")
            branch_md = gr.Markdown(elem_id="branch-info")
    with gr.Row():
        layer = words(gr.Slider(0, 1, value=0, step=1, label=T("layer"), elem_id="layer"), "label", "layer")
        head = words(gr.Dropdown(["mean"], value="mean", label=T("head"), elem_id="head"), "label", "head")

    with gr.Tabs(elem_id="views"):
        with words(gr.Tab(T("group-attention"), elem_id="group-attention"), "label", "group-attention"):
            with gr.Tabs(elem_id="views-attention"):
                with words(gr.Tab(T("tab-cross"), elem_id="tab-cross"), "label", "tab-cross"):
                    explain(words, "cross")
                    cross = gr.Plot(elem_id="plot-cross")
                    alignment = gr.Plot(elem_id="plot-alignment")
                with words(gr.Tab(T("tab-dec-self"), elem_id="tab-dec-self"), "label", "tab-dec-self"):
                    explain(words, "dec-self")
                    dec_self = gr.Plot(elem_id="plot-dec-self")
                with words(gr.Tab(T("tab-enc-self"), elem_id="tab-enc-self"), "label", "tab-enc-self"):
                    explain(words, "enc-self")
                    enc_self = gr.Plot(elem_id="plot-enc-self")
                with words(gr.Tab(T("tab-overview"), elem_id="tab-overview"), "label", "tab-overview"):
                    explain(words, "overview")
                    with gr.Row():
                        kind = gr.Radio(
                            [(T(f"kind-{k}"), k) for k in h.KINDS],
                            value="cross",
                            label=T("overview-kind"),
                            elem_id="overview-kind",
                        )
                        words(kind, "label", "overview-kind")
                        words(kind, "choices", [(f"kind-{k}", k) for k in h.KINDS])
                        pick = words(
                            gr.Dropdown([], label=T("overview-pick"), elem_id="overview-pick"), "label", "overview-pick"
                        )
                    overview = gr.Plot(elem_id="plot-overview")
                    clicked = gr.Textbox(
                        elem_id="overview-click", elem_classes=["tv-hidden"], show_label=False, container=False
                    )
                    large = gr.Plot(elem_id="plot-head")
        with words(gr.Tab(T("group-analysis"), elem_id="group-analysis"), "label", "group-analysis"):
            with gr.Tabs(elem_id="views-analysis"):
                with words(gr.Tab(T("tab-heads"), elem_id="tab-heads"), "label", "tab-heads"):
                    explain(words, "heads")
                    with gr.Row():
                        heads_cross = gr.Plot(elem_id="plot-heads-cross")
                        heads_dec = gr.Plot(elem_id="plot-heads-dec-self")
                        heads_enc = gr.Plot(elem_id="plot-heads-enc-self")
                    heads_clicked = gr.Textbox(
                        elem_id="heads-click", elem_classes=["tv-hidden"], show_label=False, container=False
                    )
                    heads_open = gr.Plot(elem_id="plot-heads-open")
                with words(gr.Tab(T("tab-rollout"), elem_id="tab-rollout"), "label", "tab-rollout"):
                    explain(words, "rollout")
                    rollout = gr.Plot(elem_id="plot-rollout")
                    rollout_words = gr.Plot(elem_id="plot-rollout-words")
                    explain(words, "words")
                    words_cross = gr.Plot(elem_id="plot-words-cross")
                with words(gr.Tab(T("tab-beam"), elem_id="tab-beam"), "label", "tab-beam"):
                    explain(words, "beam")
                    beam_tree = gr.Plot(elem_id="plot-beam")
                    beam_clicked = gr.Textbox(
                        elem_id="beam-click", elem_classes=["tv-hidden"], show_label=False, container=False
                    )
                    beam_info = gr.Markdown(elem_id="beam-node-info")
                    beam_node = gr.Plot(elem_id="plot-beam-node")
        with words(gr.Tab(T("group-experiments"), elem_id="group-experiments"), "label", "group-experiments"):
            with gr.Tabs(elem_id="views-experiments"):
                with words(gr.Tab(T("tab-whatif"), elem_id="tab-whatif"), "label", "tab-whatif"):
                    explain(words, "whatif")
                    with gr.Row():
                        ablate_groups = [
                            words(
                                gr.CheckboxGroup([], label=T(f"ablate-{key}"), elem_id=f"ablate-{key}"),
                                "label",
                                f"ablate-{key}",
                            )
                            for key in ("enc", "dec", "cross")
                        ]
                    with gr.Row():
                        ablation = gr.Radio(
                            [(T("ablation-zero"), "zero"), (T("ablation-mean"), "mean")],
                            value="zero",
                            label=T("ablation"),
                            elem_id="ablation",
                        )
                        words(ablation, "label", "ablation")
                        words(ablation, "choices", [("ablation-zero", "zero"), ("ablation-mean", "mean")])
                        no_positions = words(
                            gr.Checkbox(label=T("iv-label-no_positions"), elem_id="no-positions"),
                            "label",
                            "iv-label-no_positions",
                        )
                        no_causal = words(
                            gr.Checkbox(label=T("iv-label-no_causal_mask"), elem_id="no-causal-mask"),
                            "label",
                            "iv-label-no_causal_mask",
                        )
                        whatif_kind = gr.Radio(
                            [(T(f"kind-{k}"), k) for k in h.KINDS],
                            value="decoder self",
                            label=T("whatif-kind"),
                            elem_id="whatif-kind",
                        )
                        words(whatif_kind, "label", "whatif-kind")
                        words(whatif_kind, "choices", [(f"kind-{k}", k) for k in h.KINDS])
                    whatif_btn = words(
                        gr.Button(T("whatif-run"), variant="primary", elem_id="whatif-run"), "value", "whatif-run"
                    )
                    whatif_out = lab_results(words, "whatif")
                with words(gr.Tab(T("tab-bugs"), elem_id="tab-bugs"), "label", "tab-bugs"):
                    explain(words, "bugs")
                    with gr.Row():
                        bug = gr.Radio(
                            [(T(f"iv-label-{b}"), b) for b in SEED_BUGS],
                            value=SEED_BUGS[0],
                            label=T("bug"),
                            elem_id="bug",
                        )
                        words(bug, "label", "bug")
                        words(bug, "choices", [(f"iv-label-{b}", b) for b in SEED_BUGS])
                    bug_btn = words(gr.Button(T("bug-run"), variant="primary", elem_id="bug-run"), "value", "bug-run")
                    bug_out = lab_results(words, "bug")
        with words(gr.Tab(T("group-model"), elem_id="group-model"), "label", "group-model"):
            with gr.Tabs(elem_id="views-model"):
                with words(gr.Tab(T("tab-pe"), elem_id="tab-pe"), "label", "tab-pe"):
                    explain(words, "pe")
                    pe = gr.Plot(elem_id="plot-pe")
                    with gr.Row():
                        pe_curves = gr.Plot(elem_id="plot-pe-curves")
                        pe_sim = gr.Plot(elem_id="plot-pe-similarity")
                    explain(words, "pe-compare")
                    with gr.Row():
                        pe_sin = gr.Plot(elem_id="plot-pe-sinusoidal")
                        pe_learned = gr.Plot(elem_id="plot-pe-learned")
                    with gr.Row():
                        pe_sin_sim = gr.Plot(elem_id="plot-pe-sinusoidal-similarity")
                        pe_learned_sim = gr.Plot(elem_id="plot-pe-learned-similarity")
                with words(gr.Tab(T("tab-masks"), elem_id="tab-masks"), "label", "tab-masks"):
                    explain(words, "masks")
                    with gr.Row():
                        enc_mask = gr.Plot(elem_id="plot-enc-mask")
                        masks = gr.Plot(elem_id="plot-masks")
                        cross_mask = gr.Plot(elem_id="plot-cross-mask")
                    pipeline = gr.Plot(elem_id="plot-pipeline")
                with words(gr.Tab(T("tab-card"), elem_id="tab-card"), "label", "tab-card"):
                    card = gr.Markdown(elem_id="model-card")
    words(gr.Markdown(T("footer", version=__version__)), "footer", "footer")
    return Page(
        session=session,
        words=words,
        lang=lang,
        sentence=sentence,
        translate_btn=translate_btn,
        model=model,
        strategy=strategy,
        beam=beam,
        max_len=max_len,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        seed=seed,
        translation=translation,
        notices=notices,
        tokens=tokens,
        presentation=presentation,
        download=download,
        share=share,
        copy=copy,
        prev_btn=prev_btn,
        step=step,
        next_btn=next_btn,
        play_btn=play_btn,
        step_md=step_md,
        timer=timer,
        topk=topk,
        alt=alt,
        branch_btn=branch_btn,
        unbranch_btn=unbranch_btn,
        branch_md=branch_md,
        layer=layer,
        head=head,
        cross=cross,
        alignment=alignment,
        dec_self=dec_self,
        enc_self=enc_self,
        kind=kind,
        pick=pick,
        overview=overview,
        clicked=clicked,
        large=large,
        heads_cross=heads_cross,
        heads_dec=heads_dec,
        heads_enc=heads_enc,
        heads_clicked=heads_clicked,
        heads_open=heads_open,
        rollout=rollout,
        rollout_words=rollout_words,
        words_cross=words_cross,
        beam_tree=beam_tree,
        beam_clicked=beam_clicked,
        beam_info=beam_info,
        beam_node=beam_node,
        ablate_groups=ablate_groups,
        ablation=ablation,
        no_positions=no_positions,
        no_causal=no_causal,
        whatif_kind=whatif_kind,
        whatif_btn=whatif_btn,
        whatif_out=whatif_out,
        bug=bug,
        bug_btn=bug_btn,
        bug_out=bug_out,
        pe=pe,
        pe_curves=pe_curves,
        pe_sim=pe_sim,
        pe_sin=pe_sin,
        pe_learned=pe_learned,
        pe_sin_sim=pe_sin_sim,
        pe_learned_sim=pe_learned_sim,
        enc_mask=enc_mask,
        masks=masks,
        cross_mask=cross_mask,
        pipeline=pipeline,
        card=card,
    )
