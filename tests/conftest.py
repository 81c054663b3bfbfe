"""Shared fixtures: offline environment, a fresh seed per test, tiny configs and models."""
from __future__ import annotations

import os

# Before anything imports gradio or huggingface_hub: no analytics, no network.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
import torch

from transformer_viz import Transformer, TransformerConfig

# The tensors in unit tests are tiny: intra-op threads only add scheduling overhead
# (10x slower on a busy 2-core machine), so every test runs single-threaded.
torch.set_num_threads(1)

TINY = dict(
    src_vocab_size=50, tgt_vocab_size=50, d_model=32, n_heads=4, n_layers=2, d_ff=64, dropout=0.0, max_len=64
)


@pytest.fixture(autouse=True)
def _seed() -> None:
    """Every test starts from the same random state, whatever ran before it."""
    torch.manual_seed(0)


@pytest.fixture
def tiny_config():
    """tiny_config(preset, **overrides) → a TransformerConfig small enough for unit tests."""

    def build(preset: str = "seed000", **overrides) -> TransformerConfig:
        return TransformerConfig.preset(preset, **{**TINY, **overrides})

    return build


@pytest.fixture
def tiny_model(tiny_config):
    """tiny_model(preset, **overrides) → a Transformer in eval mode (dropout off)."""

    def build(preset: str = "seed000", **overrides) -> Transformer:
        return Transformer(tiny_config(preset, **overrides)).eval()

    return build


@pytest.fixture
def make_ids():
    """make_ids(lengths, width=None, bos=False) → (B, width) ids in [4, 50), padded with 0 after each length.

    With bos=True every row starts with <s> (id 2), as a decoder input does.
    """

    def build(lengths: list[int], width: int | None = None, bos: bool = False, vocab: int = 50) -> torch.Tensor:
        width = max(lengths) if width is None else width
        ids = torch.randint(4, vocab, (len(lengths), width))
        if bos:
            ids[:, 0] = 2
        for row, length in enumerate(lengths):
            ids[row, length:] = 0
        return ids

    return build
