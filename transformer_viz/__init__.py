"""transformer-viz: look inside a small encoder–decoder Transformer trained from scratch."""
from .model.config import PRESETS, TransformerConfig
from .model.hooks import HookPoint, Tracer, intervene
from .model.transformer import Transformer

__version__ = "0.1.0"

__all__ = ["TransformerConfig", "PRESETS", "Transformer", "HookPoint", "Tracer", "intervene", "load_model", "__version__"]


def __getattr__(name: str):
    # load_model pulls in the tokenizer and hub code; import it only when asked for.
    if name in ("load_model", "Translator"):
        from . import translator

        return getattr(translator, name)
    raise AttributeError(f"module 'transformer_viz' has no attribute {name!r}")
