"""The Gradio app: the page from layout.py, its events wired to handlers.py and handlers_lab.py.

All work happens there and in figures.
"""

from __future__ import annotations

import gradio as gr

from .. import figures, i18n
from ..decoding import DecodeOptions
from . import handlers as h
from . import handlers_lab as lab
from .common import CLICK_JS, CSS, EXAMPLES, LOOK_KEYS, LOOKS, THEME, Words, localised_errors, plot, slides, user_error
from .downloads import TRACE_FILE_AGE_S, trace_file
from .layout import lay_out
from .model_card import model_card
from .models import available_models, get_translator
from .registry import OTHER_PLOTS, STEP_PLOTS
from .session import branch, decode_options, translate, unbranch
from .share import parse_query, share_query

# The names this module has always offered, now partly defined in ui_common.py (app.py imports `launch`).
__all__ = [
    "CLICK_JS",
    "CSS",
    "EXAMPLES",
    "LOOKS",
    "LOOK_KEYS",
    "THEME",
    "Words",
    "build_demo",
    "launch",
    "localised_errors",
    "plot",
    "slides",
    "user_error",
]


def build_demo() -> gr.Blocks:
    models = available_models()
    # delete_cache: Gradio's copies of the downloads (and other outputs) older than an hour go, hourly
    with gr.Blocks(title="transformer-viz", delete_cache=(3600, TRACE_FILE_AGE_S)) as demo:
        page = lay_out(models)

        # ------------------------------------------------------------------ wiring
        options_in = [page.strategy, page.beam, page.temperature, page.top_k, page.top_p, page.seed, page.max_len]
        shown = {c.elem_id: c for c in vars(page).values() if isinstance(c, gr.Plot)}  # plot id → its gr.Plot
        step_out = [shown[p.id] for p in STEP_PLOTS]
        static_out = [shown[p.id] for p in OTHER_PLOTS]

        def draw_step(sess, t, lay, hd, pres, lng):
            if sess is None:
                return [gr.skip()] * (len(step_out) + 2)
            trace = sess.trace
            t = h.clamp_step(trace, t)
            figs = h.step_figures(trace, t, int(lay), hd, slides(pres), lang=lng)
            return [plot(figs[p.id], pres) for p in STEP_PLOTS] + [
                h.step_label(trace, t, lng),
                gr.update(choices=h.alternatives(trace, t), value=None),
            ]

        def draw_all(sess, t, lay, hd, pres, lng, knd):
            if sess is None:
                return [gr.skip()] * (len(step_out) + 2 + len(static_out))
            t = h.clamp_step(sess.trace, t)
            figs = h.view_figures(OTHER_PLOTS, sess.trace, t, int(lay), hd, knd, slides(pres), lang=lng)
            return draw_step(sess, t, lay, hd, pres, lng) + [plot(figs[p.id], pres) for p in OTHER_PLOTS]

        @localised_errors
        def on_translate(lng, text, model_name, lay, hd, *opts):
            if not model_name:
                raise gr.Error(i18n.text("err-no-model", lng), print_exception=False)
            options = decode_options(*opts)
            sess = translate(text, model_name, options)
            return new_session_outputs(sess, text, model_name, options, lng, lay, hd)

        def new_session_outputs(sess, text, model_name, options: DecodeOptions, lng, lay=None, hd=None):
            """Everything a new session shows; the layer and head, when given, are kept where its model has them."""
            trace = sess.trace
            translator = get_translator(sess.model)
            cfg = translator.config
            last = len(trace.target_ids) - 1
            path = trace_file(trace)
            heads = ["mean"] + [str(i) for i in range(cfg.n_heads)]
            picks = [f"layer {i} head {hh}" for i in range(cfg.n_layers) for hh in range(cfg.n_heads)]
            layer = dict(minimum=0, maximum=max(cfg.n_layers - 1, 1), interactive=cfg.n_layers > 1)
            head = dict(choices=heads)
            if lay is not None:
                layer["value"], head["value"] = h.layer_and_head(cfg, lay, hd)
            return [
                sess,
                trace.target_text,
                h.notices_info(trace, lng),
                h.tokens_table(trace),
                gr.update(minimum=0, maximum=max(last, 1), value=last, interactive=last > 0),
                gr.update(**layer),
                gr.update(**head),
                gr.update(choices=picks, value=None),
                gr.update(value=str(path), interactive=True),
                share_query(text, model_name, options),
                model_card(translator),
                h.branch_info(sess, lng),
                gr.update(interactive=sess.original is not None),  # "back to the original" only after a branch
            ]

        translate_out = [
            page.session,
            page.translation,
            page.notices,
            page.tokens,
            page.step,
            page.layer,
            page.head,
            page.pick,
            page.download,
            page.share,
            page.card,
            page.branch_md,
            page.unbranch_btn,
        ]
        large_choice = gr.State("")  # the head shown in `large`: the menu and the thumbnails both open one
        # What a click opened (a head, a head-summary cell, a beam node) and the hidden boxes that remember the click,
        # each with its closed value
        opened_views = {
            page.large: None,
            large_choice: "",
            page.clicked: "",
            page.heads_clicked: "",
            page.heads_open: None,
            page.beam_clicked: "",
            page.beam_info: "",
            page.beam_node: None,
        }
        # a lab's comparison, its two translations, summary and plots, emptied
        lab_closed = [None, "", "", "", None, None]
        lab_reset = page.ablate_groups + page.whatif_out + page.bug_out + list(opened_views)

        def reset_labs(sess):
            """A new translation (or model): head checkboxes for its model; the labs' old comparisons and results,
            and the views opened by clicks on the old translation, no longer apply: they are emptied (before, the
            results stayed on screen while their comparison was gone, so no later change redrew them)."""
            if sess is None:
                return [gr.skip()] * len(lab_reset)
            cfg = get_translator(sess.model).config
            return (
                [
                    gr.update(choices=lab.head_choices(cfg.n_layers, cfg.n_heads, kind), value=[])
                    for kind in lab.LAB_KINDS
                ]
                + lab_closed
                + lab_closed
                + list(opened_views.values())
            )

        def translate_if_linked(lng, text, model_name, lay, hd, *opts):
            """On page load or a new model: translate straight away when there is a sentence."""
            return [gr.skip()] * len(translate_out) if not text else on_translate(lng, text, model_name, lay, hd, *opts)

        step_in = [page.session, page.step, page.layer, page.head, page.presentation, page.lang]
        render_in = step_in + [page.kind]
        render_out = step_out + [page.step_md, page.alt] + static_out

        translate_in = [page.lang, page.sentence, page.model, page.layer, page.head] + options_in
        translate_event = dict(fn=on_translate, inputs=translate_in, outputs=translate_out)
        page.translate_btn.click(**translate_event, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private"
        ).then(reset_labs, page.session, lab_reset, api_visibility="private")
        page.sentence.submit(**translate_event, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private"
        ).then(reset_labs, page.session, lab_reset, api_visibility="private")
        # .input, not .change: a share link that sets the model on load must not translate twice, and
        # picking a model before typing a sentence is not an error.
        page.model.input(translate_if_linked, translate_in, translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private"
        ).then(reset_labs, page.session, lab_reset, api_visibility="private")

        page.step.input(
            draw_step,
            step_in,
            step_out + [page.step_md, page.alt],
            api_visibility="private",
            trigger_mode="always_last",
        )

        def move(sess, t, delta):
            return gr.skip() if sess is None else h.clamp_step(sess.trace, int(t) + delta)

        page.prev_btn.click(
            lambda s, t: move(s, t, -1), [page.session, page.step], page.step, api_visibility="private"
        ).then(draw_step, step_in, step_out + [page.step_md, page.alt], api_visibility="private")
        page.next_btn.click(
            lambda s, t: move(s, t, +1), [page.session, page.step], page.step, api_visibility="private"
        ).then(draw_step, step_in, step_out + [page.step_md, page.alt], api_visibility="private")

        def start_play(sess):
            return (gr.Timer(active=sess is not None), 0) if sess is not None else (gr.Timer(active=False), gr.skip())

        def tick(sess, t):
            if sess is None or int(t) >= len(sess.trace.target_ids) - 1:
                return gr.Timer(active=False), gr.skip()
            return gr.Timer(active=True), int(t) + 1

        page.play_btn.click(start_play, page.session, [page.timer, page.step], api_visibility="private").then(
            draw_step, step_in, step_out + [page.step_md, page.alt], api_visibility="private"
        )
        page.timer.tick(tick, [page.session, page.step], [page.timer, page.step], api_visibility="private").then(
            draw_step, step_in, step_out + [page.step_md, page.alt], api_visibility="private"
        )

        # .input, not .change: a new translation resets the layer slider's range,
        # which must not redraw everything twice.
        for control in (page.layer, page.presentation, page.kind):
            control.input(draw_all, render_in, render_out, api_visibility="private")
        page.head.input(draw_step, step_in, step_out + [page.step_md, page.alt], api_visibility="private")

        def open_head(sess, choice, knd, pres, lng):
            """The head chosen in the menu or clicked in the overview, large; and the choice, to redraw it later."""
            if sess is None or not choice:
                return gr.skip(), gr.skip()
            _, lay, _, hd = choice.split()[:4]  # "layer L head H", perhaps followed by a click's timestamp
            with figures.language(lng):
                return plot(
                    figures.attention_head(sess.trace, h.KINDS[knd], int(lay), int(hd), presentation=slides(pres)), pres
                ), choice

        page.pick.change(
            open_head,
            [page.session, page.pick, page.kind, page.presentation, page.lang],
            [page.large, large_choice],
            api_visibility="private",
        )
        # A click on a thumbnail: CLICK_JS writes "layer L head H" into the hidden box.
        page.clicked.change(
            open_head,
            [page.session, page.clicked, page.kind, page.presentation, page.lang],
            [page.large, large_choice],
            api_visibility="private",
        )

        def open_summary_head(sess, choice, pres, lng):
            """A click on a head-summary cell ('kind layer head') opens that head large."""
            if sess is None or not choice:
                return gr.skip()
            knd, lay, hd = h.parse_click(choice, 3)
            with figures.language(lng):
                return plot(figures.attention_head(sess.trace, knd, int(lay), int(hd), presentation=slides(pres)), pres)

        page.heads_clicked.change(
            open_summary_head,
            [page.session, page.heads_clicked, page.presentation, page.lang],
            page.heads_open,
            api_visibility="private",
        )

        @localised_errors
        def open_beam_node(lng, sess, choice, lay, pres):
            """A click on a beam-tree node: the attention when that node's token was chosen."""
            if sess is None or not choice:
                return gr.skip(), gr.skip()
            node = int(h.parse_click(choice, 1)[0])
            trace, t = h.beam_node_trace(sess, node)
            with figures.language(lng):
                return h.beam_node_info(trace, node, t, lng), plot(
                    figures.attention_grid(trace, "cross", int(lay), step=t, presentation=slides(pres)), pres
                )

        page.beam_clicked.change(
            open_beam_node,
            [page.lang, page.session, page.beam_clicked, page.layer, page.presentation],
            [page.beam_info, page.beam_node],
            api_visibility="private",
        )

        # What if? and the seed-bug lab: each keeps its Comparison in a State, so layer/head changes only redraw.
        BUG_KIND = {
            "mask_ignored": "decoder_self",
            "scale_multiplied": "cross",
            "scale_d_model": "cross",
            "target_padding_unmasked": "decoder_self",
        }

        def lab_outputs(comp, knd, lay, hd, pres, lng):
            figs = lab.lab_figures(comp, knd, int(lay), hd, slides(pres), lang=lng)
            return [
                comp,
                comp.original.target_text,
                comp.changed.target_text,
                lab.comparison_summary(comp, lng),
                plot(figs["probs"], pres),
                plot(figs["maps"], pres),
            ]

        @localised_errors
        def on_whatif(lng, sess, enc, dec, crs, abl, no_pos, no_mask, knd, lay, hd, pres):
            if sess is None:
                raise gr.Error(i18n.text("err-translate-lab", lng), print_exception=False)
            intervention = lab.intervention_from_ui((enc or []) + (dec or []) + (crs or []), abl, no_pos, no_mask)
            return lab_outputs(lab.run_comparison(sess, intervention), h.KINDS[knd], lay, hd, pres, lng)

        @localised_errors
        def on_bug(lng, sess, name, lay, hd, pres):
            if sess is None:
                raise gr.Error(i18n.text("err-translate-lab", lng), print_exception=False)
            comp = lab.run_comparison(sess, lab.intervention_from_ui([], bug=name))
            return lab_outputs(comp, BUG_KIND[name], lay, hd, pres, lng)

        page.whatif_btn.click(
            on_whatif,
            [page.lang, page.session]
            + page.ablate_groups
            + [
                page.ablation,
                page.no_positions,
                page.no_causal,
                page.whatif_kind,
                page.layer,
                page.head,
                page.presentation,
            ],
            page.whatif_out,
            api_visibility="private",
        )
        page.bug_btn.click(
            on_bug,
            [page.lang, page.session, page.bug, page.layer, page.head, page.presentation],
            page.bug_out,
            api_visibility="private",
        )

        def redraw_labs(wcomp, bcomp, knd, lay, hd, pres, lng):
            """The layer, head, look, map kind or language changed: redraw both labs from their stored comparisons."""
            out = []
            # the bug lab shows the map of the bug it ran, whatever the radio says since
            bug_kind = BUG_KIND[bcomp.intervention.bug] if bcomp is not None else None
            for comp, kind_name in ((wcomp, h.KINDS[knd]), (bcomp, bug_kind)):
                if comp is None:
                    out += [gr.skip()] * 3
                    continue
                figs = lab.lab_figures(comp, kind_name, int(lay), hd, slides(pres), lang=lng)
                out += [lab.comparison_summary(comp, lng), plot(figs["probs"], pres), plot(figs["maps"], pres)]
            return out

        labs_in = [
            page.whatif_out[0],
            page.bug_out[0],
            page.whatif_kind,
            page.layer,
            page.head,
            page.presentation,
            page.lang,
        ]
        labs_out = page.whatif_out[-3:] + page.bug_out[-3:]  # summary, probabilities, maps of each lab
        for control in (page.layer, page.head, page.presentation, page.whatif_kind):
            control.input(redraw_labs, labs_in, labs_out, api_visibility="private")

        @localised_errors
        def on_branch(lng, sess, t, token_id):
            if sess is None or token_id is None:
                raise gr.Error(i18n.text("err-translate-first", lng), print_exception=False)
            new = branch(sess, h.clamp_step(sess.trace, t), int(token_id))
            return new_session_outputs(new, new.trace.source_text, new.model, DecodeOptions(**new.options), lng)

        def on_unbranch(lng, sess):
            if sess is None:
                return [gr.skip()] * len(translate_out)
            back = unbranch(sess)
            return new_session_outputs(back, back.trace.source_text, back.model, DecodeOptions(**back.options), lng)

        page.branch_btn.click(
            on_branch, [page.lang, page.session, page.step, page.alt], translate_out, api_visibility="private"
        ).then(draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, page.session, lab_reset, api_visibility="private"
        )
        page.unbranch_btn.click(on_unbranch, [page.lang, page.session], translate_out, api_visibility="private").then(
            draw_all, render_in, render_out, api_visibility="private"
        ).then(reset_labs, page.session, lab_reset, api_visibility="private")
        page.copy.click(
            None,
            page.share,
            None,
            js="(q) => { const url = location.origin + location.pathname + q; "
            "navigator.clipboard && navigator.clipboard.writeText(url); return q; }",
        )

        def on_load(request: gr.Request):
            values = parse_query(dict(request.query_params)) if request is not None else {}
            out = [values.get("sentence", gr.skip()), values["model"] if values.get("model") in models else gr.skip()]
            for key in ("strategy", "beam", "temperature", "top_k", "top_p", "seed", "max_len"):
                out.append(values.get(key, gr.skip()))
            # ?lang=ja in the link wins; otherwise the browser's preferred languages decide.
            headers = request.headers if request is not None else {}
            chosen = (
                i18n.language(values["lang"])
                if values.get("lang")
                else i18n.from_accept_language(headers.get("accept-language"))
            )
            return out + [chosen]

        def relabel(lng, sess):
            """Every label, button, tab and explanation in the chosen language; the notices and the branch too."""
            if sess is None:
                return page.words.updates(lng) + ["", ""]
            return page.words.updates(lng) + [h.notices_info(sess.trace, lng), h.branch_info(sess, lng)]

        def reopen_views(lng, sess, head_choice, summary_choice, beam_choice, knd, lay, pres):
            """The views a click opened (a head, a head-summary cell, a beam node), redrawn in the new language."""

            def redrawn(draw, *args, width: int = 1):
                try:
                    return draw(*args)
                except (gr.Error, IndexError, ValueError):  # the choice belonged to an earlier translation or model
                    return (gr.skip(),) * width if width > 1 else gr.skip()

            return [
                redrawn(open_head, sess, head_choice, knd, pres, lng, width=2)[0],
                redrawn(open_summary_head, sess, summary_choice, pres, lng),
                *redrawn(open_beam_node, lng, sess, beam_choice, lay, pres, width=2),
            ]

        reopen_in = [
            page.lang,
            page.session,
            large_choice,
            page.heads_clicked,
            page.beam_clicked,
            page.kind,
            page.layer,
            page.presentation,
        ]
        reopen_out = [page.large, page.heads_open, page.beam_info, page.beam_node]
        # Every figure's titles, axes and hovers are in the visitor's language too: redraw them all.
        page.lang.change(
            relabel,
            [page.lang, page.session],
            page.words.components + [page.notices, page.branch_md],
            api_visibility="private",
        ).then(draw_all, render_in, render_out, api_visibility="private").then(
            redraw_labs, labs_in, labs_out, api_visibility="private"
        ).then(reopen_views, reopen_in, reopen_out, api_visibility="private")
        # The opened views follow the layer (beam node), the look and the overview's kind (large head) as well.
        for control in (page.layer, page.presentation, page.kind):
            control.input(reopen_views, reopen_in, reopen_out, api_visibility="private")
        demo.load(None, None, None, js=CLICK_JS)
        demo.load(on_load, None, [page.sentence, page.model] + options_in + [page.lang], api_visibility="private").then(
            translate_if_linked, translate_in, translate_out, api_visibility="private"
        ).then(draw_all, render_in, render_out, api_visibility="private").then(
            reset_labs, page.session, lab_reset, api_visibility="private"
        )

        @user_error
        def api_translate(text: str, model_name: str | None = None) -> str:
            """Translate English text to German with a bundled model (default: the first listed).

            Too long a text is refused.
            """
            name = model_name or (models[0] if models else None)
            if name not in models:
                raise ValueError(f"unknown model {name!r}; choose one of {models}")
            return get_translator(name).translate(text, truncate=False)

        gr.api(api_translate, api_name="translate")
    return demo


def launch(**kwargs) -> None:
    demo = build_demo()
    demo.queue(default_concurrency_limit=4, max_size=64)
    demo.launch(theme=THEME, css=CSS, **kwargs)
