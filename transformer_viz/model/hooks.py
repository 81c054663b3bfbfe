"""Hook points and the Tracer that reads them.

A HookPoint is an identity module placed at every quantity a learner may want to
see; its name is its module path (``decoder.layers.1.cross_attn.hook_pattern``).

Hooks are scoped to the current execution context (a ``contextvars.ContextVar``),
not registered on the module: while a ``Tracer`` or ``intervene`` block is open,
only forward passes run *in that thread or task* see its hooks. Two visitors
tracing one shared model at the same time therefore never see each other's
tensors, and the model object is never mutated. Leaving the block always removes
the hooks, also when the forward pass raises.

A hook may edit its input in place and return None. Where that input is also held
elsewhere (the positional table, the mask every layer shares, the key/value cache)
the hook point hands its hooks a copy (``shared=True``), so the edit stays in this
call: it never reaches the model's weights, another layer or a later decoding step.
Hooks marked ``reads_only`` (the Tracer's) need no copy.
"""

from __future__ import annotations

import contextlib
import contextvars
import fnmatch
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType

import torch
from torch import nn

HookFn = Callable[[torch.Tensor, "HookPoint"], torch.Tensor | None]

# HookPoint → hook functions active in this context; an immutable tuple per entry.
# Keyed by the module itself, not its name: a Tracer on one model never fires on another
# model's forward pass that happens to have the same hook names (e.g. comparing two presets).
# The default is read-only: every change sets a new dict, so no context can alter another's.
_ACTIVE: contextvars.ContextVar[Mapping[HookPoint, tuple[HookFn, ...]]] = contextvars.ContextVar(
    "transformer_viz_hooks", default=MappingProxyType({})
)


class HookPoint(nn.Module):
    """Identity module; hooks active in the current context may read or replace its input."""

    def __init__(self) -> None:
        super().__init__()
        self.name = ""  # set by name_hook_points() to the module path

    def forward(self, x: torch.Tensor, shared: bool = False) -> torch.Tensor:
        """x, or what the active hooks make of it.

        `shared`: x is also held elsewhere, so hooks that may write get a copy.
        """
        fns = _ACTIVE.get().get(self, ())
        if shared and any(not getattr(fn, "reads_only", False) for fn in fns):
            x = x.clone()
        for fn in fns:
            out = fn(x, self)
            x = x if out is None else out
        return x


def name_hook_points(model: nn.Module) -> None:
    """Give every HookPoint its module path as name (call once after building a model)."""
    for name, module in model.named_modules():
        if isinstance(module, HookPoint):
            module.name = name


# module → {path: HookPoint}: walking ~150 modules costs more than a short sentence's trace can spare,
# so each model (or submodule) is walked once. Hook points are fixed when a model is built.
_TABLES: weakref.WeakKeyDictionary[nn.Module, dict[str, HookPoint]] = weakref.WeakKeyDictionary()


_SELECTIONS: weakref.WeakKeyDictionary[nn.Module, dict[tuple[str, ...], list[str]]] = weakref.WeakKeyDictionary()


def hook_points(model: nn.Module) -> dict[str, HookPoint]:
    """Every HookPoint of `model` by its path relative to `model`, in module order."""
    table = _TABLES.get(model)
    if table is None:
        table = _TABLES[model] = {name: m for name, m in model.named_modules() if isinstance(m, HookPoint)}
    return table


def hook_names(model: nn.Module) -> list[str]:
    """All hook point names of a model, in module order."""
    return list(hook_points(model))


def select_hooks(model: nn.Module, names: str | Iterable[str] | Callable[[str], bool] | None) -> list[str]:
    """Hook names matching exact names, glob patterns (``*.hook_pattern``) or a predicate."""
    available = hook_points(model)  # name → HookPoint, in module order
    if names is None:
        return list(available)
    if callable(names):
        return [n for n in available if names(n)]
    patterns = (names,) if isinstance(names, str) else tuple(names)
    known = _SELECTIONS.setdefault(model, {})
    if patterns not in known:  # the app traces with the same ~20 patterns on every request
        unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in available)]
        if unmatched:
            raise KeyError(f"no hook point matches {unmatched}; see hook_names(model) for the {len(available)} names")
        known[patterns] = [n for n in available if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    return list(known[patterns])


@contextlib.contextmanager
def intervene(model: nn.Module, hooks: dict[str, HookFn] | Iterable[tuple[str, HookFn]]) -> Iterator[None]:
    """Run forward passes with extra hooks (name or glob → fn(x, hook) → new x or None), for this context only."""
    pairs = list(hooks.items()) if isinstance(hooks, dict) else list(hooks)
    points = hook_points(model) if pairs else {}
    added: dict[HookPoint, list[HookFn]] = {}
    for pattern, fn in pairs:
        names = [pattern] if pattern in points else select_hooks(model, [pattern])  # exact names need no matching
        for name in names:
            added.setdefault(points[name], []).append(fn)
    current = _ACTIVE.get()
    merged = dict(current)
    for hook, fns in added.items():
        merged[hook] = current.get(hook, ()) + tuple(fns)
    token = _ACTIVE.set(merged)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


class Tracer:
    """Context manager that caches the tensors at the chosen hook points, detached and on the CPU.

    ``cache[name]`` holds the last value seen; ``history[name]`` every value in call order
    (several entries when a hook fires once per decoding step).
    """

    def __init__(self, model: nn.Module, names: str | Iterable[str] | Callable[[str], bool] | None = None):
        self.model = model
        self.names = select_hooks(model, names)
        self.cache: dict[str, torch.Tensor] = {}
        self.history: dict[str, list[torch.Tensor]] = {}
        self._context: contextlib.AbstractContextManager | None = None

    def _record(self, x: torch.Tensor, hook: HookPoint) -> None:
        with torch.inference_mode(False):  # a normal tensor even inside generate()'s inference mode
            value = x.detach().to("cpu", copy=True)
        self.cache[hook.name] = value
        self.history.setdefault(hook.name, []).append(value)

    _record.reads_only = True  # it copies what it keeps: a shared input needs no copy before it

    def __enter__(self) -> Tracer:
        self.cache.clear()
        self.history.clear()
        self._context = intervene(self.model, [(name, self._record) for name in self.names])
        self._context.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        context, self._context = self._context, None
        context.__exit__(*exc_info)

    def __getitem__(self, name: str) -> torch.Tensor:
        return self.cache[name]


def active_hooks() -> dict[str, tuple[HookFn, ...]]:
    """The hooks live in the current context by hook name (empty outside any Tracer / intervene block)."""
    return {hook.name: fns for hook, fns in _ACTIVE.get().items()}
