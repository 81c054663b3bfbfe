"""TransformerConfig: every architectural choice of the model, saved as config.json."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..errors import UserError

POSITIONAL_KINDS = ("sinusoidal", "learned")


@dataclass
class TransformerConfig:
    """One dataclass drives the model; the checkpoint carries it as config.json."""

    src_vocab_size: int = 8000  # rows of the source embedding
    tgt_vocab_size: int = 8000  # rows of the target embedding and columns of the logits
    d_model: int = 256  # width D of the residual stream
    n_heads: int = 4  # H heads per attention; D must divide by H (Dh = D / H)
    n_layers: int = 3  # blocks in the encoder, and in the decoder
    d_ff: int = 1024  # hidden width of the position-wise FFN (paper: 4 D)
    dropout: float = 0.1  # on sublayer outputs, attention weights and embeddings
    max_len: int = 128  # longest sequence the positional encodings cover
    norm_first: bool = True  # pre-LN (norm → sublayer → residual) vs post-LN (sublayer → residual → norm)
    final_norm: bool = True  # a LayerNorm after the last block of encoder and decoder (pre-LN needs it)
    positional: str = "sinusoidal"  # "sinusoidal" (fixed table, sec. 3.5) or "learned" (nn.Embedding)
    scale_embeddings: bool = True  # multiply token embeddings by √D (sec. 3.4)
    zero_pad_embeddings: bool = True  # the embedding of <pad> is exactly zero
    attn_bias: bool = False  # biases on the Q/K/V/O projections
    share_embeddings: bool = False  # source and target use one embedding (needs one joint vocabulary)
    tie_embeddings: bool = False  # the output projection reuses the target embedding matrix
    layer_norm_eps: float = 1e-5
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3
    name: str = "custom"  # the preset this config was built from

    def __post_init__(self) -> None:
        self.validate()

    @property
    def d_head(self) -> int:
        """Dh = D / H, the width of one head (sec. 3.2.2)."""
        return self.d_model // self.n_heads

    def validate(self) -> None:
        """Raise ValueError with the fix for any inconsistent field."""
        for name in ("src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise UserError("err-config-positive", name=name, value=value)
        if self.d_model % self.n_heads:
            raise UserError(
                "err-config-divisible",
                d_model=self.d_model,
                n_heads=self.n_heads,
                choices=[h for h in range(1, self.d_model + 1) if self.d_model % h == 0][:8],
            )
        if self.positional == "sinusoidal" and self.d_model % 2:
            raise UserError("err-config-even", d_model=self.d_model)
        if not 0.0 <= self.dropout < 1.0:
            raise UserError("err-config-dropout", value=self.dropout)
        if self.positional not in POSITIONAL_KINDS:
            raise UserError("err-config-positional", choices=POSITIONAL_KINDS, value=self.positional)
        specials = {"pad_id": self.pad_id, "unk_id": self.unk_id, "bos_id": self.bos_id, "eos_id": self.eos_id}
        if len(set(specials.values())) != 4:
            raise UserError("err-config-specials-distinct", specials=specials)
        for name, value in specials.items():
            if not 0 <= value < min(self.src_vocab_size, self.tgt_vocab_size):
                raise UserError("err-config-special-outside", name=name, value=value)
        if self.share_embeddings and self.src_vocab_size != self.tgt_vocab_size:
            raise UserError("err-config-share")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every field."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TransformerConfig:
        """Build from a dict, refusing unknown keys and wrong types with a clear message."""
        if not isinstance(data, dict):
            raise UserError("err-config-not-object", kind=type(data).__name__)
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise UserError("err-config-unknown-fields", unknown=unknown, known=sorted(known))
        for key, value in data.items():
            expected = type(getattr(cls(), key))
            ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                ok = True
            if not ok:
                raise UserError("err-config-field-type", field=key, expected=expected.__name__, value=value)
        return cls(**{k: float(v) if type(getattr(cls(), k)) is float else v for k, v in data.items()})

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> TransformerConfig:
        """A named architecture (see PRESETS) with fields overridden by keyword."""
        if name not in PRESETS:
            raise UserError("err-config-unknown-preset", name=name, choices=sorted(PRESETS))
        fields = {**PRESETS[name], "name": name, **overrides}
        return cls.from_dict(fields)


# The two study notes the project grew from, with their bugs fixed (docs/library.md, "Presets").
PRESETS: dict[str, dict[str, Any]] = {
    # Japanese notes: pre-LN, sinusoidal table, √D-scaled pad-zeroed embeddings, bias-free attention.
    "seed000": dict(
        norm_first=True,
        final_norm=True,
        positional="sinusoidal",
        scale_embeddings=True,
        zero_pad_embeddings=True,
        attn_bias=False,
    ),
    # Korean notes: post-LN, learned positions nn.Embedding(max_len, D), biased projections.
    "seed004": dict(
        norm_first=False,
        final_norm=False,
        positional="learned",
        scale_embeddings=False,
        zero_pad_embeddings=False,
        attn_bias=True,
    ),
}
DEFAULT_PRESET = "seed000"

__all__ = ["TransformerConfig", "PRESETS", "DEFAULT_PRESET"]
