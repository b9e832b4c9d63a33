"""Host synchronisations (benchmark/bench/host_syncs.py): the counter finds each kind, and
no training step of any preset has one, on the CPU's length buckets or in one call (a GPU,
a compiled step); the compiler breaks the step's graph at an nn.LSTM only
(models/blocks/eager_lstm.py). Tiny presets, one or two steps each."""

from __future__ import annotations

import pytest
import torch

from benchmark.bench.compile import host_resident, lstm_break
from benchmark.bench.host_syncs import HostSyncs
from benchmark.bench.training import train_step
from benchmark.training.cuda_graphs import CompiledLoss
from models.batch import prepare_batch
from models.blocks.length_buckets import length_buckets
from models.registry import presets
from tests.model_batches import random_batch

TRAINED = {name: preset.tiny for name, preset in presets().items() if preset.trainable}
SIZES = [3, 7, 1, 5, 2]


def test_the_counter_finds_each_kind_of_sync_and_counts_operators():
    values = torch.arange(6.0)
    with HostSyncs() as syncs:
        values.sum().item()
        bool(values[0] > 1)
        values.nonzero()
        values[values > 2]
        values.tolist()
        values.cpu()
        torch.unique(values)
        torch.equal(values, values)
        values.sum(dim=0)  # no sync
    kinds = {key.split(" @ ")[0] for key in syncs.found}
    assert kinds == {"_local_scalar_dense.default", "nonzero.default", "index.Tensor",
                     "Tensor.tolist", "Tensor.cpu", "_unique2.default", "equal.default"}
    assert syncs.count == 8 and syncs.operators >= 10
    with HostSyncs() as syncs:  # the suite's code: its host data copied to the device
        length_buckets(torch.tensor([3, 1, 3]), 1.0)
    assert any(key.startswith("torch.tensor @ models/blocks/length_buckets.py:")
               for key in syncs.found)  # fmt: skip


def test_a_value_that_lives_on_the_host_is_no_sync():
    step = torch.tensor(3.0)
    with HostSyncs(host=[step]) as syncs:
        step.item()
    assert syncs.count == 0


def _model(name: str, seed: int = 0):
    torch.manual_seed(seed)
    return presets()[name].build(vocab_size=30, **TRAINED[name]).train()


@pytest.mark.parametrize("buckets", [True, False], ids=["cpu_buckets", "one_call"])
@pytest.mark.parametrize("name", TRAINED)
def test_a_training_step_reads_nothing_back(name, buckets):
    """The batch prepared on the host as the harness prepares it (length buckets on a CPU,
    or none), a step (the loss, backward, clipping, AdamW's update) synchronises nothing."""
    model = _model(name)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batches = [prepare_batch(model, random_batch(seed, SIZES), buckets) for seed in (1, 2)]
    train_step(model.loss, model, optimizer, batches[0], clip=1.0)  # the optimiser's state
    with HostSyncs(host=host_resident(optimizer)) as syncs:
        train_step(model.loss, model, optimizer, batches[1], clip=1.0)
    assert syncs.found == {}


@pytest.mark.parametrize("name", TRAINED)
def test_the_compiled_step_breaks_only_at_an_lstm(name):
    """`torch._dynamo.explain` of the loss on a batch prepared for a compiled step: every
    graph break is at an nn.LSTM, which PyTorch does not trace."""
    model = _model(name)
    batch = CompiledLoss(model, "cpu", cuda_graphs=True).prepare(random_batch(3, SIZES))
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model.loss)(batch)
    reasons = [reason.reason for reason in explained.break_reasons]
    assert [reason.splitlines()[0] for reason in reasons if not lstm_break(reason)] == []
