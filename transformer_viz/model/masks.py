"""Attention masks as pure functions: boolean tensors where True means "may attend".

Every mask has a head axis of size 1 so it broadcasts over the H heads:
encoder self (B, 1, S, S), decoder self (B, 1, T, T), cross (B, 1, T, S).
"""

from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Keys that are real tokens: (B, L) ids → (B, 1, 1, L), False at <pad>."""
    return (ids != pad_id)[:, None, None, :]


def causal_mask(n_queries: int, n_keys: int | None = None, device: torch.device | str | None = None) -> torch.Tensor:
    """Query i may see keys j ≤ i + offset (sec. 3.2.3): (1, 1, Tq, Tk), offset = Tk − Tq.

    With Tq < Tk the queries are the last Tq positions, as in cached decoding.
    """
    n_keys = n_queries if n_keys is None else n_keys
    offset = n_keys - n_queries
    query_pos = torch.arange(n_queries, device=device)[:, None] + offset  # (Tq, 1)
    key_pos = torch.arange(n_keys, device=device)[None, :]  # (1, Tk)
    return (key_pos <= query_pos)[None, None]  # (1, 1, Tq, Tk)


def encoder_mask(src_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Encoder self-attention: every query sees every real source token. (B, 1, S, S)"""
    S = src_ids.shape[1]
    return padding_mask(src_ids, pad_id).expand(-1, -1, S, -1)  # (B, 1, S, S)


def decoder_mask(tgt_ids: torch.Tensor, pad_id: int, n_queries: int | None = None) -> torch.Tensor:
    """Decoder self-attention: causal AND the key is not target padding. (B, 1, Tq, T)

    `tgt_ids` are all target tokens so far (B, T); the queries are the last `n_queries` of them.
    """
    T = tgt_ids.shape[1]
    n_queries = T if n_queries is None else n_queries
    return causal_mask(n_queries, T, tgt_ids.device) & padding_mask(tgt_ids, pad_id)  # (B, 1, Tq, T)


def cross_mask(src_ids: torch.Tensor, n_queries: int, pad_id: int) -> torch.Tensor:
    """Cross-attention: each target query sees every real source token. (B, 1, Tq, S)"""
    return padding_mask(src_ids, pad_id).expand(-1, -1, n_queries, -1)  # (B, 1, Tq, S)
