"""TrainOptions, the optimizer and the learning-rate schedule of a run (sec. 5.3).

The architecture a run may size (d_model, n_heads, …) is TransformerConfig's own fields, with
their defaults and types; everything else about the model comes from the preset.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from ..corpus.pairs import check_direction
from ..errors import UserError
from ..model.config import TransformerConfig

PRECISIONS = ("fp32", "bf16", "auto")  # what `precision` may name; bf16 is the run's one speed switch

# TransformerConfig's fields a run chooses; the rest are the preset's (the vocabulary is the tokenizer's).
MODEL_FIELDS = ("d_model", "n_heads", "n_layers", "d_ff", "dropout", "max_len")

ModelOptions = dataclasses.make_dataclass(
    "ModelOptions",
    [
        (f.name, f.type, dataclasses.field(default=f.default))
        for f in dataclasses.fields(TransformerConfig)
        if f.name in MODEL_FIELDS
    ],
)
ModelOptions.__module__ = __name__
ModelOptions.__doc__ = f"The sizes of the model a run trains: TransformerConfig's {', '.join(MODEL_FIELDS)}."


@dataclass
class TrainOptions(ModelOptions):
    """Everything a training run depends on; saved in training.json beside the checkpoint."""

    out: str = "checkpoints/seed000"
    preset: str = "seed000"
    vocab_size: int = 8000  # joint English+German SentencePiece vocabulary
    max_tokens: int = 4096  # source or target tokens per batch (per process)
    max_steps: int = 100_000
    max_minutes: float = 0.0  # stop after this wall time (0 = no limit)
    pause_at: int = 0  # stop and save at this step (0 = max_steps); --resume goes on towards max_steps
    lr_factor: float = 1.0  # lrate = factor · D^-0.5 · min(step^-0.5, step · warmup^-1.5), eq. (3)
    warmup: int = 1000
    cooldown_steps: int = 0  # scale the rate linearly down to 0 over the last N of max_steps (0 = pure Noam)
    label_smoothing: float = 0.1  # ε_ls, sec. 5.4
    word_dropout: float = 0.0  # replace each source piece by <unk> with this probability while training
    average: int = 0  # keep the mean of the last N validations' weights if it validates better (sec. 6.1)
    snapshots: int = 0  # keep the weights at N log-spaced steps of the run in snapshots/ (fp16), to replay training
    clip: float = 1.0  # max gradient norm
    seed: int = 0
    valid_every: int = 250  # steps between validations / checkpoint writes
    device: str = "auto"
    precision: str = "fp32"  # "bf16": matrix products in bfloat16 under autocast, weights and Adam in fp32 (faster
    # where the hardware has bfloat16 arithmetic); "auto": bf16 where it has, fp32 where it would be emulated
    threads: int = 0  # torch CPU threads (0 = torch's default)
    extra_tsv: str = ""  # more training pairs, english<TAB>german (a third column "synthetic": back-translated)
    synthetic_pairs: int = -1  # back-translated pairs of extra_tsv kept (seeded sample; -1 = all, 0 = none)
    max_pairs: int = 0  # use only this many training pairs (0 = all); for quick runs
    word_pairs: int = 40_000  # single-word dictionary pairs kept (seeded sample; -1 = all of ~280k)
    kinds: str = "sentence,phrase,word"  # pair kinds trained on; "sentence" fine-tunes on sentences alone
    corpus: str = ""  # the Ding file (default: the Debian package's)
    debian_corpus: str = ""  # a folder made by `corpus build`: its training pairs join Ding's ("" = Ding alone)
    debian_sources: str = ""  # the sources of debian_corpus to read, comma-separated ("" = all)
    direction: str = "en-de"  # "de-en": the same pairs with their sides swapped, a German → English model
    resume: bool = False

    def check(self) -> None:
        """Refuse options no run can use, before any work (the model's own fields are checked by its config)."""
        if not 0.0 <= self.word_dropout < 1.0:
            raise UserError("err-train-word-dropout", value=self.word_dropout)
        if self.average < 0:
            raise UserError("err-train-average", value=self.average)
        if self.snapshots < 0:
            raise UserError("err-train-snapshots", value=self.snapshots)
        if self.precision not in PRECISIONS:
            raise UserError("err-train-precision", value=self.precision, choices=", ".join(PRECISIONS))
        check_direction(self.direction)
        for name in ("valid_every", "warmup", "max_tokens"):
            if getattr(self, name) < 1:
                raise UserError("err-train-at-least-one", name=name, value=getattr(self, name))

    @property
    def end_step(self) -> int:
        """The step this run stops at: max_steps, or pause_at before it (the schedule still counts to max_steps)."""
        return min(self.max_steps, self.pause_at) if self.pause_at > 0 else self.max_steps

    def model_config(self, vocab_size: int) -> TransformerConfig:
        """The preset, sized by these options, over one joint vocabulary (shared and tied embeddings)."""
        sizes = {name: getattr(self, name) for name in MODEL_FIELDS}
        return TransformerConfig.preset(
            self.preset,
            src_vocab_size=vocab_size,
            tgt_vocab_size=vocab_size,
            share_embeddings=True,
            tie_embeddings=True,
            **sizes,
        )


def adam(model: torch.nn.Module) -> torch.optim.Adam:
    """Adam with β1 0.9, β2 0.98, ε 1e-9 (sec. 5.3); the rate is set at every step by eq. (3).

    On a GPU the fused kernel updates every parameter in one launch (nanoGPT's choice); elsewhere the default
    (foreach) implementation, whose results the tests pin down on a CPU.
    """
    on_gpu = next(model.parameters()).device.type == "cuda"
    return torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9, fused=True if on_gpu else None)


def noam_lr(step: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """lrate = factor · d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5), eq. (3)."""
    step = max(step, 1)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def learning_rate(step: int, opts: TrainOptions, d_model: int) -> float:
    """Eq. (3), times a linear cool-down (max_steps - step + 1) / cooldown_steps over the run's last steps."""
    rate = noam_lr(step, d_model, opts.warmup, opts.lr_factor)
    if opts.cooldown_steps and step > opts.max_steps - opts.cooldown_steps:
        rate *= max(opts.max_steps - step + 1, 0) / opts.cooldown_steps
    return rate


def native_bf16(device: torch.device) -> bool:
    """Whether `device` multiplies bfloat16 in hardware (a CUDA GPU that says so; a CPU with AVX-512 BF16 or AMX).

    Elsewhere autocast still runs, but each bfloat16 product is emulated, several times slower than fp32.
    """
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    return False


def uses_bf16(precision: str, device: torch.device) -> bool:
    """Whether a run with `precision` computes its products in bfloat16 on `device` ("auto": where it is native)."""
    return precision == "bf16" or (precision == "auto" and native_bf16(device))
