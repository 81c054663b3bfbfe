"""Bad input, absurd options, decoding without the cache, and many visitors sharing one model.

Every odd sentence gets a translation or one clear ValueError; every absurd option a
ValueError naming it; and a burst of concurrent calls on one shared model gives each
caller exactly its own result and leaves the weights bit-for-bit unchanged.
"""

from __future__ import annotations

import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from tests.tiny import EVIL, SENTENCES, tiny_translator
from transformer_viz import Tracer, intervene
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.decoding import DecodeOptions, generate
from transformer_viz.model.hooks import active_hooks
from transformer_viz.translator import MAX_CHARS

TEXTS = [en for en, _ in SENTENCES[::13]]


@pytest.fixture(scope="module", params=["seed000", "seed004"])
def translator(request):
    return tiny_translator(request.param)


def no_eos(model):
    """An intervention that makes </s> impossible, so decoding runs to max_new_tokens (for long outputs)."""
    eos = model.config.eos_id

    def suppress(logits, hook):
        logits = logits.clone()
        logits[..., eos] = -1e4
        return logits

    return intervene(model, {"decoder.hook_logits": suppress})


# ---------------------------------------------------------------------------- odd sentences
ODD = {
    "emoji": "I see 😀 the house 🎉.",
    "rtl": "مرحبا I see שלום the house.",
    "html": f"I see {EVIL} the house.",  # the tag is left out of what the model reads, with a notice
    "control": "I\x00 see\x07 the\u200b house\u202e.\ufeff",
    "lone surrogate": "I see \ud800 the house.",
    "cjk": "我 see the 家.",
    "combining": "I se\u0301e the ho\u0308use.",
    "nfkc expansion": "\ufdfa" * 50,  # one character that NFKC turns into 18
    "only unknown": "😀😀😀",
}


@pytest.mark.parametrize("name", list(ODD))
def test_odd_sentences_translate_and_trace_to_valid_json(translator, name):
    text = ODD[name]
    assert isinstance(translator.translate(text, max_new_tokens=8), str)
    trace = translator.trace(text, max_new_tokens=8)
    data = json.loads(json.dumps(trace.to_dict(), allow_nan=False))  # NaN or ∞ would be invalid JSON
    assert data["source"]["text"] == text  # the original is kept; the model saw the cleaned text
    assert data["source"]["tokens"][-1] == "</s>"
    for row in data["attention"]["encoder_self"][0][0]:
        assert math.isclose(sum(row), 1.0, abs_tol=1e-4)


@pytest.mark.parametrize("name", ["emoji", "rtl", "cjk", "only unknown"])
def test_characters_the_tokenizer_does_not_know_are_unknown_pieces(translator, name):
    trace = translator.trace(ODD[name], max_new_tokens=4)
    unk = translator.config.unk_id
    assert unk in trace.source_ids
    assert all(piece == "<unk>" for piece, i in zip(trace.source_tokens, trace.source_ids) if i == unk)


def test_markup_does_not_reach_the_model_and_markup_alone_is_refused(translator):
    trace = translator.trace(ODD["html"], max_new_tokens=4)
    assert trace.source_ids == translator.trace("I see the house.", max_new_tokens=4).source_ids
    assert [n.key for n in trace.notices][:1] == ["notice-markup"]
    with pytest.raises(ValueError, match="only HTML tags"):
        translator.trace(EVIL)


def test_control_and_zero_width_characters_do_not_reach_the_model(translator):
    assert (
        translator.trace(ODD["control"], max_new_tokens=4).source_ids
        == translator.trace("I see the house.", max_new_tokens=4).source_ids
    )


@pytest.mark.parametrize("text", ["", " ", "\n\t ", "\u200b\u200d\ufeff", "\x00\x01", "\ud800"])
def test_sentences_with_nothing_to_translate_are_one_clear_error(translator, text):
    for call in (translator.translate, translator.trace):
        with pytest.raises(ValueError, match="empty"):
            call(text)


def test_overlong_sentence_is_cut_with_notices_not_a_crash(translator):
    text = "I see the house. " * 400  # 6,800 characters, far beyond max_len tokens
    trace = translator.trace(text, max_new_tokens=4)
    assert len(trace.source_ids) == translator.config.max_len
    assert any("tokens" in n for n in trace.notices) and any(str(MAX_CHARS) in n for n in trace.notices)
    assert isinstance(translator.translate([text, "I see the house."], max_new_tokens=4)[0], str)


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["nested"]])
def test_sentences_that_are_not_text_are_a_type_error(translator, bad):
    with pytest.raises(TypeError, match="expected a sentence"):
        translator.translate([bad])


# ---------------------------------------------------------------------------- absurd options
ABSURD = [
    ("temperature", -1.0),
    ("temperature", 0.0),
    ("temperature", math.inf),
    ("temperature", "hot"),
    ("beam_size", 0),
    ("beam_size", 1000),
    ("beam_size", 2.5),
    ("beam_size", True),
    ("beam_size", "4"),
    ("max_new_tokens", 0),
    ("max_new_tokens", -5),
    ("max_new_tokens", None),
    ("top_k", -1),
    ("top_k", None),
    ("top_p", 0.0),
    ("top_p", math.nan),
    ("length_penalty", math.inf),
    ("seed", 2**70),
    ("seed", 1.5),
    ("seed", "0"),
    ("n_alternatives", 10**6),
    ("use_cache", "yes"),
    ("strategy", None),
    ("strategy", ["beam"]),
]


@pytest.mark.parametrize("field, value", ABSURD)
def test_absurd_options_are_a_value_error_naming_the_field(translator, field, value):
    with pytest.raises(ValueError, match=field):
        translator.translate(TEXTS[0], **{field: value})
    with pytest.raises(ValueError, match=field):
        translator.trace(TEXTS[0], options=DecodeOptions(**{field: value}))
    assert isinstance(translator.translate(TEXTS[0], max_new_tokens=4), str)  # and nothing is left broken


@pytest.mark.parametrize(
    "field, value",
    [
        ("beam_size", 1),
        ("beam_size", 16),
        ("max_new_tokens", 10**6),
        ("seed", -1),
        ("seed", None),
        ("top_k", 10**6),
        ("temperature", 1e-3),
    ],
)
def test_extreme_but_meaningful_options_give_a_result(translator, field, value):
    strategy = "beam" if field == "beam_size" else "sample"
    trace = translator.trace(
        TEXTS[0],
        options=DecodeOptions(strategy=strategy, **{field: value}),
        strategy=strategy,
        max_new_tokens=min(value, 10**6) if field == "max_new_tokens" else 6,
    )
    assert 1 <= len(trace.target_ids) <= translator.config.max_len


# ---------------------------------------------------------------------------- decoding without the cache
@pytest.mark.parametrize("strategy", ["greedy", "sample", "beam"])
def test_recomputing_the_prefix_gives_exactly_the_cached_tokens(translator, strategy):
    model = translator.model
    src, _ = translator.encode_sources(TEXTS)
    options = DecodeOptions(strategy=strategy, beam_size=3, max_new_tokens=16, seed=7)
    uncached = DecodeOptions(**{**options.__dict__, "use_cache": False})
    rows = [src[i : i + 1] for i in range(2)] if strategy == "beam" else [src]
    with no_eos(model):  # long outputs: 16 tokens each
        for batch in rows:
            for prefix in (None, [7, 9]):
                cached, recomputed = generate(model, batch, options, prefix), generate(model, batch, uncached, prefix)
                for a, b in zip(cached, recomputed):
                    assert a.ids == b.ids and len(a.ids) == 16
                    assert [s.top_ids for s in a.steps] == [s.top_ids for s in b.steps]
                    assert all(
                        math.isclose(x.prob, y.prob, rel_tol=1e-4, abs_tol=1e-6) for x, y in zip(a.steps, b.steps)
                    )


@pytest.mark.parametrize("use_cache, fed", [(True, [1, 1, 1, 1, 1]), (False, [1, 2, 3, 4, 5])])
def test_use_cache_decides_how_many_positions_each_step_feeds(translator, use_cache, fed):
    src, _ = translator.encode_sources([TEXTS[0]])
    with no_eos(translator.model), Tracer(translator.model, ["decoder.hook_embed"]) as tracer:
        generate(translator.model, src, DecodeOptions(max_new_tokens=5, use_cache=use_cache))
    assert [x.shape[1] for x in tracer.history["decoder.hook_embed"]] == fed  # (1, T_fed, D) per step


def test_use_cache_is_recorded_in_the_trace_options(translator):
    trace = translator.trace(TEXTS[0], max_new_tokens=4, use_cache=False)
    assert trace.to_dict()["options"]["use_cache"] is False
    assert DecodeOptions(**trace.options).validate().use_cache is False


# ---------------------------------------------------------------------------- many visitors, one model
def snapshot(model) -> dict[str, torch.Tensor]:
    return {name: t.detach().clone() for name, t in model.state_dict().items()}


def ablate_head(head: int):
    def fn(z, hook):  # (B, H, T, Dh) per-head outputs: zero one head
        z = z.clone()
        z[:, head] = 0
        return z

    return fn


def jobs(translator):
    """(name, fn) pairs: translations, traces with every strategy, batches and interventions."""
    model = translator.model

    def traced(text, **kw):
        return json.dumps(translator.trace(text, max_new_tokens=8, **kw).to_dict(), sort_keys=True)

    def ablated(text, head):
        with intervene(model, {"decoder.layers.*.cross_attn.hook_z": ablate_head(head)}):
            return translator.translate(text, max_new_tokens=8)

    out = []
    for i, text in enumerate(TEXTS[:3]):
        out += [
            (f"translate {i}", lambda t=text: translator.translate(t, max_new_tokens=8)),
            (f"batch {i}", lambda t=text: translator.translate([t, TEXTS[0], ODD["emoji"]], max_new_tokens=8)),
            (f"greedy {i}", lambda t=text: traced(t)),
            (f"beam {i}", lambda t=text: traced(t, strategy="beam", beam_size=2)),
            (f"sample {i}", lambda t=text, s=i: traced(t, strategy="sample", seed=s)),
            (f"forced {i}", lambda t=text, s=i: traced(t, forced_prefix=[4 + s, 9])),
            (f"ablated {i}", lambda t=text, hd=i % 4: ablated(t, hd)),
            (f"uncached {i}", lambda t=text: traced(t, use_cache=False)),
            (f"bad {i}", lambda: translator.translate(" \u200b ")),
        ]
    return out


def run(fn):
    try:
        return fn()
    except ValueError as err:
        return f"ValueError: {err}"


def test_concurrent_callers_get_their_own_results_and_the_model_is_never_mutated(translator):
    model = translator.model
    before = snapshot(model)
    expected = {name: run(fn) for name, fn in jobs(translator)}  # one caller at a time
    assert len(set(map(repr, expected.values()))) > 3 * 7  # the jobs really differ from one another
    work = jobs(translator) * 2
    barrier = threading.Barrier(8)

    def start(item):
        name, fn = item
        if work.index(item) < 8:
            barrier.wait(timeout=30)  # the first eight start together
        return name, run(fn)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(start, work))
    for name, result in results:
        assert result == expected[name], name
    after = snapshot(model)
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    assert not model.training and not active_hooks()
    assert not any(m._forward_hooks or m._forward_pre_hooks for m in model.modules())


def test_concurrent_visitors_never_see_each_others_trace_or_branch(translator):
    name = f"hardening-{translator.config.name}"
    models.register_translator(name, translator)
    options = DecodeOptions(max_new_tokens=6)

    def visit(i: int) -> tuple[list[int], list[int], list[int], list[int]]:
        text = TEXTS[i % len(TEXTS)]
        session = sessions.translate(text, name, options)
        branched = sessions.branch(session, 1, 4 + i % 20)
        back = sessions.unbranch(branched)
        return session.trace.source_ids, session.trace.target_ids, branched.trace.target_ids, back.trace.target_ids

    alone = [visit(i) for i in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(visit, range(8)))
    assert together == alone
    for i, (_, original, branched, back) in enumerate(together):
        assert back == original and branched[1] == 4 + i % 20 and branched[:1] == original[:1]


@pytest.mark.parametrize("setting, expected", [(None, "False"), ("True", "True")], ids=["unset", "asked-for"])
def test_the_app_turns_gradio_analytics_off_unless_asked(setting, expected):
    """app.py (what `serve` and a Space run) sets GRADIO_ANALYTICS_ENABLED=False before gradio reads it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "GRADIO_ANALYTICS_ENABLED"}
    if setting is not None:
        env["GRADIO_ANALYTICS_ENABLED"] = setting
    probe = "import runpy; runpy.run_path('app.py'); import gradio.analytics as a; print(a.analytics_enabled())"
    run = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == expected
