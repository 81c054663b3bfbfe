"""Masks are pure boolean functions, True = may attend, with a head axis of size 1."""

from __future__ import annotations

import torch

from transformer_viz.model.masks import causal_mask, cross_mask, decoder_mask, encoder_mask, padding_mask

PAD = 0


def as_bool(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.bool)


def test_padding_mask_is_false_at_pad_keys():
    ids = torch.tensor([[5, 6, 7], [5, 6, PAD]])
    mask = padding_mask(ids, PAD)
    assert mask.dtype == torch.bool and mask.shape == (2, 1, 1, 3)  # (B, 1, 1, L)
    assert torch.equal(mask[:, 0, 0], as_bool([[1, 1, 1], [1, 1, 0]]))


def test_padding_mask_uses_the_given_pad_id():
    assert torch.equal(padding_mask(torch.tensor([[0, 9, 4]]), pad_id=9)[0, 0, 0], as_bool([1, 0, 1]))


def test_causal_mask_is_lower_triangular():
    mask = causal_mask(3)
    assert mask.dtype == torch.bool and mask.shape == (1, 1, 3, 3)
    assert torch.equal(mask[0, 0], as_bool([[1, 0, 0], [1, 1, 0], [1, 1, 1]]))


def test_causal_mask_with_fewer_queries_than_keys_is_offset():
    # Cached decoding: the 2 new queries are positions 2 and 3 of 4 keys.
    mask = causal_mask(2, 4)
    assert mask.shape == (1, 1, 2, 4)
    assert torch.equal(mask[0, 0], as_bool([[1, 1, 1, 0], [1, 1, 1, 1]]))
    # One new query (the usual decoding step) sees every key so far.
    assert torch.equal(causal_mask(1, 5)[0, 0], as_bool([[1, 1, 1, 1, 1]]))


def test_encoder_mask_hides_source_padding_from_every_query():
    src = torch.tensor([[5, 6, PAD], [7, 8, 9]])
    mask = encoder_mask(src, PAD)
    assert mask.shape == (2, 1, 3, 3)  # (B, 1, S, S)
    assert torch.equal(mask[0, 0], as_bool([[1, 1, 0]] * 3))
    assert torch.equal(mask[1, 0], as_bool([[1, 1, 1]] * 3))


def test_decoder_mask_is_causal_and_hides_target_padding():
    # Seed 004 bug 3: a causal-only target mask lets queries attend to <pad> keys.
    tgt = torch.tensor([[2, 5, PAD, PAD], [2, 5, 6, 7]])
    mask = decoder_mask(tgt, PAD)
    assert mask.dtype == torch.bool and mask.shape == (2, 1, 4, 4)  # (B, 1, T, T)
    assert torch.equal(mask[0, 0], as_bool([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]]))
    assert torch.equal(mask[1, 0], as_bool([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]))


def test_decoder_mask_for_the_last_queries_of_a_cache():
    tgt = torch.tensor([[2, 5, PAD, 6], [2, 5, 6, 7]])
    mask = decoder_mask(tgt, PAD, n_queries=2)
    assert mask.shape == (2, 1, 2, 4)  # (B, 1, Tnew, T)
    assert torch.equal(mask[0, 0], as_bool([[1, 1, 0, 0], [1, 1, 0, 1]]))
    assert torch.equal(mask[1, 0], as_bool([[1, 1, 1, 0], [1, 1, 1, 1]]))
    # The last rows of the full mask: caching does not change what a query sees.
    assert torch.equal(mask, decoder_mask(tgt, PAD)[:, :, 2:])


def test_cross_mask_hides_source_padding_from_every_target_query():
    src = torch.tensor([[5, PAD, PAD], [5, 6, 7]])
    mask = cross_mask(src, n_queries=2, pad_id=PAD)
    assert mask.dtype == torch.bool and mask.shape == (2, 1, 2, 3)  # (B, 1, T, S)
    assert torch.equal(mask[0, 0], as_bool([[1, 0, 0]] * 2))
    assert torch.equal(mask[1, 0], as_bool([[1, 1, 1]] * 2))


def test_masks_do_not_modify_their_input():
    ids = torch.tensor([[2, 5, PAD]])
    before = ids.clone()
    for mask in (padding_mask(ids, PAD), encoder_mask(ids, PAD), decoder_mask(ids, PAD), cross_mask(ids, 2, PAD)):
        assert mask.dtype == torch.bool
    assert torch.equal(ids, before)


def test_masks_live_on_the_input_device():
    # Nothing is hard-coded to one backend (seed 004 bug 5): "meta" tensors have no data at all.
    ids = torch.zeros(2, 5, dtype=torch.long, device="meta")
    for mask in (padding_mask(ids, PAD), encoder_mask(ids, PAD), decoder_mask(ids, PAD), cross_mask(ids, 3, PAD)):
        assert mask.device.type == "meta"
    assert causal_mask(3, 4, device="meta").device.type == "meta"
    assert decoder_mask(ids, PAD, n_queries=1).shape == (2, 1, 1, 5)
