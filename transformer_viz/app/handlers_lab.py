"""Handlers behind "What if?" and the study notes' bugs: UI values → Intervention → Comparison → text and figures.

Plain functions like those in handlers.py (no gradio); they run the shared model through models.get_translator.
"""

from __future__ import annotations

from .. import figures, i18n
from ..decoding import DecodeOptions
from ..errors import UserError
from .handlers import parse_click
from .models import get_translator
from .session import Session

LAB_KINDS = ("encoder_self", "decoder_self", "cross")  # one checkbox group of heads per attention type


def head_choices(n_layers: int, n_heads: int, kind: str) -> list[tuple[str, str]]:
    """Checkbox (label, value) pairs for every head of one attention type: ('L1 H2', 'cross 1 2')."""
    return [(f"L{i} H{hh}", f"{kind} {i} {hh}") for i in range(n_layers) for hh in range(n_heads)]


def intervention_from_ui(
    heads: list[str],
    ablation: str = "zero",
    no_positions: bool = False,
    no_causal_mask: bool = False,
    bug: str | None = None,
):
    """Checkbox values ('kind layer head') and switches → an Intervention (validated against nothing yet)."""
    from ..probes.interventions import Intervention

    ablate = []
    for value in heads or []:
        kind, layer, head = parse_click(value, 3)
        ablate.append((kind, int(layer), int(head)))
    return Intervention(
        ablate=tuple(ablate),
        ablation=ablation or "zero",
        no_positions=bool(no_positions),
        no_causal_mask=bool(no_causal_mask),
        bug=bug or None,
    )


def changed_kind(intervention, shown: str) -> str:
    """The attention the lab's maps show after `intervention`: what it changes, so that the maps differ.

    The kind of the heads it switches off (`shown`, the kind on screen, when it is one of them); the decoder's
    self-attention when it lifts the causal mask; otherwise `shown` (positions change every kind).
    """
    ablated = [kind for kind in LAB_KINDS if any(k == kind for k, _, _ in intervention.ablate)]
    if ablated:
        return shown if shown in ablated else ablated[0]
    return "decoder_self" if intervention.no_causal_mask else shown


def made_from(comp, session: Session) -> bool:
    """Whether a lab's comparison is of the translation `session` shows: its sentence, model and translation (a
    Run clicked just after a new translation, before the page emptied the labs, ran on the new one)."""
    original, trace = comp.original, session.trace
    return (original.source_text, original.target_ids, original.model.get("name")) == (
        trace.source_text,
        trace.target_ids,
        trace.model.get("name"),
    )


def run_comparison(session: Session, intervention):
    """The visitor's sentence, with its decoding options and any branch's forced tokens, without and with
    `intervention` (compare.compare): the lab's original is the translation on the page."""
    from ..lab.compare import compare

    if intervention.is_identity:
        raise UserError("err-lab-nothing")
    translator = get_translator(session.model)
    trace = session.trace  # its options are those it was decoded with (a branch may have raised max_new_tokens)
    return compare(
        translator,
        trace.source_text,
        intervention,
        options=DecodeOptions(**trace.options),
        forced_prefix=trace.target_ids[: trace.forced_prefix] or None,
    )


def comparison_summary(comparison, lang: str = "en") -> str:
    """Markdown beside the comparison: what changed, by how much, and what it teaches."""
    lines = []
    if comparison.pads_missing:  # without this line the bug would seem to change nothing
        lines.append(f"**{i18n.text('notice-no-pad-room', lang)}**")
    t = comparison.first_difference
    lines.append(i18n.text("whatif-same", lang) if t is None else i18n.text("whatif-diff", lang, step=t))
    if len(comparison.prob_change):
        lines.append(i18n.text("whatif-dp", lang, dp=f"{float(comparison.prob_change.mean()):+.1%}"))
    weights = comparison.pad_weight()
    if weights is not None:
        correct, buggy = (float(w.max()) for w in weights)
        lines.append(
            i18n.text("pad-weight", lang, buggy=f"{buggy:.0%}", k=comparison.left_pad, correct=f"{correct:.0%}")
        )
    lines += [
        f"**{i18n.text(f'iv-label-{key}', lang)}.** {i18n.text(f'iv-explain-{key}', lang)}"
        for key in comparison.intervention.keys
    ]
    return "\n\n".join(lines)


def lab_figures(comparison, kind: str, layer: int, head, presentation: bool, lang: str = "en") -> dict:
    """The probability of every original token with and without the change, and one head's maps side by side.

    The maps are the teacher-forced ones (full T × T, so a lifted causal mask shows); the target-padding bug
    shows the left-padded decoder self-attention with its pad columns. Their words are in `lang`.
    """
    head = "mean" if head in (None, "mean", "all") else int(head)
    with figures.language(lang):
        probs = figures.probability_change(
            comparison.forced_original, comparison.forced_changed, presentation=presentation
        )
        if comparison.intervention.bug == "target_padding_unmasked" and comparison.left_pad:
            maps = figures.padding_side_by_side(
                comparison.padded_original,
                comparison.padded_changed,
                comparison.forced_original.target_tokens,
                comparison.padded_keys,
                comparison.left_pad,
                layer,
                0 if head == "mean" else head,
                presentation=presentation,
            )
        else:
            maps = figures.attention_side_by_side(
                comparison.forced_original, comparison.forced_changed, kind, layer, head, presentation=presentation
            )
    return {"probs": probs, "maps": maps}
