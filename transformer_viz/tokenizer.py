"""SentencePiece subword tokenizer shared by source and target: train, load, encode, decode, pieces.

Ids are fixed so that the model config can rely on them: ``<pad>`` 0, ``<unk>`` 1, ``<s>`` 2,
``</s>`` 3. Text is NFKC-normalised by SentencePiece. There is no byte fallback, so a character
never seen in training (an emoji, say) becomes ``<unk>`` (id 1), while ``pieces()`` still shows
the character itself: what the model receives and what a learner reads stay distinguishable.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

import sentencepiece as spm

from .hub.files import replace_file

logger = logging.getLogger(__name__)

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL_PIECES = {PAD_ID: "<pad>", UNK_ID: "<unk>", BOS_ID: "<s>", EOS_ID: "</s>"}


class Tokenizer:
    """A SentencePiece model with the project's special ids (pad 0, unk 1, bos 2, eos 3)."""

    def __init__(self, processor: spm.SentencePieceProcessor):
        """Wrap a loaded SentencePiece processor after checking its special pieces."""
        self.sp = processor
        size = processor.get_piece_size()
        found = {i: processor.id_to_piece(i) for i in SPECIAL_PIECES if i < size}
        if found != SPECIAL_PIECES or processor.pad_id() != PAD_ID:
            raise ValueError(
                f"tokenizer's special pieces are {found}, expected {SPECIAL_PIECES}; retrain it with Tokenizer.train()"
            )

    # ------------------------------------------------------------------ creating
    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        model_path: str | Path,
        vocab_size: int = 8000,
        model_type: str = "unigram",
        character_coverage: float = 1.0,
        seed: int = 0,
        num_threads: int = 1,
    ) -> Tokenizer:
        """Train on in-memory texts and write one ``model_path`` file; same input → same model.

        The model depends on ``num_threads`` (float sums are split across threads), so keep it
        fixed; with 1 thread two runs give byte-identical files (checked on the full Ding train
        set: 728,736 texts, 8,000 pieces, ~4.5 min on one core).
        """
        texts = [" ".join(t.split()) for t in texts]  # SentencePiece wants one line per text
        texts = [t for t in texts if t]
        if not texts:
            raise ValueError("Tokenizer.train() got no non-empty texts; pass the training text")
        spm.set_random_generator_seed(seed)
        model = io.BytesIO()
        try:
            cls._train_spm(texts, model, vocab_size, model_type, character_coverage, num_threads)
        except RuntimeError as error:  # e.g. "Vocabulary size is too high (8000)..."
            raise ValueError(
                f"SentencePiece could not train a {vocab_size}-piece {model_type} model on "
                f"{len(texts)} texts ({error}); lower vocab_size or pass more text"
            ) from error
        tokenizer = cls.from_proto(model.getvalue())
        tokenizer.save(model_path)
        logger.info(
            "trained %s tokenizer: %d pieces from %d texts -> %s",
            model_type,
            tokenizer.vocab_size,
            len(texts),
            model_path,
        )
        return tokenizer

    @staticmethod
    def _train_spm(texts, writer, vocab_size, model_type, character_coverage, num_threads) -> None:
        """Run the SentencePiece trainer with the project's fixed special ids and options."""
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts),
            model_writer=writer,
            vocab_size=vocab_size,
            model_type=model_type,
            character_coverage=character_coverage,
            pad_id=PAD_ID,
            unk_id=UNK_ID,
            bos_id=BOS_ID,
            eos_id=EOS_ID,
            pad_piece="<pad>",
            unk_piece="<unk>",
            bos_piece="<s>",
            eos_piece="</s>",
            byte_fallback=False,
            normalization_rule_name="nfkc",
            num_threads=num_threads,
            input_sentence_size=0,  # use every text: no sampling, nothing left to chance
            shuffle_input_sentence=False,
            max_sentence_length=1 << 16,
            minloglevel=2,
        )

    @classmethod
    def from_proto(cls, model_proto: bytes) -> Tokenizer:
        """A tokenizer from serialised model bytes (as in ``model_proto`` or a .model file)."""
        processor = spm.SentencePieceProcessor()
        try:  # parsed as data (a protobuf), never executed
            processor.load_from_serialized_proto(model_proto)
        except RuntimeError as error:
            raise ValueError(
                f"not a SentencePiece model ({str(error).strip()[:200]}); "
                "use the tokenizer.model that Tokenizer.train() wrote for this checkpoint"
            ) from None
        return cls(processor)

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Load a ``tokenizer.model`` file written by ``train()`` or ``save()``."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"tokenizer model not found: {path}; train one with Tokenizer.train() "
                "or use a checkpoint folder that contains tokenizer.model"
            )
        try:
            return cls.from_proto(path.read_bytes())
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    @property
    def model_proto(self) -> bytes:
        """The serialised SentencePiece model: copy it into a checkpoint folder."""
        return self.sp.serialized_model_proto()

    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` atomically (files.replace_file: a temporary file, then a rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, lambda tmp: tmp.write_bytes(self.model_proto))
        return path

    # ------------------------------------------------------------------ ids
    @property
    def vocab_size(self) -> int:
        """Number of pieces, specials included: the model's embedding rows."""
        return self.sp.get_piece_size()

    @property
    def pad_id(self) -> int:
        """Padding id (0): ignored by attention masks and the loss."""
        return PAD_ID

    @property
    def unk_id(self) -> int:
        """Unknown-piece id (1): characters never seen in training."""
        return UNK_ID

    @property
    def bos_id(self) -> int:
        """Start-of-sequence id (2): the decoder's first input."""
        return BOS_ID

    @property
    def eos_id(self) -> int:
        """End-of-sequence id (3): appended by encode(), stops decoding."""
        return EOS_ID

    # ------------------------------------------------------------------ text <-> ids
    def encode(self, text: str, add_bos: bool = False, add_eos: bool = True) -> list[int]:
        """Subword ids of ``text``, ending with ``</s>`` (3) unless ``add_eos=False``."""
        return self.sp.encode(text, add_bos=add_bos, add_eos=add_eos)

    def encode_batch(self, texts: Sequence[str], add_bos: bool = False, add_eos: bool = True) -> list[list[int]]:
        """``encode`` for many texts at once."""
        return self.sp.encode(list(texts), add_bos=add_bos, add_eos=add_eos)

    def pieces(self, text: str) -> list[str]:
        """The subword pieces of ``text`` ("▁" marks a preceding space), without specials."""
        return self.sp.encode(text, out_type=str)

    def id_to_piece(self, i: int) -> str:
        """The piece with id ``i``; raises IndexError outside the vocabulary."""
        return self.sp.id_to_piece(self._check_id(i))

    def ids_to_pieces(self, ids: Iterable[int]) -> list[str]:
        """``id_to_piece`` for each id."""
        return [self.id_to_piece(i) for i in ids]

    def decode(self, ids: Iterable[int]) -> str:
        """Text of ``ids``; padding, ``<s>`` and ``</s>`` are skipped, ``<unk>`` shows as ⁇."""
        kept = [self._check_id(i) for i in ids if int(i) not in (PAD_ID, BOS_ID, EOS_ID)]
        return self.sp.decode(kept)

    def _check_id(self, i: int) -> int:
        """``i`` as a plain int (tensors welcome), or IndexError naming the valid range."""
        i = int(i)
        if not 0 <= i < self.vocab_size:
            raise IndexError(f"token id {i} is outside the vocabulary 0..{self.vocab_size - 1}")
        return i

    def __len__(self) -> int:
        """The vocabulary size."""
        return self.vocab_size

    def __repr__(self) -> str:
        return f"Tokenizer(vocab_size={self.vocab_size})"
