"""How well a run uses its device: the model's FLOPs per target token and its FLOPs utilization (MFU).

As nanoGPT's estimate_mfu (after Kaplan et al. 2020, appendix B): a forward pass costs 2 FLOPs per weight a token
passes through, the backward pass twice that, so a training step costs 6 FLOPs per weight per token. An
encoder-decoder's source tokens pass through the encoder's weights, its target tokens through the decoder's and
the output projection. The attention products themselves (QKᵀ and the weighted sum, 4·D FLOPs per key) are left
out: a few per cent at these sentence lengths.
"""

from __future__ import annotations

import torch

from ..model.config import TransformerConfig

# Dense bfloat16 tensor-core peaks, FLOP/s, from the makers' data sheets; MFU is reported where the device is one.
BF16_PEAK_FLOPS = {
    "H200": 989e12,
    "H100": 989e12,
    "A100": 312e12,
    "L40S": 362e12,
    "L4": 121e12,
    "A10": 125e12,
}


def train_flops_per_target_token(config: TransformerConfig, source_per_target: float = 1.0) -> float:
    """6 × (the decoder's weights and the output projection + the encoder's weights × source tokens per target)."""
    D, F, L = config.d_model, config.d_ff, config.n_layers
    encoder = L * (4 * D * D + 2 * D * F)  # self-attention W_Q, W_K, W_V, W_O, then the two FFN matrices
    decoder = L * (8 * D * D + 2 * D * F)  # self- and cross-attention, then the FFN
    output = D * config.tgt_vocab_size  # the projection to the vocabulary (tied or not, it is a product)
    return 6.0 * (decoder + output + encoder * source_per_target)


def peak_flops(device: torch.device, bf16: bool) -> float | None:
    """The device's dense bfloat16 peak where it is a GPU this table knows and the run computes in bfloat16."""
    if device.type != "cuda" or not bf16:
        return None
    name = torch.cuda.get_device_name(device)
    return next((peak for model, peak in BF16_PEAK_FLOPS.items() if model in name), None)


def mfu(target_tokens_per_second: float, flops_per_target_token: float, peak: float | None) -> float | None:
    """The model FLOPs utilization: the FLOPs a second the training does, as a share of the device's peak."""
    if not peak:
        return None
    return target_tokens_per_second * flops_per_target_token / peak
