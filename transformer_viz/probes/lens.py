"""The logit lens of a translation: every point of the decoder's residual stream read as if it were the last.

At each residual point p (trace.residual_points(L): embed, L0.self, L0.cross, L0.ffn, …) and each step t, the
stream r_p[t] goes through what follows the last layer — the final norm (seed000's LayerNorm; seed004 has none)
and the tied output projection W_U (model.decoder.generator) — as if the decoder stopped there:

    logits_p[t] = W_U · norm(r_p[t]) + b          p_p[t] = softmax(logits_p[t]) with <pad> and <s> banned

The last point's lens is the model's own output. Beside it, each point's direct contribution to the logit of the
token y_t that was finally chosen. The final residual is r_last = r_embed + Σ_p Δ_p, with Δ_p = r_p − r_(p−1),
the difference of consecutive residual points. The final LayerNorm is γ ⊙ (x − mean x) / σ + β; with σ frozen
at the value it takes on r_last[t] it is linear, so the chosen logit splits exactly into

    z_y[t] = Σ_p  W_U[y_t] · (γ ⊙ centre(Δ_p)) / σ      + (W_U[y_t] · β + b_y)
             contributions[p, t] (row 0: r_embed itself)    constant[t]

(without a final norm: W_U[y_t] · Δ_p and b_y). In a pre-LN block Δ_p is exactly the sublayer's output
(hook_out; dropout is off in eval). In a post-LN block each sublayer's own LayerNorm follows the add, so Δ_p is
the sublayer's output together with what that LayerNorm changed; the sum is still exact.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from ..decoding import ban_never_generated
from ..model.transformer import Transformer

FIELDS = ("top_ids", "top_tokens", "top_probs", "chosen_probs", "chosen_logits", "contributions", "constant")


@torch.inference_mode()
def logit_lens(
    model: Transformer, residual: np.ndarray, target_ids: list[int], id_to_piece: Callable[[int], str]
) -> dict:
    """The lens of the residual stream (P, T, D) at residual_points(L) for the chosen tokens `target_ids` (T,).

    Returns plain arrays: top_ids (P, T) and top_tokens [P][T], the most probable piece at each point and step;
    top_probs (P, T) its probability; chosen_probs and chosen_logits (P, T), those of y_t; contributions (P, T),
    each point's direct share of y_t's final logit, and constant (T,) the part no point adds (see the module's
    docstring: Σ_p contributions + constant = the final chosen logit); final_norm, whether a LayerNorm is read.
    """
    decoder = model.decoder
    weight = decoder.generator.weight  # (V, D), tied to the target embedding
    r = torch.as_tensor(residual, dtype=weight.dtype, device=weight.device)  # (P, T, D)
    y = torch.as_tensor(target_ids, dtype=torch.long, device=weight.device)  # (T,)
    logits = decoder.generator(decoder.norm(r)).float()  # (P, T, V)
    chosen_logits = logits.gather(-1, y.expand(r.shape[0], -1).unsqueeze(-1))[..., 0]  # (P, T)
    probs = ban_never_generated(logits, model.config).softmax(-1)  # as decoding reads them
    top_probs, top_ids = probs.max(dim=-1)  # (P, T)
    chosen_probs = probs.gather(-1, y.expand(r.shape[0], -1).unsqueeze(-1))[..., 0]
    contributions, constant = direct_contributions(decoder.norm, weight[y], decoder.generator.bias, y, r)
    return dict(
        top_ids=top_ids.cpu().numpy().astype(np.int64),
        top_tokens=[[id_to_piece(int(i)) for i in row] for row in top_ids.tolist()],
        top_probs=top_probs.cpu().numpy().astype(np.float32),
        chosen_probs=chosen_probs.cpu().numpy().astype(np.float32),
        chosen_logits=chosen_logits.cpu().numpy().astype(np.float32),
        contributions=contributions.cpu().numpy().astype(np.float32),
        constant=constant.cpu().numpy().astype(np.float32),
        final_norm=isinstance(decoder.norm, torch.nn.LayerNorm),
    )


def direct_contributions(
    norm: torch.nn.Module, unembed: torch.Tensor, bias: torch.Tensor | None, y: torch.Tensor, r: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(contributions (P, T), constant (T,)): each residual point's direct part of the chosen logit, σ frozen.

    `unembed` (T, D) holds W_U[y_t]; `r` (P, T, D) the residual stream; row 0 of the parts is r_embed itself.
    """
    parts = torch.cat([r[:1], r[1:] - r[:-1]]).float()  # (P, T, D): r_embed, then Δ_p
    u = unembed.float()  # (T, D)
    constant = torch.zeros(r.shape[1], device=r.device) if bias is None else bias.float()[y]
    if isinstance(norm, torch.nn.LayerNorm):
        last = r[-1].float()  # (T, D)
        sigma = (last.var(dim=-1, unbiased=False) + norm.eps).sqrt()  # (T,) the final norm's scale, frozen
        gamma = torch.ones_like(u[0]) if norm.weight is None else norm.weight.float()
        centred = parts - parts.mean(dim=-1, keepdim=True)
        contributions = (centred * gamma * u).sum(-1) / sigma  # (P, T)
        if norm.bias is not None:
            constant = constant + u @ norm.bias.float()
        return contributions, constant
    return (parts * u).sum(-1), constant
