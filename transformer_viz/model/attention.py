"""Multi-head attention written out, so its weights can be watched (sec. 3.2).

Shape letters: B batch, H heads, Tq queries, Tk keys, D d_model, Dh d_head = D / H.
"""

from __future__ import annotations

import functools
import math

import torch

from .config import TransformerConfig
from .dropout import Dropout
from .hooks import HookPoint
from .modules import Linear, Module


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention(Q, K, V) = softmax(Q Kᵀ / √Dh) V, eq. (1); returns (output, weights).

    The reference form, without hooks or dropout; `MultiHeadAttention` does the same steps.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, Tq, Tk)
    scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)  # a fully masked row is all zeros
    return weights @ v, weights  # (B, H, Tq, Dh), (B, H, Tq, Tk)


@functools.cache
def cpu_scalar(value: float, dtype: torch.dtype) -> torch.Tensor:
    """`value` as a 0-dim CPU tensor, which divides tensors of `dtype` exactly as the Python float does.

    A Python float is made into a float64 tensor and converted at every operation: about half the cost
    of dividing the scores of one query. float32 holds `value` for float32 and the narrower types, which
    compute in float32 (tests/test_attention.py checks each on the CPU); float64 needs float64.
    """
    with torch.inference_mode(False):  # a normal tensor, usable with autograd, even when first made in generate()
        return torch.tensor(value, dtype=torch.promote_types(dtype, torch.float32), device="cpu")


class KeyValueCache:
    """Keys and values of the positions seen so far, in (B, H, capacity, Dh) buffers filled from the left.

    Appending writes only the new positions (a torch.cat would copy all t of them at every step);
    keys()/values() are views of the filled part, or the buffers once full. The capacity doubles when a
    sequence outgrows it.
    """

    def __init__(self, k: torch.Tensor, v: torch.Tensor, capacity: int = 0):
        B, H, L, Dh = k.shape
        self.k = k.new_empty(B, H, max(capacity, L), Dh)
        self.v = v.new_empty(B, H, max(capacity, L), Dh)
        self.length = 0
        self.append(k, v)

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Add (B, H, Lnew, Dh) keys and values; return all of them so far, two (B, H, t, Dh)."""
        end = self.length + k.shape[2]
        if end > self.k.shape[2]:
            self.k, self.v = grown(self.k, max(end, 2 * self.k.shape[2])), grown(self.v, max(end, 2 * self.v.shape[2]))
        self.k.narrow(2, self.length, k.shape[2]).copy_(k)  # narrow(): one call, where indexing parses three slices
        self.v.narrow(2, self.length, v.shape[2]).copy_(v)
        self.length = end
        return self.keys(), self.values()

    def keys(self) -> torch.Tensor:
        # A full buffer is handed out as it is: cross-attention's memory keys, read at every step.
        return self.k if self.length == self.k.shape[2] else self.k.narrow(2, 0, self.length)

    def values(self) -> torch.Tensor:
        return self.v if self.length == self.v.shape[2] else self.v.narrow(2, 0, self.length)

    def reorder(self, index: torch.Tensor) -> None:
        """Keep batch rows `index` (beam search: follow the surviving hypotheses)."""
        self.k, self.v = self.k.index_select(0, index), self.v.index_select(0, index)


def grown(buffer: torch.Tensor, capacity: int) -> torch.Tensor:
    """(B, H, L, Dh) → (B, H, capacity, Dh), the first L positions copied."""
    B, H, L, Dh = buffer.shape
    return torch.cat([buffer, buffer.new_empty(B, H, capacity - L, Dh)], dim=2)


class MultiHeadAttention(Module):
    """MultiHead(Q, K, V) = Concat(head_1, …, head_H) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        D = config.d_model
        self.n_heads = config.n_heads
        self.d_head = config.d_head
        # One D×D projection per role; its output is split into H heads of width Dh,
        # so each head has its own D×Dh slice (not one Dh×Dh matrix shared by all heads).
        self.w_q = Linear(D, D, bias=config.attn_bias)
        self.w_k = Linear(D, D, bias=config.attn_bias)
        self.w_v = Linear(D, D, bias=config.attn_bias)
        self.w_o = Linear(D, D, bias=config.attn_bias)
        self.dropout = Dropout(config.dropout)
        self.hook_q = HookPoint()  # (B, H, Tq, Dh)
        self.hook_k = HookPoint()  # (B, H, Tk, Dh)
        self.hook_v = HookPoint()  # (B, H, Tk, Dh)
        self.hook_mask = HookPoint()  # (B, 1, Tq, Tk) bool, True = may attend
        self.hook_scores = HookPoint()  # (B, H, Tq, Tk) after masking, before softmax
        self.hook_pattern = HookPoint()  # (B, H, Tq, Tk) softmax weights
        self.hook_z = HookPoint()  # (B, H, Tq, Dh) each head's weighted sum of values

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(B, L, D) → (B, H, L, Dh)"""
        B, L, _ = x.shape
        return x.view(B, L, self.n_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(B, H, L, Dh) → (B, L, D)"""
        B, H, L, Dh = x.shape
        return x.transpose(1, 2).reshape(B, L, H * Dh)

    def project_kv(self, source: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """K = source W^K, V = source W^V, split into heads: two (B, H, Tk, Dh)."""
        return self.split_heads(self.w_k(source)), self.split_heads(self.w_v(source))

    def forward(
        self,
        query: torch.Tensor,
        source: torch.Tensor | None,
        mask: torch.Tensor,
        cache: dict | None = None,
        cache_key: str = "",
        capacity: int = 0,
    ) -> torch.Tensor:
        """query (B, Tq, D) attends to source (B, Tk, D) where mask (B, 1, Tq, Tk) is True.

        A mask row of 1 serves every query.

        With a `cache` dict, keys/values are stored under `cache_key`: self-attention appends
        the new positions; cross-attention (source None) reuses the memory's K/V. A new cache
        reserves room for `capacity` positions (self-attention: max_len, so appending never copies).
        """
        B, Tq, _ = query.shape
        q = self.hook_q(self.split_heads(self.w_q(query)))  # (B, H, Tq, Dh)
        if source is None:  # cross-attention step: memory K/V computed on the first step
            k, v = cache[cache_key].keys(), cache[cache_key].values()
        else:
            k, v = self.project_kv(source)  # (B, H, Tk, Dh)
            if cache is not None and cache_key in cache:  # self-attention step: after the past positions
                k, v = cache[cache_key].append(k, v)
            elif cache is not None:
                cache[cache_key] = KeyValueCache(k, v, capacity)
        k, v = (
            self.hook_k(k, shared=cache is not None),
            self.hook_v(v, shared=cache is not None),
        )  # cached: views of the cache
        Tk = k.shape[2]
        mask = self.hook_mask(mask.expand(B, 1, Tq, Tk), shared=True)  # (B, 1, Tq, Tk), one mask for every layer
        blocked = ~mask

        scores = q @ k.transpose(-2, -1) / cpu_scalar(math.sqrt(self.d_head), q.dtype)  # (B, H, Tq, Tk), eq. (1)
        # Both masks are filled in place: the tensors are fresh, and a copy each would cost more than the fill.
        scores = self.hook_scores(scores.masked_fill_(blocked, torch.finfo(scores.dtype).min))
        pattern = torch.softmax(scores, dim=-1)  # (B, H, Tq, Tk)
        # (autograd keeps softmax's output for the backward pass, so there it is filled out of place)
        pattern = pattern.masked_fill(blocked, 0.0) if pattern.requires_grad else pattern.masked_fill_(blocked, 0.0)
        pattern = self.hook_pattern(pattern)
        z = self.hook_z(self.dropout(pattern) @ v)  # (B, H, Tq, Dh)
        return self.w_o(self.merge_heads(z))  # (B, Tq, D)
