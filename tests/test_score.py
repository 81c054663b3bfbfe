"""Translator.score: a German sentence forced as the output, each piece's log-probability and rank checked against
the model run by hand, the sentence beside the model's greedy translation, and German input refused with a key."""

from __future__ import annotations

import json
import math

import pytest
import torch

from tests.tiny import tiny_translator
from transformer_viz.cleaning import MAX_CHARS
from transformer_viz.errors import UserError
from transformer_viz.score import SCHEMA, TOP_K, table
from transformer_viz.scoring import ranks

SOURCE = "I see the house."
GERMAN = "ich sehe das Haus."


@pytest.fixture(scope="module", params=["seed000", "seed004"])
def translator(request):
    return tiny_translator(request.param)


def by_hand(translator, source: str, german: str) -> torch.Tensor:
    """log p(· | x, y_<t) of the model's plain forward pass over <s> y1..y(T-1), <pad> and <s> never written. (T, V)"""
    tok, cfg = translator.tokenizer, translator.config
    src = torch.tensor([tok.encode(source)])
    tgt = tok.encode(german)
    with torch.no_grad():
        logits = translator.model(src, torch.tensor([[cfg.bos_id] + tgt[:-1]]))[0]  # (T, V)
    logits[:, [cfg.pad_id, cfg.bos_id]] = -math.inf
    return torch.log_softmax(logits.double(), dim=-1)


def test_each_piece_is_scored_as_the_model_computes_it_by_hand(translator):
    score = translator.score(SOURCE, GERMAN)
    expected = by_hand(translator, SOURCE, GERMAN)
    ids = translator.tokenizer.encode(GERMAN)  # the canonical segmentation, </s> last
    assert score.german.ids == ids and [p.id for p in score.pieces] == ids
    assert score.german.tokens == translator.tokenizer.ids_to_pieces(ids)
    chosen = expected[torch.arange(len(ids)), ids]
    assert [p.log_prob for p in score.pieces] == pytest.approx(chosen.tolist(), abs=1e-5)
    assert [p.prob for p in score.pieces] == pytest.approx(chosen.exp().tolist(), abs=1e-6)
    assert score.german.total == pytest.approx(chosen.sum().item(), abs=1e-4)
    assert score.german.mean == pytest.approx(chosen.mean().item(), abs=1e-5) and score.german.scored == len(ids)
    for p, row in zip(score.pieces, expected):
        best = row.topk(TOP_K)
        assert [o["id"] for o in p.top_k] == best.indices.tolist()
        assert [o["prob"] for o in p.top_k] == pytest.approx(best.values.exp().tolist(), abs=1e-6)
        assert p.rank == 1 + int((row > row[p.id] + 1e-9).sum())  # strictly more likely, in float64
        assert p.differs == (p.rank > 1) and (p.rank > 1 or p.model_choice["id"] == p.id)


def test_the_end_of_sentence_is_scored_like_any_piece(translator):
    score = translator.score(SOURCE, GERMAN)
    end = score.pieces[-1]
    assert (end.token, end.id, end.unknown) == ("</s>", translator.config.eos_id, False)
    assert end.log_prob is not None and end.rank >= 1
    assert end.log_prob == pytest.approx(by_hand(translator, SOURCE, GERMAN)[-1, end.id].item(), abs=1e-5)
    assert score.german.total == pytest.approx(sum(p.log_prob for p in score.pieces), abs=1e-9)


def test_ranks_count_the_pieces_strictly_more_likely_and_ties_share_the_better_rank():
    log_probs = torch.tensor([[0.1, 0.5, 0.5, 0.2]] * 4).log()  # pieces 1 and 2 tie for first
    assert ranks(log_probs, torch.tensor([2, 1, 3, 0])).tolist() == [1, 1, 3, 4]


def test_the_greedy_translation_is_scored_with_the_traces_own_probabilities(translator):
    score = translator.score(SOURCE, GERMAN)
    trace = translator.trace(SOURCE, max_new_tokens=translator.config.max_len)
    assert score.greedy.ids == trace.target_ids and score.greedy.text == trace.target_text
    assert score.greedy.total == pytest.approx(sum(math.log(step["prob"]) for step in trace.steps), abs=1e-4)
    assert score.greedy.scored == len(trace.steps)
    assert score.greedy.finished == (trace.target_ids[-1] == translator.config.eos_id)


def test_the_english_is_read_as_a_trace_reads_it(translator):
    long_english = "the dog " * 40  # more pieces than max_len: cut, with the trace's notice
    score = translator.score(long_english, GERMAN)
    trace = translator.trace(long_english, max_new_tokens=2)  # (which also says its translation was cut)
    assert score.source_ids == trace.source_ids and score.source_tokens == trace.source_tokens
    assert [n.key for n in score.notices] == [n.key for n in trace.notices][:1] == ["notice-cut-tokens"]


def test_a_german_sentence_longer_than_max_len_is_refused_not_cut():
    german = "der Hund mag den Garten. " * 3
    n = len(tiny_translator().tokenizer.encode(german.strip()))
    assert len(tiny_translator(max_len=n).score(SOURCE, german).pieces) == n  # exactly max_len: scored whole
    with pytest.raises(UserError) as refused:
        tiny_translator(max_len=n - 1).score(SOURCE, german)
    assert (refused.value.key, refused.value.params) == ("err-german-too-long", dict(pieces=n, limit=n - 1))
    assert f"{n} pieces" in str(refused.value) and str(n - 1) in str(refused.value)


@pytest.mark.parametrize(
    "german, key",
    [
        ("", "err-german-empty"),
        (" \t\u200b\x00 ", "err-german-empty"),
        ("<b></b>", "err-german-only-markup"),
        ("<img src=x onerror=alert(1)>", "err-german-only-markup"),
        ("Haus " * 600, "err-german-too-many-chars"),  # a 3,000-character paste
    ],
)
def test_empty_markup_and_overlong_german_are_refused_with_a_key(translator, german, key):
    with pytest.raises(UserError) as refused:
        translator.score(SOURCE, german)
    assert refused.value.key == key
    if key == "err-german-too-many-chars":
        assert refused.value.params == dict(chars=3000, limit=MAX_CHARS)


def test_markup_is_left_out_and_said(translator):
    score = translator.score(SOURCE, "ich <b>sehe</b> das\u200b Haus.")
    assert score.german.text == "ich sehe das Haus."
    assert score.german.ids == translator.score(SOURCE, GERMAN).german.ids
    assert [(n.key, n.params) for n in score.notices] == [("notice-german-markup", dict(n=2))]


def test_unknown_pieces_are_flagged_and_not_scored(translator):
    score = translator.score(SOURCE, "ich sehe 😀 das Haus 😀.")
    unknown = [p for p in score.pieces if p.unknown]
    assert len(unknown) == 2 and all(p.id == translator.tokenizer.unk_id for p in unknown)
    assert all(p.log_prob is None and p.prob is None and p.rank is None and not p.differs for p in unknown)
    assert all(len(p.top_k) == TOP_K for p in unknown)  # what the model expected there is still shown
    scored = [p.log_prob for p in score.pieces if not p.unknown]
    assert score.german.scored == len(score.pieces) - 2 and score.german.total == pytest.approx(sum(scored))
    notice = next(n for n in score.notices if n.key == "notice-german-unknown")
    carry_text = [p for p in score.pieces if p.token not in ("</s>", "▁")]  # a lone "▁" is the space before 😀
    assert notice.params == dict(unknown=2, total=len(carry_text))


def test_the_json_form_is_plain_and_keeps_unscored_pieces_as_null(translator):
    score = translator.score(SOURCE, "ich sehe 😀.")
    data = json.loads(score.to_json())
    assert data["schema"] == SCHEMA and data["source"]["ids"] == score.source_ids
    assert [p["id"] for p in data["pieces"]] == score.german.ids
    assert data["vocab_size"] == translator.config.tgt_vocab_size
    unk = next(p for p in data["pieces"] if p["unknown"])
    assert unk["prob"] is None and unk["log_prob"] is None and unk["rank"] is None and len(unk["top_k"]) == TOP_K
    assert data["german"]["total"] == pytest.approx(score.german.total, abs=1e-6)
    assert data["greedy"]["mean"] == pytest.approx(score.greedy.mean, abs=1e-6)
    assert data["notices"] == [str(n) for n in score.notices] and "unknown" in data["notices"][0]


def test_the_table_has_a_row_per_piece_and_both_sentences_totals(translator):
    score = translator.score(SOURCE, "ich sehe 😀.")
    lines = table(score).splitlines()
    rows = lines[1 : 1 + len(score.pieces)]
    for p, row in zip(score.pieces, rows):
        cells = row.split()
        assert cells[:2] == [str(p.index), p.token]
        assert cells[2] == ("-" if p.unknown else f"{p.prob:.4f}")
        assert cells[4] == ("-" if p.unknown else f"{p.rank:,}")
    assert any(f"your German: total log p = {score.german.total:.3f}" in line for line in lines)
    assert any(f"greedy translation: total log p = {score.greedy.total:.3f}" in line for line in lines)
