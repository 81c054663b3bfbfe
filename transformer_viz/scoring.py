"""Score a given German sentence as the translation of an English one: one teacher-forced pass of the decoder.

The German is forced as the model's output: the decoder reads <s> y1..y(T-1) in one pass (as in training) and
position t gives log p(· | x, y_<t), the distribution from which the model would have picked y_t. Each piece gets
its log-probability, its rank among every piece of the vocabulary and the model's top TOP_K there; the sentence gets
log p(y | x) = Σ_t log p(y_t | x, y_<t), total and per-piece mean, beside the same for the model's greedy translation
(a total favours short sentences; greedy picks the best piece at each step, which need not give the most probable
sentence). The German is cut into its canonical SentencePiece pieces (the one segmentation `Tokenizer.encode`
gives, no sampling), and read whole or refused: never cut, since a cut sentence would be scored as another one.
"""

from __future__ import annotations

import torch

from .cleaning import MARKUP, MAX_CHARS, clean_text
from .decoding import DecodeOptions, ban_never_generated, generate
from .errors import Notice, UserError
from .model.transformer import Transformer
from .score import TOP_K, PieceScore, Score, SentenceScore
from .tokenizer import Tokenizer


def german_pieces(tokenizer: Tokenizer, text: str, max_len: int) -> tuple[str, list[int], list[Notice]]:
    """The German as the model would have to write it: (the cleaned text, its ids ending with </s>, notices).

    Hardened as English input is (clean_text, markup left out), but refused, not cut: more than MAX_CHARS
    characters or more than `max_len` pieces (its </s> included), empty, or only HTML tags.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a German sentence (str), got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise UserError("err-german-too-many-chars", chars=len(text), limit=MAX_CHARS)
    cleaned, notices = clean_text(text), []
    if not cleaned:
        raise UserError("err-german-empty")
    if tags := MARKUP.findall(cleaned):
        cleaned = clean_text(MARKUP.sub(" ", cleaned))
        if not cleaned:
            raise UserError("err-german-only-markup")
        notices.append(Notice("notice-german-markup", n=len(tags)))
    ids = tokenizer.encode(cleaned)  # the canonical segmentation, ending with </s>
    if len(ids) > max_len:
        raise UserError("err-german-too-long", pieces=len(ids), limit=max_len)
    if unknown := ids.count(tokenizer.unk_id):  # of the pieces that carry text: </s> and a lone "▁" aside
        total = sum(tokenizer.id_to_piece(i) not in ("</s>", "▁") for i in ids)
        notices.append(Notice("notice-german-unknown", unknown=unknown, total=total))
    return cleaned, ids, notices


def forced_log_probs(model: Transformer, src: torch.Tensor, memory: torch.Tensor, ids: list[int]) -> torch.Tensor:
    """log p(· | x, y_<t) at every position of the forced output `ids`: one teacher-forced pass over <s> y1..y(T-1).

    Over the pieces the model can write: <pad> and <s> get −inf, as in decoding. (T, V)
    """
    cfg = model.config
    tgt_in = torch.tensor([[cfg.bos_id] + ids[:-1]], device=src.device)  # (1, T)
    logits = model.decode(tgt_in, memory, src)[0].float()  # (T, V)
    return ban_never_generated(logits, cfg).log_softmax(-1)


def ranks(log_probs: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Each chosen piece's rank in its row of (T, V) log-probabilities: 1 + the pieces strictly more likely. (T,)

    Ties share the better rank (a piece as likely as the first choice is ranked 1 with it).
    """
    chosen = log_probs.gather(-1, ids[:, None])  # (T, 1)
    return (log_probs > chosen).sum(-1) + 1


@torch.inference_mode()
def score_german(
    model: Transformer,
    tokenizer: Tokenizer,
    src: torch.Tensor,
    german: str,
    source_text: str,
    notices: list[str] = (),
    name: str = "custom",
) -> Score:
    """Score `german` as the translation of the source ids `src` (1, S): each piece, and the whole sentence beside
    the model's greedy translation (up to max_len pieces)."""
    cleaned, ids, german_notices = german_pieces(tokenizer, german, model.config.max_len)
    memory = model.encode(src)  # (1, S, D), shared by the forced pass and the greedy translation
    log_probs = forced_log_probs(model, src, memory, ids)  # (T, V)
    targets = torch.tensor(ids, device=src.device)  # (T,)
    chosen = log_probs.gather(-1, targets[:, None])[:, 0]  # (T,)
    top_log_probs, top_ids = log_probs.topk(min(TOP_K, log_probs.shape[-1]), dim=-1)  # (T, k)
    found = zip(chosen.tolist(), ranks(log_probs, targets).tolist(), top_ids.tolist(), top_log_probs.exp().tolist())
    pieces = []
    for t, (piece, (log_prob, rank, best_ids, best_probs)) in enumerate(zip(ids, found)):
        top_k = [dict(token=tokenizer.id_to_piece(i), id=i, prob=p) for i, p in zip(best_ids, best_probs)]
        if unknown := piece == tokenizer.unk_id:  # flagged, not scored
            log_prob = rank = None
        pieces.append(PieceScore(t, tokenizer.id_to_piece(piece), piece, log_prob, rank, top_k, unknown))
    scored = [p.log_prob for p in pieces if not p.unknown]
    german_score = SentenceScore(cleaned, tokenizer.ids_to_pieces(ids), ids, sum(scored), len(scored))
    greedy = generate(model, src, DecodeOptions(max_new_tokens=model.config.max_len), memory=memory)[0]
    greedy_score = SentenceScore(
        tokenizer.decode(greedy.ids),
        tokenizer.ids_to_pieces(greedy.ids),
        greedy.ids,
        greedy.log_prob,
        len(greedy.ids),
        finished=greedy.finished,
    )
    src_ids = src[0].tolist()
    return Score(
        source_text=source_text,
        source_tokens=tokenizer.ids_to_pieces(src_ids),
        source_ids=src_ids,
        german=german_score,
        pieces=pieces,
        greedy=greedy_score,
        vocab_size=model.config.tgt_vocab_size,
        model={"name": name},
        notices=[*notices, *german_notices],
    )
