"""The server's trace cache: a translation computed once for everyone who asks for it, shared read-only, bounded."""

from __future__ import annotations

import hashlib
import pickle
import threading
import time

import numpy as np
import pytest

from tests.tiny import tiny_translator
from transformer_viz.app import frames, models, traces
from transformer_viz.app import handlers as h
from transformer_viz.app import session as sessions
from transformer_viz.app.common import LOOKS
from transformer_viz.app.downloads import trace_file
from transformer_viz.app.registry import PLOTS
from transformer_viz.app.tabs.beyond_attribution import attributed
from transformer_viz.decoding import DecodeOptions
from transformer_viz.errors import UserError
from transformer_viz.figures.lesson import lesson

SENTENCE = "I see the house."


def counted(monkeypatch, translator) -> list:
    """The calls of translator.trace from now on (each runs the model): the method itself still runs."""
    calls, run = [], translator.trace

    def trace(*args, **kwargs):
        calls.append((args, kwargs))
        return run(*args, **kwargs)

    monkeypatch.setattr(translator, "trace", trace)
    return calls


@pytest.fixture
def tiny(empty_registry, monkeypatch):
    """A tiny model registered as "tiny", its model runs counted (.calls)."""
    translator = tiny_translator("seed000", max_len=24)
    models.register_translator("tiny", translator)
    translator.calls = counted(monkeypatch, translator)
    return translator


def digest(trace) -> str:
    """Everything a trace holds, as one hash."""
    return hashlib.sha256(pickle.dumps(trace)).hexdigest()


def test_the_same_translation_twice_runs_the_model_once_and_shares_its_trace(tiny):
    greedy = DecodeOptions(max_new_tokens=8)
    first = sessions.translate(SENTENCE, "tiny", greedy)
    second = sessions.translate(SENTENCE, "tiny", DecodeOptions(max_new_tokens=8))
    assert len(tiny.calls) == 1 and second.trace is first.trace
    assert second is not first and second.options == first.options  # each visitor's own session


def test_other_options_sentences_models_and_branches_are_other_translations(tiny, monkeypatch):
    greedy = DecodeOptions(max_new_tokens=8)
    base = sessions.translate(SENTENCE, "tiny", greedy)
    asked = [
        (SENTENCE + " ", greedy),  # another sentence, if only by a space
        (SENTENCE, DecodeOptions(max_new_tokens=9)),
        (SENTENCE, DecodeOptions(strategy="beam", beam_size=3, max_new_tokens=8)),
        (SENTENCE, DecodeOptions(strategy="sample", seed=1, max_new_tokens=8)),
        (SENTENCE, DecodeOptions(strategy="sample", seed=2, max_new_tokens=8)),
    ]
    traces_ = [sessions.translate(text, "tiny", options).trace for text, options in asked]
    assert len(tiny.calls) == 1 + len(asked) and len({id(t) for t in [base.trace, *traces_]}) == 1 + len(asked)
    other = tiny_translator("seed000", seed=1, max_len=24)  # another model under another name
    models.register_translator("other", other)
    other_calls = counted(monkeypatch, other)
    assert sessions.translate(SENTENCE, "other", greedy).trace is not base.trace and len(other_calls) == 1
    token = base.trace.steps[1]["top_k"][1]["id"]
    branched = sessions.branch(base, 1, token)
    assert branched.trace is not base.trace and len(tiny.calls) == 2 + len(asked)
    assert sessions.branch(base, 1, token).trace is branched.trace and len(tiny.calls) == 2 + len(asked)
    assert sessions.translate(SENTENCE, "tiny", greedy).trace is base.trace  # all of them kept side by side


def test_sampling_is_shared_only_with_its_seed(tiny):
    seeded = DecodeOptions(strategy="sample", seed=7, max_new_tokens=8)
    assert sessions.translate(SENTENCE, "tiny", seeded).trace is sessions.translate(SENTENCE, "tiny", seeded).trace
    fresh = DecodeOptions(strategy="sample", seed=None, max_new_tokens=8)  # fresh randomness: every time anew
    first, second = (sessions.translate(SENTENCE, "tiny", fresh).trace for _ in range(2))
    assert first is not second and len(tiny.calls) == 3


def test_a_model_reloaded_under_the_same_name_is_not_served_the_old_ones_traces(tiny):
    greedy = DecodeOptions(max_new_tokens=8)
    old = sessions.translate(SENTENCE, "tiny", greedy).trace
    models.register_translator("tiny", tiny_translator("seed000", seed=3, max_len=24))
    assert sessions.translate(SENTENCE, "tiny", greedy).trace is not old


def test_concurrent_requests_for_one_translation_run_the_model_once(tiny, monkeypatch):
    """Eight visitors at once: the first runs the model while the other seven wait for it (the model holds until
    they all wait), and all eight get the same trace."""
    n, run = 8, tiny.trace
    cache = traces.TraceCache()
    monkeypatch.setattr(traces, "TRACES", cache)

    def slow_trace(*args, **kwargs):
        deadline = time.monotonic() + 30
        while cache.counts["waited"] < n - 1 and time.monotonic() < deadline:
            time.sleep(0.005)
        return run(*args, **kwargs)

    monkeypatch.setattr(tiny, "trace", slow_trace)
    start, results = threading.Barrier(n), [None] * n

    def visit(i: int) -> None:
        start.wait()
        results[i] = sessions.translate(SENTENCE, "tiny", DecodeOptions(max_new_tokens=8)).trace

    visitors = [threading.Thread(target=visit, args=(i,)) for i in range(n)]
    for visitor in visitors:
        visitor.start()
    for visitor in visitors:
        visitor.join(timeout=60)
    assert len(tiny.calls) == 1 and cache.counts == dict(computed=1, found=0, waited=n - 1)
    assert all(result is results[0] for result in results) and results[0] is not None


def test_an_error_is_raised_and_not_kept(tiny):
    cache = traces.TraceCache()
    key = traces.trace_key(tiny, "", DecodeOptions())

    def refuse():
        tiny.calls.append("refused")
        raise UserError("err-empty")

    for _ in range(2):
        with pytest.raises(UserError):
            cache.get(key, tiny, refuse)
    assert len(tiny.calls) == 2 and len(cache) == 0  # asked again, tried again


def test_the_cache_keeps_at_most_its_bytes_the_least_recently_asked_for_going_first(tiny):
    made = {text: tiny.trace(text, max_new_tokens=8) for text in ("a house.", "the dog.", "I see.", "we go.")}
    size = max(traces.size_of(t) for t in made.values())
    cache = traces.TraceCache(max_bytes=int(2.5 * size))  # room for two
    options = DecodeOptions(max_new_tokens=8)

    def ask(text: str):
        return cache.get(traces.trace_key(tiny, text, options), tiny, lambda: made[text])

    ask("a house.")
    ask("the dog.")
    ask("a house.")  # asked again: now the most recent
    ask("I see.")  # a third: "the dog." goes
    assert len(cache) == 2 and cache.bytes <= cache.max_bytes
    assert cache.bytes == traces.size_of(made["a house."]) + traces.size_of(made["I see."])
    kept = cache.counts["found"]
    ask("a house.")
    assert cache.counts["found"] == kept + 1  # still there
    ask("the dog.")
    assert cache.counts["found"] == kept + 1  # computed again
    tight = traces.TraceCache(max_bytes=size // 2)  # a trace larger than the whole cache is handed out, not kept
    assert tight.get(traces.trace_key(tiny, "we go.", options), tiny, lambda: made["we go."]) is made["we go."]
    assert len(tight) == 0 and tight.bytes == 0


def test_a_trace_is_measured_by_everything_it_holds(trace):
    arrays = []

    def collect(value):
        if isinstance(value, np.ndarray):
            arrays.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)

    for name in vars(trace):
        collect(getattr(trace, name))
    assert arrays and traces.size_of(trace) > sum(a.nbytes for a in arrays) + sum(len(s) for s in trace.source_tokens)
    whole = np.zeros(1000)
    assert traces.size_of(whole[:10]) >= whole.nbytes  # a view keeps its whole buffer alive
    assert traces.size_of([whole, whole[:10]]) < 2 * whole.nbytes  # counted once


def test_what_a_visitor_does_never_changes_a_shared_trace(tiny, tmp_path):
    """Every view in both looks, every step's frames and their variants, the attribution, a branch, the trace file
    and the lesson file, from a shared trace: the trace is as it was, and its arrays refuse a write."""
    options = DecodeOptions(strategy="beam", beam_size=3, max_new_tokens=8)
    sess = sessions.translate(SENTENCE, "tiny", options)
    shared, before = sess.trace, digest(sess.trace)
    for look in (LOOKS[0], LOOKS[1]):
        for step in range(len(shared.target_ids)):
            h.view_figures(PLOTS, shared, step, 1, "0", presentation=look != LOOKS[0], units="words")
        assert frames.step_frames(sess, 0, 1, "0", look, "en") is not None
        assert frames.variants(sess, 0, 0, "mean", look, "ja") is not None
    with_attribution = attributed(sess)
    assert with_attribution.trace.attribution is not None and shared.attribution is None
    branched = sessions.branch(sess, 1, shared.steps[1]["top_k"][1]["id"])
    assert branched.original is shared and sessions.unbranch(branched).trace is shared
    trace_file(shared)
    lesson(shared, tmp_path / "lesson.html")
    assert digest(shared) == before
    with pytest.raises(ValueError, match="read-only"):
        shared.attention["cross"][0, 0, 0, 0] = 1.0
