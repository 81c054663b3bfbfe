"""Which source pieces the chosen tokens depend on, by gradients: gradient × input and integrated gradients.

f_t(x) = log p(y_t | x, y_<t), teacher-forced on the translation, is a function of the source's token embeddings
x (S, D) — the encoder's hook_embed output, before the positional encodings are added; those stay. Per source
piece i, summed over its D dimensions:

    gradient × input        G_i = x_i · ∂f_t/∂x_i (x)
    integrated gradients    IG_i = (x_i − x'_i) · (1/m) Σ_k ∂f_t/∂x_i (x' + α_k (x − x')),  α_k = (k + ½)/m

(Sundararajan et al. 2017, the midpoint rule with m steps) from the baseline x' = 0: every embedding zeroed, which
is seed000's <pad> embedding. IG is complete: Σ_i IG_i → f_t(x) − f_t(x') as m grows; the result keeps both sides.

The gradients are taken with torch.autograd.grad with respect to a copy of the embeddings only. The shared
model's parameters are left exactly as they are — no requires_grad_ switch, no .grad written, no optimiser —
so concurrent visitors see the same model; the copy goes in through a hook scoped to this call (model.hooks).
All m + 2 inputs (the path, x itself and the baseline) run as one batch.
"""

from __future__ import annotations

import torch

from ..decoding import ban_never_generated
from ..model.hooks import intervene
from ..model.transformer import Transformer

IG_STEPS = 32  # the page's integrated gradients: about 0.5 s on one core for the shipped models, complete within ~5%
BASELINE = "zero"


def attribute(
    model: Transformer, src_ids: torch.Tensor | list[int], target_ids: list[int], steps: int = IG_STEPS
) -> dict:
    """Gradient × input and integrated gradients of log p(y_t) for each step t, w.r.t. each source embedding.

    `src_ids` (1, S) or a list of ids: the source; `target_ids` (T,) the translation it is teacher-forced on.
    Returns numpy arrays: integrated_gradients and gradient_x_input (T, S); log_probs (T,) f_t(x) and
    baseline_log_probs (T,) f_t(x'); ig_steps and baseline (what x' is).
    """
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive whole number, got {steps!r}")
    if not target_ids:
        raise ValueError("there is no translation to attribute")
    src_ids = torch.as_tensor(src_ids, dtype=torch.long, device=model.device).reshape(1, -1)
    with torch.inference_mode(False), torch.no_grad():
        x = model.encoder.embed(src_ids).detach().clone()  # (1, S, D): what hook_embed sees
    alphas = (torch.arange(steps, dtype=x.dtype, device=x.device) + 0.5) / steps  # (m,)
    path = torch.cat([alphas[:, None, None] * x, x, torch.zeros_like(x)])  # (m + 2, S, D); baseline x' = 0
    log_p, grads = log_probs_and_gradients(model, src_ids, target_ids, path)  # (m + 2, T), (T, m + 2, S, D)
    ig = (x[0] * grads[:, :steps].mean(dim=1)).sum(-1)  # (T, S)
    gxi = (x[0] * grads[:, steps]).sum(-1)  # (T, S)
    return dict(
        integrated_gradients=ig.float().cpu().numpy(),
        gradient_x_input=gxi.float().cpu().numpy(),
        log_probs=log_p[steps].float().cpu().numpy(),
        baseline_log_probs=log_p[steps + 1].float().cpu().numpy(),
        ig_steps=steps,
        baseline=BASELINE,
    )


def log_probs_and_gradients(
    model: Transformer, src_ids: torch.Tensor, target_ids: list[int], embeddings: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(f (B, T), ∂f_t/∂embeddings (T, B, S, D)) for a batch of B source embeddings (B, S, D), teacher-forced.

    The rows of the batch are independent, so the gradient of Σ_b f_t[b] gives every row's own gradient.
    """
    cfg = model.config
    B, T = embeddings.shape[0], len(target_ids)
    ids = torch.tensor(target_ids, device=src_ids.device)
    tgt_in = torch.tensor([[cfg.bos_id] + list(target_ids[:-1])], device=src_ids.device).expand(B, T)  # (B, T)
    with torch.inference_mode(False), torch.enable_grad():
        inputs = embeddings.detach().clone().requires_grad_(True)  # a leaf of our own: the only thing differentiated
        with intervene(model, [("encoder.hook_embed", lambda _x, _hook: inputs)]):
            logits = model(src_ids.expand(B, -1), tgt_in)  # (B, T, V)
        if logits.dtype in (torch.float16, torch.bfloat16):
            logits = logits.float()  # half precision is too coarse for a softmax's gradient
        log_probs = ban_never_generated(logits, cfg).log_softmax(-1)  # as decoding reads them
        f = log_probs[:, torch.arange(T, device=ids.device), ids]  # (B, T)
        grads = [
            torch.autograd.grad(f[:, t].sum(), inputs, retain_graph=t < T - 1)[0]  # (B, S, D)
            for t in range(T)
        ]
    return f.detach(), torch.stack(grads)
