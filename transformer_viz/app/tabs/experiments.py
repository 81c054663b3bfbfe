"""The experiments: "What if?" (switch heads, positions or the causal mask off) and the study notes' bugs.

Each lab keeps its Comparison in a State, so that layer, head, look and language changes only redraw it.
"""

from __future__ import annotations

import gradio as gr

from ... import i18n
from ...probes.interventions import SEED_BUGS
from .. import handlers as h
from .. import handlers_lab as lab
from ..common import Words, localised_errors, plot, slides
from ..models import get_translator
from . import Controls, Event, T, TabGroup, explain, kind_radio, opened_view, shown, tab

# The attention each seed bug breaks: the bug lab shows its map, whatever the kind radio says.
BUG_KIND = {
    "mask_ignored": "decoder_self",
    "scale_multiplied": "cross",
    "scale_d_model": "cross",
    "target_padding_unmasked": "decoder_self",
}


def lab_closed() -> list:
    """A lab's comparison, its two translations, summary and plots, emptied (the plots' boxes hidden until a Run)."""
    return [None, "", "", "", shown(None), shown(None)]


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
        opened_view(f"plot-{prefix}-probs"),  # hidden until a Run gives them a figure
        opened_view(f"plot-{prefix}-maps"),
    ]


def lab_outputs(comp, knd, lay, hd, pres, lng):
    """A lab's results: its comparison, the two translations, the summary and the two plots."""
    figs = lab.lab_figures(comp, knd, int(lay), hd, slides(pres), lang=lng)
    return [
        comp,
        comp.original.target_text,
        comp.changed.target_text,
        lab.comparison_summary(comp, lng),
        shown(plot(figs["probs"], pres)),
        shown(plot(figs["maps"], pres)),
    ]


@localised_errors
def on_whatif(lng, sess, enc, dec, crs, abl, no_pos, no_mask, knd, lay, hd, pres):
    if sess is None:
        raise gr.Error(i18n.text("err-translate-lab", lng), print_exception=False)
    intervention = lab.intervention_from_ui((enc or []) + (dec or []) + (crs or []), abl, no_pos, no_mask)
    kind = lab.changed_kind(intervention, h.KINDS[knd])  # the maps follow what the change touches, and the radio too
    radio = next(choice for choice, name in h.KINDS.items() if name == kind)
    return lab_outputs(lab.run_comparison(sess, intervention), kind, lay, hd, pres, lng) + [radio]


@localised_errors
def on_bug(lng, sess, name, lay, hd, pres):
    if sess is None:
        raise gr.Error(i18n.text("err-translate-lab", lng), print_exception=False)
    comp = lab.run_comparison(sess, lab.intervention_from_ui([], bug=name))
    return lab_outputs(comp, BUG_KIND[name], lay, hd, pres, lng)


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
        out += [lab.comparison_summary(comp, lng), shown(plot(figs["probs"], pres)), shown(plot(figs["maps"], pres))]
    return out


def reset_labs(sess, whatif_comp, bug_comp):
    """A new translation (or model): head checkboxes for its model; the labs' old comparisons and results no longer
    apply: they are emptied (else the results stayed on screen while their comparison was gone). A lab whose
    comparison is already of the new translation (its Run clicked while the new translation's views were still
    coming) keeps it, and its switches."""
    if sess is None:
        return [gr.skip()] * (len(lab.LAB_KINDS) + 2 * len(lab_closed()))
    kept = [comp is not None and lab.made_from(comp, sess) for comp in (whatif_comp, bug_comp)]
    cfg = get_translator(sess.model).config
    cleared = {} if kept[0] else {"value": []}
    checkboxes = [gr.update(choices=lab.head_choices(cfg.n_layers, cfg.n_heads, k), **cleared) for k in lab.LAB_KINDS]
    results = [[gr.skip()] * len(lab_closed()) if keep else lab_closed() for keep in kept]
    return checkboxes + results[0] + results[1]


def lay_out_whatif(words: Words) -> dict:
    """The "What if?" tab's switches, its Run button and its results."""
    explain(words, "whatif")
    with gr.Row():
        ablate_groups = [
            words(gr.CheckboxGroup([], label=T(f"ablate-{key}"), elem_id=f"ablate-{key}"), "label", f"ablate-{key}")
            for key in ("enc", "dec", "cross")  # encoder self, decoder self, cross: the order of lab.LAB_KINDS
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
            gr.Checkbox(label=T("iv-label-no_positions"), elem_id="no-positions"), "label", "iv-label-no_positions"
        )
        no_causal = words(
            gr.Checkbox(label=T("iv-label-no_causal_mask"), elem_id="no-causal-mask"),
            "label",
            "iv-label-no_causal_mask",
        )
        kind = kind_radio(words, "whatif-kind", "decoder self")
    run = words(gr.Button(T("whatif-run"), variant="primary", elem_id="whatif-run"), "value", "whatif-run")
    switches = ablate_groups + [ablation, no_positions, no_causal, kind]
    return dict(ablate_groups=ablate_groups, switches=switches, kind=kind, run=run, out=lab_results(words, "whatif"))


def lay_out_bugs(words: Words) -> dict:
    """The study-notes bug lab's choice of bug, its Run button and its results."""
    explain(words, "bugs")
    with gr.Row():
        bug = gr.Radio([(T(f"iv-label-{b}"), b) for b in SEED_BUGS], value=SEED_BUGS[0], label=T("bug"), elem_id="bug")
        words(bug, "label", "bug")
        words(bug, "choices", [(f"iv-label-{b}", b) for b in SEED_BUGS])
    run = words(gr.Button(T("bug-run"), variant="primary", elem_id="bug-run"), "value", "bug-run")
    return dict(bug=bug, run=run, out=lab_results(words, "bug"))


def build(words: Words, controls: Controls) -> TabGroup:
    """The "Experiments" tab group, laid out and wired."""
    with tab(words, "group-experiments"), gr.Tabs(elem_id="views-experiments"):
        with tab(words, "tab-whatif"):
            whatif = lay_out_whatif(words)
        with tab(words, "tab-bugs"):
            bugs = lay_out_bugs(words)

    s, lang, layer, head, look = controls.session, controls.lang, controls.layer, controls.head, controls.presentation
    whatif_in = [lang, s] + whatif["switches"] + [layer, head, look]
    whatif["run"].click(on_whatif, whatif_in, whatif["out"] + [whatif["kind"]], api_visibility="private")
    bugs["run"].click(on_bug, [lang, s, bugs["bug"], layer, head, look], bugs["out"], api_visibility="private")
    redraw = Event(
        redraw_labs,
        [whatif["out"][0], bugs["out"][0], whatif["kind"], layer, head, look, lang],
        whatif["out"][-3:] + bugs["out"][-3:],  # summary, probabilities, maps of each lab
    )
    redraw.on(layer.input, head.input, look.input, whatif["kind"].input)
    labs = [whatif["out"][0], bugs["out"][0]]  # each lab's comparison
    reset = Event(reset_labs, [s, *labs], whatif["ablate_groups"] + whatif["out"] + bugs["out"])
    return TabGroup(plots={}, on_new_session=[reset], on_language=[redraw])
