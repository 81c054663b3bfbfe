"""The training step that keeps a GPU busy gives the same results: batches made by indexing, the loss read back once
per logging interval, the FLOPs count behind the MFU."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_train import assert_same_weights, final_state, options, write_fake_ding
from transformer_viz.model.config import TransformerConfig
from transformer_viz.model.transformer import Transformer
from transformer_viz.training import train as train_module
from transformer_viz.training.batches import PackedExamples
from transformer_viz.training.state import TrainState
from transformer_viz.training.throughput import mfu, peak_flops, train_flops_per_target_token
from transformer_viz.training.train import METRICS_NAME, collate, train

PAD, BOS, EOS = 0, 2, 3
pieces = st.lists(st.integers(4, 99), min_size=0, max_size=12).map(lambda ids: [*ids, EOS])
examples = st.lists(st.tuples(pieces, pieces), min_size=1, max_size=20)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_fake_ding(tmp_path_factory.mktemp("ding") / "de-en")


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory):
    """test_train's tiny run, made with the packed batches."""
    return train(options(corpus, tmp_path_factory.mktemp("train") / "run"))


@settings(max_examples=200, deadline=None)
@given(examples=examples, data=st.data())
def test_packed_batches_are_what_collate_makes(examples, data):
    """Any batch of any examples, in any order (repeats too): the same three tensors, and the host's token count."""
    packed = PackedExamples.pack(examples)
    batch = data.draw(st.lists(st.integers(0, len(examples) - 1), min_size=1, max_size=10))
    expected = collate([examples[i] for i in batch], PAD, BOS)
    got = packed.batch(batch, PAD, BOS)
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype == torch.long and torch.equal(a, b)
    assert packed.target_tokens(batch) == int((expected[2] != PAD).sum())


def test_the_loop_trains_as_it_did_with_collate(trained, corpus, tmp_path, monkeypatch):
    """The run of the `trained` fixture again, its batches made by collate, one tensor per example, as before
    PackedExamples: bit for bit the same weights and the same logged losses."""

    def collated(self, indices, pad, bos):
        return collate([(self.src[s : s + m].tolist(), self.tgt[t : t + n].tolist()) for s, m, t, n in zip(
            self.src_start[indices], self.src_len[indices], self.tgt_start[indices], self.tgt_len[indices]
        )], pad, bos)  # fmt: skip

    monkeypatch.setattr(PackedExamples, "batch", collated)
    again = train(options(corpus, tmp_path / "collated"))
    assert_same_weights(final_state(again), final_state(trained))
    losses = [[row["train_loss"] for row in metrics(run)] for run in (again, trained)]
    assert len(losses[0]) == 3 and losses[0] == losses[1]


def metrics(run) -> list[dict]:
    return [json.loads(line) for line in (run / METRICS_NAME).read_text().splitlines()]


def test_the_loss_is_read_from_the_device_once_per_logging_interval(corpus, tmp_path, monkeypatch):
    read = TrainState.read_losses
    pending_at_reads = []

    def counted(self):
        pending_at_reads.append(len(self.pending))
        return read(self)

    monkeypatch.setattr(TrainState, "read_losses", counted)
    train(options(corpus, tmp_path / "run", max_steps=30, valid_every=15))
    assert train_module.Progress.LOG_EVERY == 10
    # the bar reads at steps 10, 20 and 30, a validation at 15 (and at 30, when nothing is left to read)
    assert [n for n in pending_at_reads if n] == [10, 5, 5, 10]


def test_read_losses_smooths_in_order_as_one_read_a_step_did():
    values = [2.5, 2.25, 2.0, 1.75, math.pi]
    state, one_by_one = TrainState(), math.nan
    for value in values:
        state.pending.append(torch.tensor(value))
        one_by_one = value if math.isnan(one_by_one) else 0.98 * one_by_one + 0.02 * float(torch.tensor(value))
    assert state.read_losses() == one_by_one and state.pending == []
    assert state.read_losses() == one_by_one  # nothing pending: the same value, no read


@pytest.mark.parametrize("preset", ["seed000", "seed004"])
def test_the_flops_count_is_six_per_weight_matrix_entry_per_token(preset):
    """The formula against the model itself: its layers' weight matrices, and the output projection D × V."""
    config = TransformerConfig.preset(preset, src_vocab_size=50, tgt_vocab_size=50, d_model=16, n_heads=2,
                                      n_layers=2, d_ff=24)  # fmt: skip
    model = Transformer(config)
    matrices = lambda layers: sum(p.numel() for p in layers.parameters() if p.dim() == 2)  # noqa: E731
    encoder, decoder = matrices(model.encoder.layers), matrices(model.decoder.layers)
    output = config.d_model * config.tgt_vocab_size
    for ratio in (0.5, 1.0, 1.3):
        assert train_flops_per_target_token(config, ratio) == pytest.approx(6 * (decoder + output + encoder * ratio))


def test_mfu_is_the_share_of_the_peak_and_unknown_without_one():
    assert mfu(1000.0, 2e9, 4e12) == pytest.approx(0.5)
    assert mfu(1000.0, 2e9, None) is None
    assert peak_flops(torch.device("cpu"), bf16=True) is None  # no peak is claimed for a CPU
    assert np.isclose(mfu(2e6, 6 * 7.6e6, 989e12), 2e6 * 6 * 7.6e6 / 989e12)
