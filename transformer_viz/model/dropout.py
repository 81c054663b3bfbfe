"""Dropout (sec. 5.4) that costs nothing when the model is not training."""

from __future__ import annotations

import torch
from torch import nn

from .hooks import has_torch_hooks


class Dropout(nn.Dropout):
    """nn.Dropout; in eval mode it hands back its input without nn.Module's call machinery.

    Eval-mode dropout is the identity, but each of the ~19 dropouts a decoding step passes would
    still cost a module call and a functional call: ~8% of a cached step of the small models.
    Hooks registered the PyTorch way still run.
    """

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.training or has_torch_hooks(self):
            return super().__call__(x)
        return x
