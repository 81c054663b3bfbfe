"""The head detectors on the shipped models: the labels a teacher gives the heads by eye, and the rule's own output."""

from __future__ import annotations

import pytest

from transformer_viz.hub.hub import CheckpointError
from transformer_viz.lab import analysis as A

CAT = "The cat sleeps on the sofa."

# Checked by eye: every head's pattern for CAT printed as a rounded matrix and read row by row, before the
# detectors were re-derived. Only heads a teacher would name without hesitation are listed; "mixed" means
# broad or without one pattern. seed000's decoder L0 H1 is the line just below the diagonal (each query looks
# at the input before the one it was fed, parking the rest on <s>); L0 H3 is the diagonal itself, parking on <s>.
# Two heads look like faint sinks by eye but put at most ~0.4 on their key, so the rule calls them mixed and
# they are left out: seed000 encoder L0 H2 (on "▁sleep") and cross L0 H1 (on </s>).
BY_EYE = {
    ("seed000", "decoder_self"): dict(
        L0H1="previous", L0H3="self", L1H0="self", L2H2="self", L0H0="mixed", L1H2="mixed", L2H0="mixed", L2H1="mixed"
    ),
    ("seed000", "encoder_self"): dict(
        L2H0="sink", L2H3="previous", L0H1="mixed", L1H0="mixed", L1H2="mixed", L1H3="mixed", L2H1="mixed", L2H2="mixed"
    ),
    ("seed000", "cross"): dict(
        L1H0="alignment", L1H1="alignment", L1H2="alignment", L1H3="alignment", L2H3="alignment", L0H2="mixed"
    ),
    ("seed004", "decoder_self"): dict(
        L0H0="sink", L1H0="self", L2H0="self", L0H1="mixed", L0H2="mixed", L0H3="mixed", L2H1="mixed", L2H2="mixed"
    ),
    ("seed004", "encoder_self"): dict(
        L1H1="self", L1H3="self", L2H0="self", L2H3="self", L0H0="mixed", L0H1="mixed", L0H2="mixed", L0H3="mixed"
    ),
    ("seed004", "cross"): dict(L2H0="alignment", L2H3="alignment", L0H2="mixed", L0H3="mixed"),
}


@pytest.fixture(scope="module")
def shipped_traces():
    """{model name: its trace of CAT} for the shipped checkpoints; skipped where they are not present."""
    from transformer_viz import load_model

    traces = {}
    for name in ("seed000", "seed004"):
        try:
            traces[name] = load_model(name, device="cpu").trace(CAT)
        except (CheckpointError, FileNotFoundError, OSError) as e:
            pytest.skip(f"shipped checkpoint {name} not available: {e}")
    return traces


@pytest.mark.parametrize("model, kind", list(BY_EYE))
def test_shipped_heads_get_the_labels_a_teacher_gives_them(shipped_traces, model, kind):
    summary = A.head_summary(shipped_traces[model], kind)
    got = {f"L{layer}H{head}": label for layer, row in enumerate(summary.labels) for head, label in enumerate(row)}
    expected = BY_EYE[(model, kind)]
    assert {name: got[name] for name in expected} == expected


def test_labelled_heads_point_for_a_third_of_their_queries(shipped_traces):
    """Every label is the best detector and scores at least DETECTOR_THRESHOLD; "mixed" heads score below it."""
    for trace in shipped_traces.values():
        for kind in A.DETECTORS:
            summary = A.head_summary(trace, kind)
            for layer in range(trace.n_layers):
                for head in range(trace.n_heads):
                    one = summary.head(layer, head)
                    best = max(one["scores"].values())
                    if one["label"] == A.MIXED:
                        assert best < A.DETECTOR_THRESHOLD
                    else:
                        assert one["scores"][one["label"]] == best >= A.DETECTOR_THRESHOLD
