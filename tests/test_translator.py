"""Translator.translate() and Translator.trace(): input cleaning, batching, the Trace and its JSON schema."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch

from tests.tiny import SENTENCES, tiny_translator
from transformer_viz import Tracer, intervene
from transformer_viz.decoding import DecodeOptions, generate
from transformer_viz.model.config import PRESETS
from transformer_viz.trace import SCHEMA, Trace, residual_points
from transformer_viz.translator import MAX_CHARS, clean_text, unknown_notice

PRESET_NAMES = sorted(PRESETS)
MAX_NEW = 10  # random models rarely say </s>: short outputs keep the file fast
TEXT = SENTENCES[6][0]  # "I like the garden."


@pytest.fixture(scope="module", params=PRESET_NAMES)
def translator(request):
    return tiny_translator(request.param)


@pytest.fixture(scope="module")
def trace(translator):
    return translator.trace(TEXT, max_new_tokens=MAX_NEW)


# ---------------------------------------------------------------------------- translate()
def test_translate_str_gives_str_and_list_gives_list(translator):
    out = translator.translate(TEXT, max_new_tokens=MAX_NEW)
    assert isinstance(out, str) and out
    both = translator.translate([TEXT, SENTENCES[30][0]], max_new_tokens=MAX_NEW)
    assert isinstance(both, list) and len(both) == 2 and both[0] == out
    assert translator.translate([], max_new_tokens=MAX_NEW) == []
    assert translator.translate((TEXT,), max_new_tokens=MAX_NEW) == [out]  # any sequence in, a list out


def test_translation_does_not_depend_on_the_rest_of_the_batch(translator):
    """Padding is masked: a short sentence batched with a much longer one translates as when alone."""
    short = SENTENCES[0][0]
    long = " ".join(en for en, _ in SENTENCES[40:45])  # about five times longer
    src, _ = translator.encode_sources([short, long])
    assert (src[0] == translator.config.pad_id).sum() > 10
    alone = [translator.translate(short, max_new_tokens=MAX_NEW), translator.translate(long, max_new_tokens=MAX_NEW)]
    assert translator.translate([short, long], max_new_tokens=MAX_NEW) == alone
    assert translator.translate([long, short], max_new_tokens=MAX_NEW) == alone[::-1]


def test_translate_passes_decoding_options(translator):
    greedy = translator.translate(TEXT, max_new_tokens=MAX_NEW)
    assert translator.translate(TEXT, DecodeOptions(strategy="beam", beam_size=1, max_new_tokens=MAX_NEW)) == greedy
    src, _ = translator.encode_sources([TEXT])
    first_two = generate(translator.model, src, DecodeOptions(max_new_tokens=MAX_NEW))[0].ids[:2]
    assert translator.translate(TEXT, max_new_tokens=2) == translator.tokenizer.decode(first_two)
    with pytest.raises(ValueError, match="beam_size"):
        translator.translate(TEXT, strategy="beam", beam_size=0)


@pytest.mark.parametrize("text", ["", "   ", "\t\n ", "\u200b\u200d\ufeff", "\x00\x07"])
def test_empty_input_is_refused_with_a_helpful_message(translator, text):
    with pytest.raises(ValueError, match="empty.*English sentence"):
        translator.translate(text)
    with pytest.raises(ValueError, match="empty"):
        translator.translate([TEXT, text])
    with pytest.raises(ValueError, match="empty"):
        translator.trace(text)


def test_non_text_input_is_refused(translator):
    with pytest.raises(TypeError, match="str"):
        translator.translate([TEXT, 42])


def test_clean_text_drops_control_and_zero_width_characters():
    assert clean_text("I\u200b see\x00 the\u00ad hou\u200dse.\ufeff") == "I see the house."
    assert clean_text("  I\tsee\n\nthe\xa0house.\r\n") == "I see the house."  # whitespace collapses to one space
    assert clean_text("Grüße, café — naïve 😀") == "Grüße, café — naïve 😀"  # ordinary text is untouched
    assert clean_text("\x00\u200b\t") == ""


def test_dirty_input_translates_like_its_clean_form(translator):
    assert TEXT == "I like the garden."
    dirty = "  I\u200b like\x00 the\u00ad garden.\ufeff\n"
    clean = translator.trace(clean_text(dirty), max_new_tokens=MAX_NEW)
    traced = translator.trace(dirty, max_new_tokens=MAX_NEW)
    assert clean_text(dirty) == TEXT
    assert traced.source_ids == clean.source_ids == translator.tokenizer.encode(TEXT)
    assert traced.target_ids == clean.target_ids
    assert translator.translate(dirty, max_new_tokens=MAX_NEW) == translator.translate(TEXT, max_new_tokens=MAX_NEW)


def test_overlong_input_is_cut_to_max_len_with_a_notice(translator):
    max_len = translator.config.max_len
    long = " ".join(en for en, _ in SENTENCES[:20])  # far more than max_len tokens
    assert len(translator.tokenizer.encode(long)) > max_len
    t = translator.trace(long, max_new_tokens=4)
    assert len(t.source_ids) == max_len and t.source_tokens[-1] == "</s>"
    assert t.source_ids[:-1] == translator.tokenizer.encode(long)[: max_len - 1]
    assert any(str(max_len) in n and "token" in n for n in t.notices)
    assert t.attention["encoder_self"].shape[-1] == max_len
    assert isinstance(translator.translate([long, TEXT], max_new_tokens=4), list)  # no crash in a batch either
    assert input_notices(translator.trace(TEXT, max_new_tokens=4)) == []


def input_notices(trace) -> list:
    """What the trace says of its input (cut, unknown pieces): its notices less the output limit's."""
    return [n for n in trace.notices if n.key != "notice-output-limit"]


def test_reaching_the_output_limit_says_so_and_a_finished_translation_does_not(translator):
    for limit in (1, 2, 64):
        for sentence in ("the dog sees the house", "the house", TEXT):
            trace = translator.trace(sentence, max_new_tokens=limit)
            ended = trace.target_ids[-1:] == [translator.config.eos_id]
            said = [n for n in trace.notices if n.key == "notice-output-limit"]
            assert len(said) == (not ended and len(trace.target_ids) == limit), (sentence, limit, trace.target_tokens)
            assert all(n.params == {"n": limit} for n in said)
    cut = translator.trace(TEXT, max_new_tokens=1)
    if cut.target_ids != [translator.config.eos_id]:  # one token that is not the end: the limit stopped it
        assert [n.key for n in cut.notices][-1] == "notice-output-limit"


@pytest.mark.parametrize("markup", ["<b>{}</b>", "<img src=x onerror=alert(1)> {}", '{}<br/><a href="#">', "<P>{}"])
def test_markup_is_left_out_of_what_the_model_reads_and_said(translator, markup):
    text = markup.format(TEXT)
    src, notices = translator.encode_sources([text])
    plain, _ = translator.encode_sources([TEXT])
    assert src.tolist() == plain.tolist()  # the model reads the text between the tags
    tags = markup.count("<")
    assert [n.key for n in notices[0]] == ["notice-markup"] and notices[0][0].params == {"n": tags}
    assert translator.translate(text, max_new_tokens=4) == translator.translate(TEXT, max_new_tokens=4)


@pytest.mark.parametrize("text", ["<b></b>", " <br> <img src=x onerror=alert(1)> ", "<p>\u200b</p>"])
def test_a_sentence_of_markup_alone_is_refused(translator, text):
    with pytest.raises(ValueError, match="only HTML tags") as refused:
        translator.trace(text)
    assert refused.value.key == "err-only-markup"


def test_angle_brackets_that_are_not_tags_are_read(translator):
    _, notices = translator.encode_sources(["3 < 5 and 7 > 2", "a <- b", "<3"])
    assert notices == [[], [], []]


def test_overlong_text_is_cut_to_max_chars_with_a_notice(translator):
    text = "a " * MAX_CHARS  # 2 * MAX_CHARS characters
    _, notices = translator.encode_sources([text, TEXT])
    assert any(str(MAX_CHARS) in n and "character" in n for n in notices[0])
    assert notices[1] == []


def test_truncate_false_refuses_overlong_text_instead_of_cutting_it(translator):
    long_words = "house " * (translator.config.max_len + 5)
    for text, where in [(long_words, "the text"), ("a " * MAX_CHARS, "the text"), ([TEXT, long_words], "text 1")]:
        with pytest.raises(
            ValueError, match=f"{where} is too long: the model reads at most {translator.config.max_len} tokens"
        ):
            translator.translate(text, truncate=False, max_new_tokens=4)
    assert translator.translate(TEXT, truncate=False, max_new_tokens=4) == translator.translate(TEXT, max_new_tokens=4)
    assert isinstance(translator.translate(long_words, max_new_tokens=4), str)  # cut, as before, by default


# ---------------------------------------------------------------------------- trace()
def test_trace_shapes(translator, trace):
    cfg = translator.config
    L, H = cfg.n_layers, cfg.n_heads
    S, T = len(trace.source_ids), len(trace.target_ids)
    assert S == len(trace.source_tokens) and T == len(trace.target_tokens) == len(trace.steps) > 0
    assert trace.attention["encoder_self"].shape == (L, H, S, S)
    assert trace.attention["decoder_self"].shape == (L, H, T, T)
    assert trace.attention["cross"].shape == (L, H, T, S)
    assert trace.decoder_self_scores.shape == (L, H, T, T)
    assert trace.masks["encoder"].shape == (S, S)
    assert trace.masks["decoder"].shape == (T, T)
    assert trace.masks["cross"].shape == (T, S)
    assert trace.positional_encoding.shape == (S, cfg.d_model)
    assert (trace.n_layers, trace.n_heads) == (L, H)
    assert trace.decoder_input_tokens == ["<s>"] + trace.target_tokens[:-1]


def test_trace_tokens_and_steps(translator, trace):
    tok = translator.tokenizer
    assert trace.source_text == TEXT
    assert trace.source_ids == tok.encode(TEXT) and trace.source_tokens[-1] == "</s>"
    assert trace.source_tokens == tok.ids_to_pieces(trace.source_ids)
    src, _ = translator.encode_sources([TEXT])
    hyp = generate(translator.model, src, DecodeOptions(max_new_tokens=MAX_NEW))[0]
    assert trace.target_ids == hyp.ids
    assert trace.target_text == translator.translate(TEXT, max_new_tokens=MAX_NEW) == tok.decode(hyp.ids)
    assert trace.target_tokens == tok.ids_to_pieces(hyp.ids)
    for t, (step, s) in enumerate(zip(trace.steps, hyp.steps)):
        assert step["index"] == t and step["id"] == trace.target_ids[t] and step["token"] == trace.target_tokens[t]
        assert step["prob"] == pytest.approx(s.prob) and step["entropy"] == pytest.approx(s.entropy)
        assert [k["id"] for k in step["top_k"]] == s.top_ids
        assert [k["token"] for k in step["top_k"]] == tok.ids_to_pieces(s.top_ids)


def test_attention_rows_are_distributions_and_decoder_self_is_causal(trace):
    for kind, a in trace.attention.items():
        assert np.all(a >= 0), kind
        np.testing.assert_allclose(a.sum(-1), 1.0, atol=1e-5, err_msg=kind)
    dec = trace.attention["decoder_self"]
    assert np.all(np.triu(dec, k=1) == 0.0)  # exactly zero above the diagonal: no peeking ahead
    assert np.all(dec[..., 0, 0] == pytest.approx(1.0))  # the first query sees only <s>


def test_masks_are_what_the_model_applied(trace):
    S, T = len(trace.source_ids), len(trace.target_ids)
    assert trace.masks["decoder"].dtype == bool
    assert np.array_equal(trace.masks["decoder"], np.tril(np.ones((T, T), dtype=bool)))
    assert np.array_equal(trace.masks["encoder"], np.ones((S, S), dtype=bool))
    assert np.array_equal(trace.masks["cross"], np.ones((T, S), dtype=bool))


def test_positional_encoding_is_the_models_table(translator, trace):
    S = len(trace.source_ids)
    pos = translator.model.encoder.pos
    if translator.config.positional == "sinusoidal":  # seed000: the fixed sin/cos buffer
        expected = pos.table[:S]
        assert trace.positional_encoding[0, 1] == pytest.approx(1.0)  # PE(0, 1) = cos 0
    else:  # seed004: rows of the learned nn.Embedding
        expected = pos.table.weight[:S]
    np.testing.assert_array_equal(trace.positional_encoding, expected.detach().numpy())


def test_decoder_self_scores_masked_and_softmaxed_give_the_patterns(trace):
    scores = torch.from_numpy(trace.decoder_self_scores)  # (L, H, T, T), before the causal mask
    causal = torch.from_numpy(trace.masks["decoder"])
    assert not torch.all(scores.triu(1) == 0)  # really unmasked: the future has scores too
    pattern = scores.masked_fill(~causal, float("-inf")).softmax(-1)
    np.testing.assert_allclose(pattern.numpy(), trace.attention["decoder_self"], atol=1e-5)


def test_trace_equals_what_cached_decoding_attended_to(translator, trace):
    """The teacher-forced recording pass shows exactly the weights the step-by-step decoder used."""
    cfg = translator.config
    src, _ = translator.encode_sources([TEXT])
    names = ["*.self_attn.hook_pattern", "*.cross_attn.hook_pattern"]
    with Tracer(translator.model, names) as tracer:
        hyp = generate(translator.model, src, DecodeOptions(max_new_tokens=MAX_NEW))[0]
    T, S = len(hyp.ids), src.shape[1]
    assert hyp.ids == trace.target_ids
    for i in range(cfg.n_layers):
        np.testing.assert_allclose(
            tracer[f"encoder.layers.{i}.self_attn.hook_pattern"][0].numpy(),
            trace.attention["encoder_self"][i],
            atol=1e-5,
        )
        self_steps = tracer.history[f"decoder.layers.{i}.self_attn.hook_pattern"]
        cross_steps = tracer.history[f"decoder.layers.{i}.cross_attn.hook_pattern"]
        assert len(self_steps) == len(cross_steps) == T  # one query per generated token
        self_rows = np.zeros((cfg.n_heads, T, T), dtype=np.float32)
        for t, step in enumerate(self_steps):
            assert step.shape == (1, cfg.n_heads, 1, t + 1)  # query t sees keys <s>, y1..y(t-1)
            self_rows[:, t, : t + 1] = step[0, :, 0].numpy()
        cross_rows = torch.cat([step[0] for step in cross_steps], dim=1).numpy()  # (H, T, S)
        np.testing.assert_allclose(self_rows, trace.attention["decoder_self"][i], atol=1e-5)
        np.testing.assert_allclose(cross_rows, trace.attention["cross"][i], atol=1e-5)
        assert cross_rows.shape == (cfg.n_heads, T, S)


@pytest.mark.parametrize("strategy", ["greedy", "beam"])
def test_a_trace_encodes_the_source_once(translator, strategy):
    """Decoding and the recording pass share one encoder run, whose patterns the trace shows."""
    memories = []
    with intervene(translator.model, {"encoder.hook_output": lambda x, hook: memories.append(x.clone())}):
        t = translator.trace(TEXT, strategy=strategy, max_new_tokens=MAX_NEW)
    assert len(memories) == 1
    assert t.target_text == translator.translate(TEXT, strategy=strategy, max_new_tokens=MAX_NEW)
    src, _ = translator.encode_sources([TEXT])
    with Tracer(translator.model, "encoder.layers.*.self_attn.hook_pattern") as tracer, torch.no_grad():
        assert torch.equal(translator.model.encode(src), memories[0])
    for i in range(translator.config.n_layers):
        assert np.array_equal(
            tracer[f"encoder.layers.{i}.self_attn.hook_pattern"][0].numpy(), t.attention["encoder_self"][i]
        )


@pytest.mark.parametrize("strategy", ["greedy", "beam"])
def test_the_recording_pass_skips_the_output_projection(translator, strategy):
    """Only decoding projects to the vocabulary: the teacher-forced recording pass stops at the last hidden state."""
    events = []
    hooks = {
        "decoder.hook_output": lambda x, hook: events.append(("hidden", x.shape[1])),
        "decoder.hook_logits": lambda x, hook: events.append(("logits", x.shape[1])),
    }
    with intervene(translator.model, hooks):
        t = translator.trace(TEXT, strategy=strategy, max_new_tokens=MAX_NEW)
    *decoding, recording = events
    assert recording == ("hidden", len(t.target_ids))  # the last pass: every target position, no logits
    assert decoding[0::2] == [("hidden", 1)] * len(decoding[0::2])  # each decoding step: one new position,
    assert decoding[1::2] == [("logits", 1)] * len(decoding[0::2])  # projected to the vocabulary


def test_trace_with_forced_prefix_and_beam(translator):
    prefix = translator.tokenizer.encode("der Hund", add_eos=False)
    t = translator.trace(TEXT, max_new_tokens=MAX_NEW, forced_prefix=prefix)
    assert t.target_ids[: len(prefix)] == prefix and t.forced_prefix == len(prefix)
    cut = translator.trace(TEXT, max_new_tokens=1, forced_prefix=prefix)  # only as much of it as was generated
    assert cut.target_ids == prefix[:1] and cut.forced_prefix == 1
    beam = translator.trace(TEXT, strategy="beam", beam_size=2, max_new_tokens=MAX_NEW)
    assert beam.options["strategy"] == "beam" and beam.options["beam_size"] == 2
    assert beam.beam_tree and len(beam.steps) == len(beam.target_ids) == beam.attention["cross"].shape[2]
    assert beam.target_text == translator.translate(TEXT, strategy="beam", beam_size=2, max_new_tokens=MAX_NEW)
    json.dumps(beam.to_dict(), allow_nan=False)


def test_trace_follows_the_options_it_is_given(translator):
    """options=DecodeOptions(strategy="beam") traces a beam search, as translate does; explicit arguments win."""
    options = DecodeOptions(strategy="beam", beam_size=2, max_new_tokens=MAX_NEW)
    t = translator.trace(TEXT, options=options)
    assert t.options["strategy"] == "beam" and t.options["max_new_tokens"] == MAX_NEW and t.beam_tree
    assert t.target_text == translator.translate(TEXT, options=options)
    assert translator.trace(TEXT, options=options, strategy="greedy").options["strategy"] == "greedy"


# ---------------------------------------------------------------------------- JSON
def test_a_bfloat16_model_is_traced_in_float32(translator):
    """A model cast to bfloat16 (a common way to halve its memory) traces and compares; its maps are those of float32
    within bfloat16's precision, and every array is float32, which numpy and JSON can hold."""
    from transformer_viz.lab.compare import compare
    from transformer_viz.probes.interventions import Intervention
    from transformer_viz.translator import Translator

    half = Translator(copy.deepcopy(translator.model).to(torch.bfloat16), translator.tokenizer)
    got = half.trace(TEXT, max_new_tokens=MAX_NEW)
    want = translator.trace(TEXT, forced_prefix=got.target_ids, max_new_tokens=len(got.target_ids))
    assert want.target_ids == got.target_ids
    for kind in want.attention:
        assert got.attention[kind].dtype == np.float32
        np.testing.assert_allclose(got.attention[kind], want.attention[kind], atol=0.05)
    assert got.decoder_self_scores.dtype == got.positional_encoding.dtype == np.float32
    json.dumps(got.to_dict())
    padded = compare(half, TEXT, Intervention(bug="target_padding_unmasked"), options=DecodeOptions(max_new_tokens=4))
    assert (
        padded.left_pad > 0
        and padded.padded_changed.dtype == padded.forced_changed.decoder_self_scores.dtype == np.float32
    )


def test_to_dict_follows_the_schema(translator, trace):
    d = json.loads(json.dumps(trace.to_dict(), allow_nan=False))  # JSON-serialisable, no NaN
    cfg = translator.config
    L, H, D = cfg.n_layers, cfg.n_heads, cfg.d_model
    S, T = len(trace.source_ids), len(trace.target_ids)
    assert d["schema"] == SCHEMA == "transformer-viz/trace/2"
    assert {"schema", "source", "target", "steps", "attention", "masks", "positional_encoding", "model"} <= set(d)
    assert set(d["source"]) == set(d["target"]) == {"text", "tokens", "ids"}
    assert len(d["source"]["tokens"]) == len(d["source"]["ids"]) == S and d["source"]["tokens"][-1] == "</s>"
    assert len(d["target"]["tokens"]) == len(d["target"]["ids"]) == T
    assert len(d["steps"]) == T
    for t, step in enumerate(d["steps"]):
        assert set(step) == {"index", "token", "id", "prob", "entropy", "top_k"} and step["index"] == t
        assert all(set(k) == {"token", "id", "prob"} for k in step["top_k"])

    def shape(nested) -> tuple:
        dims = []
        while isinstance(nested, list):
            dims.append(len(nested))
            nested = nested[0]
        return tuple(dims)

    assert set(d["attention"]) == {"encoder_self", "decoder_self", "cross"}
    assert shape(d["attention"]["encoder_self"]) == (L, H, S, S)
    assert shape(d["attention"]["decoder_self"]) == (L, H, T, T)
    assert shape(d["attention"]["cross"]) == (L, H, T, S)
    assert shape(d["masks"]["encoder"]) == (S, S)
    assert shape(d["masks"]["decoder"]) == (T, T)
    assert shape(d["masks"]["cross"]) == (T, S)
    assert {v for row in d["masks"]["decoder"] for v in row} <= {0, 1}  # 1 = may attend
    assert d["masks"]["decoder"][-1] == [1] * T and d["masks"]["decoder"][0] == [1] + [0] * (T - 1)
    assert shape(d["positional_encoding"]) == (S, D)
    queries_keys = {"encoder_self": (S, S), "decoder_self": (T, T), "cross": (T, S)}
    for kind, (Q, K) in queries_keys.items():
        Dh = D // H
        assert {name: shape(a) for name, a in d["vectors"][kind].items()} == {
            "q": (L, H, Q, Dh),
            "k": (L, H, K, Dh),
            "v": (L, H, K, Dh),
            "z": (L, H, Q, Dh),
        }, kind
    assert shape(d["residual"]) == (1 + 3 * L, T, D) and len(residual_points(L)) == 1 + 3 * L
    assert d["model"]["name"] == translator.name and d["model"]["config"] == cfg.to_dict()
    assert json.loads(trace.to_json()) == d


def test_from_dict_round_trip(trace):
    again = Trace.from_dict(json.loads(trace.to_json()))
    for field in (
        "source_text",
        "source_tokens",
        "source_ids",
        "target_text",
        "target_tokens",
        "target_ids",
        "steps",
        "model",
        "options",
        "forced_prefix",
        "notices",
        "beam_tree",
    ):
        assert getattr(again, field) == getattr(trace, field), field
    for kind in trace.attention:
        np.testing.assert_allclose(again.attention[kind], trace.attention[kind], atol=1e-6, rtol=0)
    for kind in trace.masks:
        assert np.array_equal(again.masks[kind], trace.masks[kind])
    np.testing.assert_allclose(again.positional_encoding, trace.positional_encoding, atol=1e-6, rtol=0)
    np.testing.assert_allclose(again.decoder_self_scores, trace.decoder_self_scores, atol=1e-6, rtol=1e-6)
    for kind in trace.vectors:
        for name in trace.vectors[kind]:
            np.testing.assert_allclose(again.vectors[kind][name], trace.vectors[kind][name], atol=1e-6, rtol=1e-6)
    np.testing.assert_allclose(again.residual, trace.residual, atol=1e-6, rtol=1e-6)
    with pytest.raises(ValueError, match="schema"):
        Trace.from_dict({**trace.to_dict(), "schema": "something/else"})


def test_a_version_1_trace_still_loads(trace):
    old = {k: v for k, v in trace.to_dict().items() if k not in ("vectors", "residual")}
    again = Trace.from_dict({**old, "schema": "transformer-viz/trace/1"})
    assert again.vectors is None and again.residual is None and again.target_ids == trace.target_ids


def test_the_vectors_give_the_patterns_and_z(trace):
    """softmax(q·kᵀ/√Dh, masked) is hook_pattern and Σ_j α_j v_j is hook_z, for every kind, layer and head."""
    masks = {"encoder_self": "encoder", "decoder_self": "decoder", "cross": "cross"}
    for kind, mask in masks.items():
        q, k, v, z = (torch.from_numpy(trace.vectors[kind][name]) for name in ("q", "k", "v", "z"))
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5  # (L, H, Q, K)
        pattern = scores.masked_fill(~torch.from_numpy(trace.masks[mask]), float("-inf")).softmax(-1)
        np.testing.assert_allclose(pattern.numpy(), trace.attention[kind], atol=1e-5, err_msg=kind)
        np.testing.assert_allclose((pattern @ v).numpy(), z.numpy(), atol=1e-5, err_msg=kind)


def test_the_residual_stream_ends_in_the_decoders_output(translator, trace):
    """The last residual point, through the decoder's final norm (identity for post-LN), is decoder.hook_output."""
    src = torch.tensor([trace.source_ids])
    tgt_in = torch.tensor([[translator.config.bos_id] + trace.target_ids[:-1]])
    with torch.inference_mode(), Tracer(translator.model, ["decoder.hook_output", "decoder.hook_input"]) as tracer:
        translator.model.decode(tgt_in, translator.model.encode(src), src, logits=False)
    np.testing.assert_allclose(trace.residual[0], tracer.cache["decoder.hook_input"][0].numpy(), atol=1e-6)
    last = torch.from_numpy(trace.residual[-1])
    np.testing.assert_allclose(
        translator.model.decoder.norm(last).detach().numpy(), tracer.cache["decoder.hook_output"][0].numpy(), atol=1e-5
    )


# ---------------------------------------------------------------------------- input the model cannot read
@pytest.mark.parametrize("text", ["🙂🙂🙂", "日本語の文です"])
def test_unreadable_input_is_translated_with_a_notice(translator, text):
    trace = translator.trace(text, max_new_tokens=4)
    notices = [n for n in trace.notices if getattr(n, "key", None) == "notice-unknown-pieces"]
    read = [p for p in trace.source_tokens if p not in ("</s>", "▁")]
    assert len(notices) == 1 and notices[0].params == {"unknown": len(read), "total": len(read)}
    assert str(notices[0]) == f"the model reads English; {len(read)} of {len(read)} pieces are unknown to it"
    assert isinstance(translator.translate(text, truncate=False, max_new_tokens=4), str)  # not refused as too long


def test_readable_input_and_a_stray_emoji_give_no_unknown_notice(translator):
    assert input_notices(translator.trace("the 🙂 dog sees the house", max_new_tokens=4)) == []
    assert input_notices(translator.trace(TEXT, max_new_tokens=4)) == []


def test_the_unknown_share_counts_words_not_markers():
    assert unknown_notice(["▁", "<unk>", "</s>"]).params == {"unknown": 1, "total": 1}
    assert unknown_notice(["▁the", "<unk>", "</s>"]).params == {"unknown": 1, "total": 2}  # half: said
    assert unknown_notice(["▁the", "▁dog", "<unk>", "</s>"]) is None
    assert unknown_notice(["</s>"]) is None
