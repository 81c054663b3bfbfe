"""Score: a given German sentence scored by the model, piece by piece, and its JSON form (scoring.py makes it).

Schema "transformer-viz/score/1":

    source:  {text, tokens[S], ids[S]}           the English, as the model read it (tokens end with </s>)
    german:  {text, tokens[T], ids[T], total, mean, scored, finished}   the German as scored: its canonical
                                                 SentencePiece pieces, ending with </s>; log-probabilities in nats
    greedy:  {text, tokens, ids, total, mean, scored, finished}   the model's own greedy translation, alike
    pieces:  [{index, token, id, prob, log_prob, rank, unknown, top_k: [{token, id, prob}]}]   one per German piece
    model:   {name}; notices: [str]; vocab_size: the pieces a rank is counted among

A piece's prob is p(y_t | source, y_<t) over the pieces the model can write (<pad> and <s> never are), its rank
1 + the number of pieces the model found strictly more likely (ties share the better rank: 1 is the model's first
choice), top_k the model's TOP_K most likely pieces there. An <unk> piece (a character the tokenizer never saw)
is flagged and not scored: its prob, log_prob and rank are null and it counts in neither total nor mean.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

SCHEMA = "transformer-viz/score/1"
TOP_K = 5  # the model's most likely pieces kept at each position
DIGITS = 6  # decimals kept in JSON


@dataclass
class PieceScore:
    """One piece y_t of the German and what the model thought at that position, given the pieces before it."""

    index: int
    token: str
    id: int
    log_prob: float | None  # log p(y_t | source, y_<t) in nats; None for an <unk> piece: flagged, not scored
    rank: int | None  # 1 + the pieces the model found strictly more likely: 1 is its first choice
    top_k: list[dict[str, Any]]  # [{token, id, prob}], the model's TOP_K most likely pieces here, best first
    unknown: bool = False  # an <unk> piece

    @property
    def prob(self) -> float | None:
        """p(y_t | source, y_<t); None for an <unk> piece."""
        return None if self.log_prob is None else math.exp(self.log_prob)

    @property
    def model_choice(self) -> dict[str, Any]:
        """The piece the model found most likely here ({token, id, prob})."""
        return self.top_k[0]

    @property
    def differs(self) -> bool:
        """Whether the model would have written another piece here (this one is scored and not its first choice)."""
        return self.rank is not None and self.rank > 1


@dataclass
class SentenceScore:
    """A sentence's log-probability under the model, log p(y | x) = Σ_t log p(y_t | x, y_<t), in nats."""

    text: str
    tokens: list[str]
    ids: list[int]
    total: float  # Σ log p over the scored pieces
    scored: int  # the pieces scored (an <unk> piece is not)
    finished: bool = True  # ends with </s> (the greedy translation may be cut at max_len)

    @property
    def mean(self) -> float:
        """The per-piece mean log-probability: a total fair between a short and a long sentence."""
        return self.total / self.scored if self.scored else math.nan


@dataclass
class Score:
    """A German sentence scored as the translation of an English one, beside the model's own greedy translation."""

    source_text: str
    source_tokens: list[str]
    source_ids: list[int]
    german: SentenceScore
    pieces: list[PieceScore]
    greedy: SentenceScore
    vocab_size: int
    model: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    @property
    def differences(self) -> list[PieceScore]:
        """The pieces where the model would have written something else, in order."""
        return [piece for piece in self.pieces if piece.differs]

    @property
    def unknown(self) -> list[PieceScore]:
        """The <unk> pieces: flagged, not scored."""
        return [piece for piece in self.pieces if piece.unknown]

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form, schema "transformer-viz/score/1"."""

        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, DIGITS)

        def sentence(s: SentenceScore) -> dict[str, Any]:
            return {**asdict(s), "total": rounded(s.total), "mean": rounded(s.mean)}

        pieces = [
            {
                **asdict(p),
                "log_prob": rounded(p.log_prob),
                "prob": rounded(p.prob),
                "top_k": [{**o, "prob": rounded(o["prob"])} for o in p.top_k],
            }
            for p in self.pieces
        ]
        return {
            "schema": SCHEMA,
            "source": {"text": self.source_text, "tokens": self.source_tokens, "ids": self.source_ids},
            "german": sentence(self.german),
            "greedy": sentence(self.greedy),
            "pieces": pieces,
            "vocab_size": self.vocab_size,
            "model": self.model,
            "notices": [str(n) for n in self.notices],
        }

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def table(score: Score) -> str:
    """The score as plain text for a terminal: a row per German piece, then both sentences' totals and means."""
    rows = [("#", "piece", "p", "log p", "rank", "the model's first choice here")]
    for p in score.pieces:
        top = score_top(p)
        if p.unknown:
            rows.append((str(p.index), p.token, "-", "-", "-", f"<unk>: not scored; {top}"))
        else:
            rows.append((str(p.index), p.token, f"{p.prob:.4f}", f"{p.log_prob:.3f}", f"{p.rank:,}", top))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1] for row in rows]
    lines += ["", f"ranks among {score.vocab_size:,} pieces; 1 = the model's first choice (ties share a rank)"]
    for name, sentence in (("your German", score.german), ("the model's greedy translation", score.greedy)):
        cut = "" if sentence.finished else ", cut at the model's limit before </s>"
        lines.append(
            f"{name}: total log p = {sentence.total:.3f}, mean per piece = {sentence.mean:.3f} "
            f"({sentence.scored} pieces{cut}): {sentence.text}"
        )
    lines.append("(a total favours a short sentence; greedy is not always the most probable sentence)")
    lines += [f"note: {notice}" for notice in score.notices]
    return "\n".join(lines)


def score_top(piece: PieceScore) -> str:
    """A piece's table cell for the model's first choice: '(this piece)' where it is the piece itself."""
    first = piece.model_choice
    return "(this piece)" if first["id"] == piece.id else f"{first['token']} {first['prob']:.4f}"
