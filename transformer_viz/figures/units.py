"""Pieces or words along an attention map's axes: SentencePiece pieces as the model reads them, or whole words.

Every attention map builder takes units="pieces" (the default) or units="words". A word starts at a piece that
begins with "▁" (lab.analysis.word_spans, which also keeps <s> and </s> words of their own). Merging weights
(lab.analysis.merge_words): a key word's column is the sum of its pieces' columns, the attention a query gives
the whole word; a query word's row is the mean of its pieces' rows, so every row still sums to 1.

On a map of the decoder at step t, a target word's row is the mean of the rows of its pieces produced by step t:
the word as far as it is written when token t is chosen. A word not begun yet is a gap, as a piece not produced
yet is; where later rows are shown (cross-attention), a word's row averages all its pieces. The step's row is the
word that holds piece t. The masks and the score pipeline stay in pieces: the model masks and scores pieces, and a
sum of raw scores means nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..lab.analysis import WORD_START, merge_words, word_labels, word_spans
from .style import LONE_SPACE, piece_label
from .words import t

UNITS = ("pieces", "words")


@dataclass(frozen=True)
class MapAxes:
    """A map's rows (queries) and columns (keys) in pieces or in words, and how piece weights become theirs."""

    queries: list[str]  # each row's token: a piece as the trace has it ("▁Hund"), or a word ("Hundehütte")
    keys: list[str]
    query_spans: list[list[int]] | None = None  # the pieces of each row's word; None in pieces
    key_spans: list[list[int]] | None = None

    @property
    def words(self) -> bool:
        return self.query_spans is not None

    @property
    def query_labels(self) -> list[str]:
        """The rows' tick labels: pieces as piece_label reads them ("Hund", "·ung"), or the words."""
        return self.queries if self.words else [piece_label(q) for q in self.queries]

    @property
    def key_labels(self) -> list[str]:
        return self.keys if self.words else [piece_label(k) for k in self.keys]

    def weights(self, z: np.ndarray) -> np.ndarray:
        """(Q, K) piece weights (NaN rows: not produced yet) on these rows and columns; unchanged in pieces."""
        if not self.words:
            return z
        return merge_words(z, self.query_spans, self.key_spans).astype(np.float32)  # (Qw, Kw)

    def row(self, step: int | None) -> int | None:
        """The row of the query that produced target piece `step`: in words, the row of the word holding it."""
        if step is None or not self.words:
            return step
        return next(i for i, span in enumerate(self.query_spans) if step in span)

    def named(self, what: str) -> str:
        """A download's name for what the map shows: 'cross-attention', or 'cross-attention-words' in words."""
        return what + "-words" if self.words else what

    def suffix(self) -> str:
        """What a title adds in words (" · words"); nothing in pieces."""
        return t("words-suffix") if self.words else ""


def map_axes(queries: Sequence[str], keys: Sequence[str], units: str = "pieces") -> MapAxes:
    """The rows and columns of a map whose queries and keys are these pieces, counted in `units`."""
    if units not in UNITS:
        raise ValueError(f"units must be one of {UNITS}, got {units!r}")
    if units == "pieces":
        return MapAxes(list(queries), list(keys))
    q_spans, k_spans = word_spans(list(queries)), word_spans(list(keys))
    return MapAxes(
        readable(word_labels(list(queries), q_spans)), readable(word_labels(list(keys), k_spans)), q_spans, k_spans
    )


def readable(words: list[str]) -> list[str]:
    """Words as a tick shows them: a lone "▁" (a space no piece follows) as "␣", as piece_label shows it."""
    return [LONE_SPACE if word == WORD_START else word for word in words]
