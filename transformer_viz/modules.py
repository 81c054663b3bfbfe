"""Modules that skip nn.Module's call machinery at inference, when nothing would notice.

`module(x)` runs nn.Module.__call__, which looks for PyTorch hooks, tracing and compilation before it
calls forward(): a few µs each time. A cached decoding step calls ~60 modules, and at the small
models' size those µs are several percent of the step (benchmarks/bench_cache.py). In training mode,
or once a PyTorch hook is registered on the module or globally, the full machinery runs as usual.
(HookPoint and Dropout take the same shortcut in their own way.)
"""
from __future__ import annotations

from torch import nn

from .hooks import has_torch_hooks


class Module(nn.Module):
    """nn.Module whose eval-mode call is forward(…) itself while no PyTorch hook is registered."""

    def __call__(self, *args, **kwargs):
        if self.training or has_torch_hooks(self):
            return super().__call__(*args, **kwargs)
        return self.forward(*args, **kwargs)


class Linear(Module, nn.Linear):
    """y = x Wᵀ + b (nn.Linear), called directly at inference."""


class LayerNorm(Module, nn.LayerNorm):
    """nn.LayerNorm, called directly at inference."""


class Embedding(Module, nn.Embedding):
    """nn.Embedding, called directly at inference."""


class Identity(Module, nn.Identity):
    """nn.Identity (where a post-LN model has no final LayerNorm), called directly at inference."""
