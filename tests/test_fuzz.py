"""Fuzzing: random Unicode sentences and option combinations never break translate() or trace().

The only exceptions allowed are the library's clear ones: ValueError for an empty
sentence or an absurd option, each naming what to fix. Every trace must be valid
JSON (no NaN or ∞), and every attention row and every step's distribution a
probability distribution.
"""

from __future__ import annotations

import json
import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.tiny import tiny_translator  # noqa: E402
from transformer_viz.decoding import DecodeOptions  # noqa: E402
from transformer_viz.errors import UserError  # noqa: E402

TRANSLATOR = tiny_translator("seed000", max_len=24)  # short outputs keep each example fast
FIELDS = set(DecodeOptions.__dataclass_fields__)
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

# Sentences: any code point (control, zero-width, emoji, right-to-left, surrogates, unassigned), sometimes
# mixed with words the tiny tokenizer knows, sometimes very long.
sentences = st.one_of(
    st.text(alphabet=st.characters(codec=None), max_size=40),
    st.text(alphabet=st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "So", "Cs"]), max_size=10),
    st.lists(
        st.sampled_from(
            [
                "I",
                "see",
                "the",
                "house",
                ".",
                "😀",
                "שלום",
                "<img src=x onerror=alert(1)>",
                "\u200b",
                "\x00",
                "&amp;",
                "$x$",
                "\n",
                "\ud800",
                "\u202e",
                "\ufdfa",
                "e\u0301",
            ]
        ),
        max_size=12,
    ).map(" ".join),
    st.text(alphabet="ab ", min_size=2100, max_size=2500),
)
ints = st.one_of(st.integers(-3, 40), st.sampled_from([10**6, -(10**6), 2**64]))
floats = st.one_of(st.floats(-2, 3), st.sampled_from([math.nan, math.inf, -math.inf, 0.0, 1e-9]))
sensible = st.fixed_dictionaries(
    {},
    optional={
        "strategy": st.sampled_from(["greedy", "beam", "sample"]),
        "max_new_tokens": st.integers(1, 40),
        "beam_size": st.integers(1, 4),
        "temperature": st.floats(0.05, 3),
        "top_k": st.integers(0, 60),
        "top_p": st.floats(0.01, 1),
        "seed": st.one_of(st.integers(-(2**62), 2**62), st.none()),
        "use_cache": st.booleans(),
    },
)
absurd = st.fixed_dictionaries(
    {},
    optional={
        "strategy": st.sampled_from(["greedy", "beam", "sample", "nucleus", ""]),
        "max_new_tokens": st.one_of(ints, st.just(None)),
        "beam_size": ints,
        "temperature": floats,
        "top_k": ints,
        "top_p": floats,
        "seed": st.one_of(ints, st.none()),
        "length_penalty": floats,
        "n_alternatives": ints,
        "use_cache": st.one_of(st.booleans(), st.just("yes")),
    },
)
options = st.one_of(sensible, sensible, absurd)  # mostly options that give a trace to check


def check_distribution(values, where: str) -> None:
    assert all(0.0 <= v <= 1.0 + 1e-6 for v in values), where
    assert math.isclose(sum(values), 1.0, abs_tol=1e-4), where


def check_trace(data: dict) -> None:
    """Schema-level checks of a trace's JSON: lengths agree and every row is a distribution."""
    S, T = len(data["source"]["ids"]), len(data["target"]["ids"])
    assert len(data["source"]["tokens"]) == S and 1 <= S <= TRANSLATOR.config.max_len
    assert len(data["steps"]) == T >= 1
    for kind, rows, cols in (("encoder_self", S, S), ("decoder_self", T, T), ("cross", T, S)):
        for layer in data["attention"][kind]:
            for head in layer:
                assert len(head) == rows and all(len(r) == cols for r in head)
                for q, row in enumerate(head):
                    check_distribution(row, f"{kind} row {q}")
    for step in data["steps"]:
        assert 0.0 <= step["prob"] <= 1.0 and step["entropy"] >= -1e-6
        assert step["id"] == data["target"]["ids"][step["index"]]


@FUZZ
@given(text=sentences, opts=options)
@example(text="I see \ud800 the house", opts={})  # a lone surrogate (sentencepiece cannot take one)
@example(text="\u200b\u200d\ufeff", opts={})  # only zero-width characters: nothing left to translate
@example(text="<img src=x onerror=alert(1)> שלום 😀", opts={"strategy": "beam", "beam_size": 3})
@example(text="I see " * 500, opts={"use_cache": False})
def test_trace_never_fails_unexpectedly(text, opts):
    try:
        trace = TRANSLATOR.trace(text, **opts)
    except ValueError as err:  # the only expected failure: a clear message naming the problem
        message = str(err)
        assert "empty" in message or any(name in message for name in FIELDS), message
        return
    data = json.loads(json.dumps(trace.to_dict(), allow_nan=False))
    check_trace(data)


@FUZZ
@given(texts=st.lists(sentences, min_size=1, max_size=4), opts=options)
@example(texts=["I see the house", "\ud800"], opts={"strategy": "sample"})
def test_translate_never_fails_unexpectedly(texts, opts):
    try:
        out = TRANSLATOR.translate(texts, **opts)
    except ValueError as err:
        message = str(err)
        assert "empty" in message or any(name in message for name in FIELDS), message
        return
    assert isinstance(out, list) and len(out) == len(texts) and all(isinstance(t, str) for t in out)


# what a score may be refused for: the English's emptiness, the German's emptiness or length
SCORE_REFUSALS = {"err-empty", "err-only-markup", "err-german-empty", "err-german-only-markup"}
SCORE_REFUSALS |= {"err-german-too-long", "err-german-too-many-chars"}


@FUZZ
@given(english=sentences, german=sentences)
@example(english="I see the house.", german="ich \ud800 sehe <b>das</b> 😀 Haus.")
@example(english="I see the house.", german="der Hund. " * 30)  # more pieces than max_len: refused, not cut
def test_score_never_fails_unexpectedly(english, german):
    """Translator.score gives a score whose JSON is finite and whose pieces are probabilities and ranks, or a
    keyed refusal of the English or the German."""
    try:
        score = TRANSLATOR.score(english, german)
    except UserError as err:
        assert err.key in SCORE_REFUSALS, err.key
        return
    data = json.loads(json.dumps(score.to_dict(), allow_nan=False))
    assert len(data["pieces"]) == len(data["german"]["ids"]) <= TRANSLATOR.config.max_len
    assert data["pieces"][-1]["token"] == "</s>"
    for piece in data["pieces"]:
        if piece["unknown"]:
            assert piece["prob"] is None and piece["rank"] is None
        else:
            assert 0.0 <= piece["prob"] <= 1.0 and 1 <= piece["rank"] <= data["vocab_size"]
        top = [o["prob"] for o in piece["top_k"]]
        assert top == sorted(top, reverse=True) and sum(top) <= 1.0 + 1e-5
