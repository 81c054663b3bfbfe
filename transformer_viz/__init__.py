"""transformer-viz: look inside a small encoder–decoder Transformer trained from scratch.

The public API is imported on first use (PEP 562), so that `transformer_viz.figures`, which
draws traces and arrays, can be imported without PyTorch.
"""

from importlib import import_module

__version__ = "0.1.0"

_PUBLIC = {  # name -> the module that defines it
    "TransformerConfig": "model.config",
    "PRESETS": "model.config",
    "Transformer": "hub.model",  # model.transformer's class with from_pretrained / save_pretrained / push_to_hub
    "HookPoint": "model.hooks",
    "Tracer": "model.hooks",
    "intervene": "model.hooks",
    "Translator": "translator",
    "load_model": "translator",
    "Trace": "trace",
    "Intervention": "probes.interventions",
    "compare": "lab.compare",
    "show": "figures.views",  # a view of a trace as the app draws it, for a notebook
    "lesson": "figures.lesson",  # a trace as one HTML page that steps through it with no server
}
_SUBMODULES = {"analysis": "lab.analysis"}  # `from transformer_viz import analysis`: a module of the lab

__all__ = [*_PUBLIC, *_SUBMODULES, "__version__"]


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(import_module(f".{_PUBLIC[name]}", __name__), name)
    if name in _SUBMODULES:
        return import_module(f".{_SUBMODULES[name]}", __name__)
    raise AttributeError(f"module 'transformer_viz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC, *_SUBMODULES])
