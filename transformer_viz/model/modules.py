"""Modules that skip nn.Module's call machinery at inference, when nothing would notice.

`module(x)` runs nn.Module.__call__, which looks for PyTorch hooks, tracing and compilation before it
calls forward(): a few µs each time. A cached decoding step calls ~60 modules, and at the small
models' size those µs are several percent of the step (benchmarks/bench_cache.py). In training mode,
once a PyTorch hook is registered on the module or globally, or after module.compile(), the full
machinery runs as usual.
(HookPoint and Dropout take the same shortcut in their own way.)

Reading a submodule, `self.w_q`, costs more still on Python 3.11: nn.Module keeps submodules in
`self._modules`, so the ordinary lookup fails first, and Python builds an AttributeError message
before it falls back to nn.Module.__getattr__. A cached decoding step of seed000 reads ~140 submodules;
counted with cachegrind, that fallback was a fifth of the step's instructions. `Module` therefore
also keeps each child in the instance `__dict__`, where the ordinary lookup finds it. Assigning,
deleting and add_module() keep the two in step (tests/test_hooks_fast_path.py); code that writes
`_modules[name]` itself bypasses them.

Parameters and buffers (`self.weight`, `self.table`) take the same detour, about 70 reads a step. They
must not be copied into `__dict__` (torch.func.functional_call swaps tensors in `_parameters`), so the
classes here name them with `Registered`, a class attribute that reads `_parameters` or `_buffers` at
every access: Python's lookup finds it, and it always gives what the module holds now.
"""

from __future__ import annotations

from torch import nn

from .hooks import has_torch_hooks


class Module(nn.Module):
    """nn.Module whose eval-mode call is forward(…) itself while no PyTorch hook is registered,
    and whose children are found by Python's ordinary attribute lookup."""

    def __call__(self, *args, **kwargs):
        # (a model.compile()d module must run its compiled call, which nn.Module's __call__ picks)
        if self.training or self._compiled_call_impl is not None or has_torch_hooks(self):
            return super().__call__(*args, **kwargs)
        return self.forward(*args, **kwargs)

    def __setattr__(self, name: str, value) -> None:
        super().__setattr__(name, value)  # a child goes to self._modules (and leaves __dict__)
        if name in self.__dict__.get("_modules", ()):
            self.__dict__[name] = self._modules[name]

    def __delattr__(self, name: str) -> None:
        child = name in self._modules
        super().__delattr__(name)  # removes a child from self._modules only
        if child:
            del self.__dict__[name]

    def add_module(self, name: str, module: nn.Module | None) -> None:  # register_module() calls it too
        super().add_module(name, module)
        self.__dict__[name] = module


class Registered:
    """A parameter or buffer, read from the module's `_parameters` / `_buffers` by Python's own lookup.

    A non-data descriptor: an instance attribute of the same name (weight_norm's) still wins, and a name
    that is not registered there raises AttributeError, so that nn.Module.__getattr__ looks further.
    """

    def __init__(self, store: str = "_parameters") -> None:
        self.store = store

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, module, owner=None):
        if module is None:
            return self
        try:
            return module.__dict__[self.store][self.name]
        except KeyError:
            raise AttributeError(f"'{type(module).__name__}' object has no attribute '{self.name}'") from None


class Linear(Module, nn.Linear):
    """y = x Wᵀ + b (nn.Linear), called directly at inference."""

    weight = Registered()
    bias = Registered()


class LayerNorm(Module, nn.LayerNorm):
    """nn.LayerNorm, called directly at inference."""

    weight = Registered()
    bias = Registered()


class Embedding(Module, nn.Embedding):
    """nn.Embedding, called directly at inference."""

    weight = Registered()


class Identity(Module, nn.Identity):
    """nn.Identity (where a post-LN model has no final LayerNorm), called directly at inference."""
