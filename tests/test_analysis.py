"""Head detectors, rollout, word merging and beam paths, on patterns whose right answer is known by construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tiny import tiny_translator
from transformer_viz.lab import analysis as A
from transformer_viz.trace import Trace


def one_hot(keys: list[int], n_keys: int) -> np.ndarray:
    """A (Q, K) pattern where query q puts all its weight on key keys[q]."""
    w = np.zeros((len(keys), n_keys))
    w[np.arange(len(keys)), keys] = 1.0
    return w


def synthetic_trace(source: list[str], target: list[str], attention: dict[str, np.ndarray]) -> Trace:
    """A Trace carrying only tokens and the given (L, H, Q, K) attention: what the analysis reads."""
    S, T = len(source), len(target)
    return Trace(
        source_text="",
        source_tokens=source,
        source_ids=list(range(S)),
        target_text="",
        target_tokens=target,
        target_ids=list(range(T)),
        steps=[],
        attention=attention,
        masks={
            "encoder": np.ones((S, S), bool),
            "decoder": np.tril(np.ones((T, T), bool)),
            "cross": np.ones((T, S), bool),
        },
        positional_encoding=np.zeros((S, 4)),
        model={},
    )


S = 6  # source pieces, the last one </s>
PREVIOUS = one_hot([0, 0, 1, 2, 3, 4], S)  # row 0 has no previous token: it looks at itself
NEXT = one_hot([1, 2, 3, 4, 5, 5], S)  # the last row has no next token
DIAGONAL = np.eye(S)
ON_EOS = one_hot([S - 1] * S, S)
ON_FIRST = one_hot([0] * S, S)
UNIFORM = np.full((S, S), 1 / S)


@pytest.mark.parametrize(
    "pattern, label",
    [
        (PREVIOUS, "previous"),
        (NEXT, "next"),
        (DIAGONAL, "self"),
        (ON_EOS, "sink"),
        (ON_FIRST, "sink"),
        (UNIFORM, "mixed"),
    ],
)
def test_encoder_detectors_label_pure_patterns(pattern, label):
    scores = A.detector_scores(pattern, "encoder_self")
    assert set(scores) == {"self", "previous", "next", "sink"}
    assert A.label_from_scores(scores) == label
    if label != "mixed":
        assert scores[label] == pytest.approx(1.0)
    assert all(0.0 <= float(s) <= 1.0 for s in scores.values())


def test_sink_names_its_key_and_eos_does_not_count_as_confidence():
    summary = A.summarize_heads(np.stack([ON_EOS, ON_FIRST, DIAGONAL])[None], "encoder_self", skip_last_key=True)
    assert summary.labels == [["sink", "sink", "self"]]
    assert summary.sink_key[0].tolist()[:2] == [S - 1, 0]
    # All weight on </s>: nothing left on the other keys, so not "confident" ...
    assert summary.confidence[0].tolist() == pytest.approx([0.0, 1.0, (S - 1) / S])  # the </s> row's max is on </s>
    # ... though without skipping </s> its rows are as peaked as can be.
    assert A.head_confidence(ON_EOS) == pytest.approx(1.0)


def test_entropy_and_confidence_by_hand():
    w = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    rows = [math.log(2), 0.0, -(0.2 * math.log(0.2) + 0.3 * math.log(0.3) + 0.5 * math.log(0.5))]
    assert A.row_entropy(w).tolist() == pytest.approx(rows)
    assert float(A.head_entropy(w)) == pytest.approx(sum(rows) / 3)
    assert float(A.head_confidence(w)) == pytest.approx((0.5 + 1.0 + 0.5) / 3)
    assert float(A.head_confidence(w, skip_last_key=True)) == pytest.approx((0.5 + 1.0 + 0.3) / 3)
    assert float(A.head_entropy(UNIFORM)) == pytest.approx(math.log(S))


def test_the_best_detector_wins_only_above_the_threshold():
    # rows 1..3 on the previous token, rows 0, 4, 5 on themselves: previous 3 of the 5 rows that have one, self 3 of 6
    blend = np.vstack([DIAGONAL[:1], PREVIOUS[1:4], DIAGONAL[4:]])
    scores = A.detector_scores(blend, "encoder_self")
    assert float(scores["previous"]) == pytest.approx(0.6) and float(scores["self"]) == pytest.approx(0.5)
    assert A.label_from_scores(scores) == "previous"
    assert A.label_from_scores(scores, threshold=0.65) == "mixed"
    assert A.DETECTOR_THRESHOLD == pytest.approx(1 / 3)


def test_a_query_points_at_a_key_holding_more_than_half_its_weight():
    """Scores count queries, not weight: a row splitting evenly between two keys points at neither."""
    halves = 0.5 * PREVIOUS + 0.5 * DIAGONAL
    assert A.points_at(halves[1]).sum() == 0
    assert float(A.detector_scores(halves, "encoder_self")["previous"]) == 0.0
    assert A.label_from_scores(A.detector_scores(halves, "encoder_self")) == "mixed"
    leaning = 0.6 * PREVIOUS + 0.4 * DIAGONAL  # every row with a previous token points at it
    assert float(A.detector_scores(leaning, "encoder_self")["previous"]) == pytest.approx(1.0)
    # a diagonal head that parks 2 of its 6 queries on </s> is still a diagonal head, scoring 4/6
    parking = np.vstack([DIAGONAL[:2], ON_EOS[2:4], DIAGONAL[4:]])
    scores = A.detector_scores(parking, "encoder_self")
    assert float(scores["self"]) == pytest.approx(4 / 6) and A.label_from_scores(scores) == "self"


def test_exact_ties_go_to_the_detector_listed_first():
    everything_on_a = one_hot([0, 0, 0], 4)  # the alignment says every target word ↔ source word 0: also a sink
    scores = A.detector_scores(everything_on_a, "cross", reference=np.zeros(3, int))
    assert scores["alignment"] == pytest.approx(1.0) and scores["sink"] == pytest.approx(1.0)
    assert A.DETECTORS["cross"].index("alignment") < A.DETECTORS["cross"].index("sink")
    assert A.label_from_scores(scores) == "alignment"
    assert A.label_from_scores(dict(reversed(list(scores.items())))) == "sink"


T = 5  # decoder queries; keys are the inputs <s>, y1 … y4


@pytest.mark.parametrize(
    "keys, label",
    [
        ([0, 1, 2, 3, 4], "self"),  # key t: the token just fed in
        ([0, 0, 1, 2, 3], "previous"),  # key t - 1 (row 0 sees only <s>)
        ([0, 0, 0, 0, 0], "sink"),  # everything on <s>
    ],
)
def test_decoder_self_detectors_follow_the_causal_keys(keys, label):
    scores = A.detector_scores(one_hot(keys, T), "decoder_self")
    assert set(scores) == {"self", "previous", "sink"}  # "next" is masked in the decoder
    assert A.label_from_scores(scores) == label and scores[label] == pytest.approx(1.0)


@pytest.mark.parametrize("T_", [3, 4, 5, 8])
def test_a_decoder_head_spread_evenly_is_mixed_however_short_the_translation(T_):
    """Query 0 sees <s> alone: the mask, not the head, puts that row on key 0, so head_summary leaves it out.
    A head spread evenly over the visible keys is mixed; a diagonal, previous-token or <s> head keeps its label."""
    causal = np.tril(np.ones((T_, T_)))
    even = causal / causal.sum(axis=-1, keepdims=True)
    heads = np.stack(
        [even, one_hot(list(range(T_)), T_), one_hot([0] + list(range(T_ - 1)), T_), one_hot([0] * T_, T_)]
    )
    tokens = ["▁w"] * (T_ - 1) + ["</s>"]
    trace = synthetic_trace(
        ["▁a", "</s>"],
        tokens,
        {"decoder_self": heads[None], "cross": np.full((1, 1, T_, 2), 0.5), "encoder_self": np.full((1, 1, 2, 2), 0.5)},
    )
    summary = A.head_summary(trace, "decoder_self")
    assert summary.labels == [["mixed", "self", "previous", "sink"]]
    visible = np.arange(2, T_ + 1)  # keys seen by queries 1 … T-1
    # no query of an even head puts more than half its weight on one key (query 1 splits ½–½): every score is 0
    assert all(float(scores[0, 0]) == 0.0 for scores in summary.scores.values())
    assert summary.confidence[0, 0] == pytest.approx(np.mean(1 / visible))
    assert summary.entropy[0, 0] == pytest.approx(np.mean(np.log(visible)))


def test_a_late_key_seen_by_one_query_is_no_decoder_sink():
    scores = A.detector_scores(one_hot([0, 1, 2, 3, 4], T), "decoder_self")
    assert float(scores["sink"]) == pytest.approx(1 / T)  # every key, the last one too, gets weight from one row


def test_cross_alignment_and_sink_heads():
    source = ["▁a", "▁b", "▁c", "▁d", "</s>"]
    aligned = [2, 0, 3, 1]  # target t ↔ source aligned[t]
    heads = np.stack([one_hot(aligned, 5), one_hot([4] * 4, 5), np.full((4, 5), 0.2)])  # (H, T, S)
    cross = heads[None]  # (L=1, H=3, T, S)
    # The mean over heads puts 1/3 + 0.2/3 on aligned[t] and as much on </s>: skipping </s> finds the alignment.
    assert A.argmax_alignment(cross).tolist() == aligned
    scores = A.detector_scores(heads, "cross", reference=np.array(aligned))
    assert scores["alignment"].tolist() == pytest.approx([1.0, 0.0, 0.0])  # 0.2 on a key is no pointing
    trace = synthetic_trace(
        source,
        ["▁w", "▁x", "▁y", "</s>"],
        {"cross": cross, "encoder_self": np.eye(5)[None, None], "decoder_self": np.eye(4)[None, None]},
    )
    summary = A.head_summary(trace, "cross")
    assert summary.labels == [["alignment", "sink", "mixed"]]
    assert summary.confidence[0].tolist() == pytest.approx([1.0, 0.0, 0.2])  # </s> left out
    assert summary.head(0, 1)["sink_key"] == 4 and summary.head(0, 0)["label"] == "alignment"
    with pytest.raises(ValueError, match="reference"):
        A.detector_scores(heads, "cross")
    with pytest.raises(ValueError):
        A.head_summary(trace, "self")


def test_head_summary_of_a_real_trace_is_consistent():
    trace = tiny_translator().trace("the dog sees the dog.", max_new_tokens=6)
    for kind in ("encoder_self", "decoder_self", "cross"):
        summary = A.head_summary(trace, kind)
        assert summary.entropy.shape == summary.confidence.shape == (trace.n_layers, trace.n_heads)
        for layer in range(trace.n_layers):
            for head in range(trace.n_heads):
                one = summary.head(layer, head)
                best = max(one["scores"], key=one["scores"].get)
                expected = best if one["scores"][best] >= A.DETECTOR_THRESHOLD else "mixed"
                assert one["label"] == expected
                assert 0 < one["confidence"] <= 1


def test_rollout_of_two_layers_by_hand():
    # Layer 1: heads [[1,0],[1,0]] and [[1,0],[0,1]] → mean [[1,0],[.5,.5]] → ½A + ½I = [[1,0],[.25,.75]]
    # Layer 2: heads [[0,1],[0,1]] and [[0,1],[1,0]] → mean [[0,1],[.5,.5]] → ½A + ½I = [[.5,.5],[.25,.75]]
    # R = Ã2 Ã1 = [[.5·1 + .5·.25, .5·0 + .5·.75], [.25·1 + .75·.25, .25·0 + .75·.75]]
    weights = np.array(
        [[[[1, 0], [1, 0]], [[1, 0], [0, 1]]], [[[0, 1], [0, 1]], [[0, 1], [1, 0]]]], dtype=float
    )  # (L=2, H=2, S=2, S=2)
    rollout = A.attention_rollout(weights)
    assert rollout.shape == (2, 2, 2)
    np.testing.assert_allclose(rollout[0], [[1.0, 0.0], [0.25, 0.75]])
    np.testing.assert_allclose(rollout[1], [[0.625, 0.375], [0.4375, 0.5625]])
    # Without the residual it is the plain product of head means: [[0,1],[.5,.5]] @ [[1,0],[.5,.5]]
    np.testing.assert_allclose(A.attention_rollout(weights, residual=0.0)[1], [[0.5, 0.5], [0.75, 0.25]])


def test_rollout_renormalises_rows():
    # Layer 1's row 1 is all zeros (a fully masked query): ½·0 + ½·[0, 1] = [0, .5] → renormalised [0, 1].
    weights = np.array([[[[0.6, 0.4], [0.0, 0.0]]]])  # (L=1, H=1, 2, 2)
    np.testing.assert_allclose(A.attention_rollout(weights)[0], [[0.8, 0.2], [0.0, 1.0]])
    # Without the residual that row has nothing to renormalise: it stays zero, not NaN.
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(A.attention_rollout(weights, residual=0.0)[0], [[0.6, 0.4], [0.0, 0.0]])
    with pytest.raises(ValueError):
        A.attention_rollout(np.ones((1, 1, 2, 3)) / 3)


def test_word_spans_merge_pieces():
    pieces = ["▁Das", "▁Haus", "tür", "▁ist", "▁", "grün", ".", "</s>"]
    spans = A.word_spans(pieces)
    assert spans == [[0], [1, 2], [3], [4, 5, 6], [7]]
    assert A.word_labels(pieces, spans) == ["Das", "Haustür", "ist", "grün.", "</s>"]
    assert A.word_spans(["<s>", "▁ich", "e", "</s>", "ab"]) == [[0], [1, 2], [3], [4]]
    assert A.word_spans(["ou", "t", "▁x"]) == [[0, 1], [2]]  # a first piece without "▁" still starts a word
    # <unk> stands for characters the tokenizer never saw, inside a word: it does not split the word
    pieces = ["▁I", "▁love", "▁", "<unk>", "▁the", "▁ca", "f", "<unk>", "s", ".", "</s>"]
    assert A.word_labels(pieces, A.word_spans(pieces)) == ["I", "love", "<unk>", "the", "caf<unk>s.", "</s>"]


def test_merge_words_sums_keys_and_averages_queries():
    pieces = ["▁a", "b", "▁c"]  # words: "ab" = pieces 0, 1 and "c" = piece 2
    w = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8]])
    # keys summed: [[.5, .5], [.7, .3], [.2, .8]]; query word "ab" = mean of rows 0 and 1 = [.6, .4]
    merged, queries, keys = A.word_level(w, pieces, pieces)
    np.testing.assert_allclose(merged, [[0.6, 0.4], [0.2, 0.8]])
    assert queries == keys == ["ab", "c"]
    np.testing.assert_allclose(merged.sum(axis=-1), 1.0)
    stacked = A.merge_words(np.stack([w, w.T]), A.word_spans(pieces), A.word_spans(pieces))  # leading axes kept
    assert stacked.shape == (2, 2, 2)
    np.testing.assert_allclose(stacked[0], merged)


def test_merge_words_leaves_rows_not_produced_yet_out_of_their_words_mean():
    """A figure hides the rows after the step as NaN: a word half written averages only its written pieces."""
    pieces = ["▁a", "b", "▁c"]
    w = np.array([[0.2, 0.3, 0.5], [np.nan] * 3, [np.nan] * 3])  # only piece 0 produced so far
    merged = A.merge_words(w, A.word_spans(pieces), A.word_spans(pieces))
    np.testing.assert_allclose(merged[0], [0.5, 0.5])  # the row of piece 0 alone, not NaN, not halved
    assert np.isnan(merged[1]).all()  # word "c": none of its pieces produced, a gap
    w[1] = [0.6, 0.1, 0.3]
    np.testing.assert_allclose(A.merge_words(w, A.word_spans(pieces), A.word_spans(pieces))[0], [0.6, 0.4])


TREE = [  # a hand-built beam tree: node i is TREE[i]
    dict(step=0, parent=-1, id=10, log_prob=-0.1, finished=False, kept=True),  # 0
    dict(step=0, parent=-1, id=11, log_prob=-0.5, finished=False, kept=True),  # 1
    dict(step=0, parent=-1, id=12, log_prob=-2.0, finished=False, kept=False),  # 2 pruned
    dict(step=1, parent=1, id=20, log_prob=-0.7, finished=False, kept=True),  # 3
    dict(step=1, parent=0, id=21, log_prob=-0.9, finished=False, kept=True),  # 4
    dict(step=1, parent=1, id=3, log_prob=-1.5, finished=True, kept=False),  # 5 pruned </s>
    dict(step=2, parent=4, id=30, log_prob=-1.0, finished=False, kept=True),  # 6
]


@pytest.mark.parametrize(
    "node, prefix, step", [(6, [10, 21, 30], 2), (3, [11, 20], 1), (5, [11, 3], 1), (2, [12], 0), (0, [10], 0)]
)
def test_beam_node_prefix_walks_back_to_the_root(node, prefix, step):
    assert A.beam_node_prefix(TREE, node) == (prefix, step)


def test_beam_node_prefix_rejects_bad_nodes_and_broken_trees():
    for bad in (-1, 7, "3", 1.0):
        with pytest.raises(ValueError):
            A.beam_node_prefix(TREE, bad)
    looped = [dict(TREE[0], parent=1), dict(TREE[1], parent=0)]
    with pytest.raises(ValueError, match="not a tree"):
        A.beam_node_prefix(looped, 0)


def test_forcing_a_beam_node_prefix_reproduces_its_hypothesis():
    translator = tiny_translator()
    trace = translator.trace("I see the house.", strategy="beam", beam_size=3, max_new_tokens=5)
    for node in (len(trace.beam_tree) - 1, next(i for i, n in enumerate(trace.beam_tree) if not n["kept"])):
        prefix, step = A.beam_node_prefix(trace.beam_tree, node)
        assert prefix[-1] == trace.beam_tree[node]["id"] and step == len(prefix) - 1
        forced = translator.trace("I see the house.", forced_prefix=prefix, max_new_tokens=len(prefix))
        assert forced.target_ids[: len(prefix)] == prefix
        assert forced.attention["cross"].shape[2] > step  # row `step` produced the node's token
