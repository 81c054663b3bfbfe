"""Multi-head attention written out, so its weights can be watched (sec. 3.2).

Shape letters: B batch, H heads, Tq queries, Tk keys, D d_model, Dh d_head = D / H.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .config import TransformerConfig
from .hooks import HookPoint


def identity(x: torch.Tensor) -> torch.Tensor:
    return x


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor,
    dropout=identity,
    hook_scores=identity,
    hook_pattern=identity,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention, eq. (1): softmax(Q Kᵀ / √Dh) V; returns (output, weights).

    q (B, H, Tq, Dh) attends to k, v (B, H, Tk, Dh) where mask (B, 1, Tq, Tk) is True. The weights are taken
    before dropout; `hook_scores` sees the masked scores, `hook_pattern` the weights.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, Tq, Tk)
    scores = hook_scores(scores.masked_fill(~mask, torch.finfo(scores.dtype).min))  # a hidden key scores the minimum
    pattern = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)  # a fully masked row is all zeros
    pattern = hook_pattern(pattern)  # (B, H, Tq, Tk)
    return dropout(pattern) @ v, pattern  # (B, H, Tq, Dh), (B, H, Tq, Tk)


class KeyValueCache:
    """Keys and values of the positions seen so far, in (B, H, capacity, Dh) buffers filled from the left.

    Appending writes only the new positions (a torch.cat would copy all t of them at every step);
    keys()/values() are views of the filled part. The capacity doubles when a sequence outgrows it.
    """

    def __init__(self, k: torch.Tensor, v: torch.Tensor, capacity: int = 0):
        B, H, L, Dh = k.shape
        self.k = k.new_empty(B, H, max(capacity, L), Dh)
        self.v = v.new_empty(B, H, max(capacity, L), Dh)
        self.length = 0
        self.append(k, v)

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Add (B, H, Lnew, Dh) keys and values; return all of them so far, two (B, H, t, Dh)."""
        start, end = self.length, self.length + k.shape[2]
        if end > self.k.shape[2]:
            self.k, self.v = grown(self.k, max(end, 2 * self.k.shape[2])), grown(self.v, max(end, 2 * self.v.shape[2]))
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.length = end
        return self.keys(), self.values()

    def keys(self) -> torch.Tensor:
        return self.k[:, :, : self.length]  # (B, H, t, Dh)

    def values(self) -> torch.Tensor:
        return self.v[:, :, : self.length]  # (B, H, t, Dh)

    def reorder(self, index: torch.Tensor) -> None:
        """Keep batch rows `index` (beam search: follow the surviving hypotheses)."""
        self.k, self.v = self.k.index_select(0, index), self.v.index_select(0, index)


def grown(buffer: torch.Tensor, capacity: int) -> torch.Tensor:
    """(B, H, L, Dh) → (B, H, capacity, Dh), the first L positions copied."""
    B, H, L, Dh = buffer.shape
    return torch.cat([buffer, buffer.new_empty(B, H, capacity - L, Dh)], dim=2)


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, …, head_H) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        D = config.d_model
        self.n_heads = config.n_heads
        self.d_head = config.d_head
        # One D×D projection per role; its output is split into H heads of width Dh,
        # so each head has its own D×Dh slice (not one Dh×Dh matrix shared by all heads).
        self.w_q = nn.Linear(D, D, bias=config.attn_bias)
        self.w_k = nn.Linear(D, D, bias=config.attn_bias)
        self.w_v = nn.Linear(D, D, bias=config.attn_bias)
        self.w_o = nn.Linear(D, D, bias=config.attn_bias)
        self.dropout = nn.Dropout(config.dropout)  # on the attention weights
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

    def forward(
        self,
        query: torch.Tensor,
        source: torch.Tensor | None,
        mask: torch.Tensor,
        cache: dict | None = None,
        cache_key: str = "",
        capacity: int = 0,
    ) -> torch.Tensor:
        """query (B, Tq, D) attends to source (B, Tk, D) where mask (B, 1, Tq, Tk) is True; (B, Tq, D).

        A mask row of 1 serves every query. With a `cache` dict, keys and values are kept under `cache_key`
        (see keys_values).
        """
        B, Tq, _ = query.shape
        q = self.hook_q(self.split_heads(self.w_q(query)))  # (B, H, Tq, Dh)
        k, v = self.keys_values(source, cache, cache_key, capacity)  # (B, H, Tk, Dh)
        k, v = self.hook_k(k, shared=cache is not None), self.hook_v(v, shared=cache is not None)  # cached: views
        mask = self.hook_mask(mask.expand(B, 1, Tq, k.shape[2]), shared=True)  # (B, 1, Tq, Tk), one for every layer
        z, _ = attention(q, k, v, mask, self.dropout, self.hook_scores, self.hook_pattern)  # eq. (1)
        z = self.hook_z(z)  # (B, H, Tq, Dh) each head's weighted sum of values
        return self.w_o(self.merge_heads(z))  # (B, Tq, D)

    def keys_values(self, source, cache: dict | None, cache_key: str, capacity: int):
        """K = source W^K and V = source W^V, two (B, H, Tk, Dh), with the cached positions before them.

        Self-attention appends the new positions to the cache; cross-attention (source None) reuses the memory's
        K/V from the first step. A new cache reserves room for `capacity` positions (self-attention: max_len).
        """
        if source is None:  # cross-attention step: memory K/V computed on the first step
            return cache[cache_key].keys(), cache[cache_key].values()
        k, v = self.split_heads(self.w_k(source)), self.split_heads(self.w_v(source))  # (B, H, Tnew, Dh)
        if cache is None:
            return k, v
        if cache_key in cache:  # self-attention step: after the past positions
            return cache[cache_key].append(k, v)
        cache[cache_key] = KeyValueCache(k, v, capacity)
        return k, v
