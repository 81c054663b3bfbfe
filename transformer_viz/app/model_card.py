"""The model card: architecture, parameter count and every hook point's shape, read off the model itself."""

from __future__ import annotations

import functools

from ..translator import Translator
from .markdown import md


def hook_shapes(translator: Translator) -> dict[str, str]:
    """Every hook point's shape in letters, read off two dry runs: (B, S, T) = (1, 5, 3) and (2, 6, 4)."""
    import torch

    from ..model.hooks import Tracer

    cfg, model = translator.config, translator.model
    runs = []
    for B, S, T in ((1, 5, 3), (2, 6, 4)):
        src = torch.full((B, S), 5, device=model.device)
        tgt = torch.full((B, T), 5, device=model.device)
        with torch.no_grad(), Tracer(model) as tracer:
            model(src, tgt)
        runs.append({name: tuple(t.shape) for name, t in tracer.cache.items()})

    def letter(i: int, x: int, y: int, rank: int) -> str:
        varying = {(1, 2): "B", (5, 6): "S", (3, 4): "T"}
        if (x, y) in varying:
            return varying[(x, y)]
        if rank == 4 and i == 1 and x == cfg.n_heads:
            return "H"
        if rank == 4 and i == 3 and x == cfg.d_head:
            return "Dh"
        return {cfg.d_model: "D", cfg.tgt_vocab_size: "V"}.get(x, str(x))

    return {
        name: "(" + ", ".join(letter(i, x, y, len(a)) for i, (x, y) in enumerate(zip(a, runs[1][name]))) + ")"
        for name, a in runs[0].items()
    }


@functools.lru_cache(maxsize=16)
def model_card(translator: Translator) -> str:
    """Markdown: architecture, parameter count and every hook point with its shape.

    Cached per (shared, read-only) model: the shapes come from two dry runs, which need not
    repeat on every translation that shows the card.
    """
    cfg = translator.config
    rows = "\n".join(f"| `{name}` | {shape} |" for name, shape in hook_shapes(translator).items())
    arch = (
        "pre-LN (norm → sublayer → residual) + final LayerNorm"
        if cfg.norm_first
        else "post-LN (sublayer → residual → norm)"
    )
    return (
        f"### {md(translator.name)} (preset `{cfg.name}`)\n\n"
        f"- **{translator.n_parameters:,} parameters**; {cfg.n_layers} encoder + {cfg.n_layers} decoder layers; "
        f"D = {cfg.d_model}, H = {cfg.n_heads} heads of Dh = {cfg.d_head}, FFN width {cfg.d_ff}\n"
        f"- blocks: {arch}; positions: {cfg.positional}; vocabulary {cfg.src_vocab_size} SentencePiece pieces\n\n"
        f"Hook points (B batch, S source length, T target length):\n\n| hook point | shape |\n|---|---|\n{rows}\n"
    )
