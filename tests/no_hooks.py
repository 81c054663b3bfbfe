"""assert_no_hooks(model): after tracing or intervening nothing is left behind, of ours or of PyTorch's."""

from __future__ import annotations

from torch import nn

from transformer_viz.model.hooks import active_hooks


def assert_no_hooks(model: nn.Module) -> None:
    """Nothing is left behind: no context hooks, no torch module hooks (local or global)."""
    assert active_hooks() == {}
    for module in model.modules():
        assert not module._forward_hooks and not module._forward_pre_hooks, type(module).__name__
    assert not nn.modules.module._global_forward_hooks and not nn.modules.module._global_forward_pre_hooks
