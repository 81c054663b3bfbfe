"""Handlers behind "What if?" and the seed-bug lab: UI values → Intervention → Comparison → text and figures."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tiny import tiny_translator
from transformer_viz import i18n
from transformer_viz.app import handlers_lab as lab
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.lab.compare import compare
from transformer_viz.probes.interventions import SEED_BUGS, Intervention
from transformer_viz.training.train import weights_digest

SENTENCE = "I see the house."
UI_DEFAULTS = dict(strategy="greedy", beam_size=4, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_new_tokens=12)

pytestmark = pytest.mark.usefixtures("empty_registry")  # each test registers the models it uses, and leaves none


@pytest.fixture(scope="module")
def translator():
    """The tiny seed004 model here, in place of conftest's seed000."""
    return tiny_translator("seed004", max_len=24)


@pytest.fixture
def session(translator):
    models.register_translator("tiny", translator)
    return sessions.translate(SENTENCE, "tiny", sessions.decode_options(*UI_DEFAULTS.values()))


def test_head_choices_cover_every_head_and_parse_back(translator):
    cfg = translator.config
    choices = lab.head_choices(cfg.n_layers, cfg.n_heads, "cross")
    assert len(choices) == cfg.n_layers * cfg.n_heads
    intervention = lab.intervention_from_ui([value for _, value in choices[-2:]], "mean")
    last = (cfg.n_layers - 1, cfg.n_heads - 1)
    assert (
        intervention.ablate == (("cross", last[0], last[1] - 1), ("cross", *last)) and intervention.ablation == "mean"
    )
    assert lab.intervention_from_ui([], bug="scale_d_model") == Intervention(bug="scale_d_model")


def test_a_lab_run_with_nothing_chosen_is_refused_in_the_visitors_language(session):
    with pytest.raises(ValueError) as err:
        lab.run_comparison(session, lab.intervention_from_ui([]))
    assert err.value.key == "err-lab-nothing"
    assert i18n.message(err.value, "ko") == i18n.text("err-lab-nothing", "ko")


def test_whatif_equals_the_library_comparison_and_explains_itself(session, translator):
    values = [v for _, v in lab.head_choices(translator.config.n_layers, translator.config.n_heads, "cross")]
    intervention = lab.intervention_from_ui(values, "zero", no_positions=True)
    comp = lab.run_comparison(session, intervention)
    expected = compare(translator, SENTENCE, intervention, options=sessions.decode_options(*UI_DEFAULTS.values()))
    assert comp.changed.target_ids == expected.changed.target_ids
    np.testing.assert_allclose(comp.prob_change, expected.prob_change, atol=1e-6)
    summary = lab.comparison_summary(comp, "ja")
    for key in ("ablate_zero", "no_positions"):
        assert i18n.text(f"iv-explain-{key}", "ja") in summary
    assert f"{float(comp.prob_change.mean()):+.1%}" in summary
    figs = lab.lab_figures(comp, "cross", 1, "mean", presentation=False)
    bars = [d for d in figs["probs"].data if d.type == "bar"]
    assert bars and all(len(b.y) == len(comp.original.target_ids) for b in bars)


@pytest.mark.parametrize("bug", SEED_BUGS)
def test_every_seed_bug_runs_and_leaves_the_shared_model_unchanged(session, translator, bug):
    before = weights_digest(translator.model.state_dict())
    comp = lab.run_comparison(session, lab.intervention_from_ui([], bug=bug))
    assert weights_digest(translator.model.state_dict()) == before
    figs = lab.lab_figures(comp, "decoder_self", 0, "1", presentation=True)
    title = figs["maps"].layout.title.text.replace("<br>", " ")  # long titles wrap to the figure's width
    if bug == "target_padding_unmasked":
        assert "pad tokens in front" in title and comp.left_pad > 0
        correct, buggy = comp.pad_weight()
        assert float(correct.max()) == 0.0 and float(buggy.max()) > 0.0  # only the bug lets real tokens see pads
        assert i18n.text(
            "pad-weight", "en", buggy=f"{float(buggy.max()):.0%}", k=comp.left_pad, correct="0%"
        ) in lab.comparison_summary(comp)
    else:
        assert "Head 1" in title


def test_the_padding_bug_says_when_there_is_no_room_for_pads():
    """A translation as long as max_len leaves no room for pads in front.

    The summary says so, in the visitor's language.
    """
    full = tiny_translator("seed004", max_len=12)  # the untrained model runs to the limit
    models.register_translator("full", full)
    session = sessions.translate(SENTENCE, "full", sessions.decode_options(*UI_DEFAULTS.values()))
    assert len(session.trace.target_ids) == full.config.max_len
    comp = lab.run_comparison(session, lab.intervention_from_ui([], bug="target_padding_unmasked"))
    assert comp.left_pad == 0
    assert lab.comparison_summary(comp, "en").startswith("**no room to left-pad the target within max_len")
    assert i18n.text("notice-no-pad-room", "ja") in lab.comparison_summary(comp, "ja")
    assert "notice-no-pad-room" in [getattr(n, "key", None) for n in comp.forced_changed.notices]
    plain = lab.run_comparison(session, lab.intervention_from_ui([], bug="mask_ignored"))
    assert "no room" not in lab.comparison_summary(plain, "en")


def test_a_lab_run_on_a_branch_compares_the_branch(session):
    """After a branch the lab's original is the branched translation on the page.

    The change keeps its forced tokens.
    """
    trace, t = session.trace, 1
    forced = next(alt["id"] for alt in trace.steps[t]["top_k"] if alt["id"] != trace.target_ids[t])
    branched = sessions.branch(session, t, forced)
    comp = lab.run_comparison(branched, lab.intervention_from_ui([], bug="mask_ignored"))
    assert comp.original.target_ids == branched.trace.target_ids
    assert comp.changed.target_ids[: t + 1] == branched.trace.target_ids[: t + 1]
    assert comp.original.forced_prefix == comp.changed.forced_prefix == t + 1


def test_the_maps_follow_the_attention_the_change_switches_off():
    heads = lambda *kinds: lab.intervention_from_ui([f"{kind} 0 1" for kind in kinds])  # noqa: E731
    assert lab.changed_kind(heads("cross"), "decoder_self") == "cross"
    assert lab.changed_kind(heads("encoder_self", "cross"), "cross") == "cross"  # the kind on screen is one of them
    assert lab.changed_kind(heads("encoder_self", "cross"), "decoder_self") == "encoder_self"
    assert lab.changed_kind(lab.intervention_from_ui([], no_causal_mask=True), "cross") == "decoder_self"
    assert lab.changed_kind(lab.intervention_from_ui([], no_positions=True), "encoder_self") == "encoder_self"


def test_whatif_with_cross_heads_off_shows_cross_attention_and_says_so_on_the_radio(session, translator):
    import plotly.io

    from transformer_viz.app.tabs.experiments import on_whatif

    cfg = translator.config
    crs = [f"cross 0 {head}" for head in range(cfg.n_heads)]  # every cross head of the first layer off
    out = on_whatif("en", session, [], [], crs, "zero", False, False, "decoder self", 1, "mean", "screen")
    assert out[-1] == "cross"  # the radio moves to the maps' kind
    assert out[5]["visible"]  # the maps' box opens with its figure
    shown = plotly.io.from_json(out[5]["value"].plot)
    assert i18n.text("fig-kind-cross", "en") in shown.layout.title.text
    maps = lab.lab_figures(out[0], "cross", 1, "mean", False)["maps"]  # the same figure, its arrays as numbers
    assert maps.layout.title.text == shown.layout.title.text
    original, changed = (np.array(d.z, dtype=float) for d in maps.data if d.type == "heatmap")
    assert not np.allclose(original, changed)  # layer 1's cross-attention reads a changed decoder: the maps differ


def test_a_new_translation_empties_the_labs_unless_they_ran_on_it(session):
    """A lab run clicked while a new translation's views were still coming ran on the new translation: the labs'
    reset, arriving after it, keeps that result (and its switches); a result of the translation before is emptied."""
    from transformer_viz.app.tabs.experiments import lab_closed, reset_labs

    comp = lab.run_comparison(session, lab.intervention_from_ui([], bug="scale_multiplied"))
    assert lab.made_from(comp, session)
    other = sessions.translate("the house is red.", session.model, sessions.decode_options(*UI_DEFAULTS.values()))
    assert not lab.made_from(comp, other)
    n_switches = len(lab.LAB_KINDS)
    kept = reset_labs(session, None, comp)  # the bug lab ran on this translation; the What-if lab never ran
    assert kept[n_switches:] == lab_closed() + [{"__type__": "update"}] * len(lab_closed())
    assert all(box["value"] == [] for box in kept[:n_switches])  # the What-if lab's switches: cleared with it
    emptied = reset_labs(other, comp, comp)  # both ran on the translation before
    assert emptied[n_switches:] == lab_closed() + lab_closed()
    kept_whatif = reset_labs(session, comp, None)
    assert all("value" not in box for box in kept_whatif[:n_switches])  # its switches stay as the Run had them
    assert kept_whatif[n_switches : n_switches + len(lab_closed())] == [{"__type__": "update"}] * len(lab_closed())
