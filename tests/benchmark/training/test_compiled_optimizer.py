"""`compile: true`: the optimiser's update compiled, the closure eager, the same update."""

from functools import partial

import pytest
import torch

from benchmark.training import compiled_optimizer
from benchmark.training.task import OrderingTask
from tests.model_batches import random_batch, tiny_preset


def _adadelta_steps(compiled: bool, steps: int = 3):
    torch.manual_seed(0)
    net = tiny_preset("attordernet", seed=1).train()
    optimizer = torch.optim.Adadelta(net.parameters(), lr=1.0, weight_decay=1e-5)
    if compiled:
        compiled_optimizer.compile_update(optimizer)
    batch = random_batch(2, [3, 5, 2, 4])
    losses = []
    for _ in range(steps):

        def closure():
            optimizer.zero_grad()
            loss = net.loss(batch)
            loss.backward()
            return loss.detach()

        losses.append(float(optimizer.step(closure)))
    return losses, [p.detach().clone() for p in net.parameters()]


def test_the_closure_runs_eagerly_then_the_update(monkeypatch):
    calls = []
    monkeypatch.setattr(torch, "compile", lambda fn: (calls.append(fn), fn)[1])
    losses, params = _adadelta_steps(compiled=True)
    assert len(calls) == 1  # compiled once, the optimiser's own step
    expected_losses, expected = _adadelta_steps(compiled=False)
    assert losses == expected_losses
    for param, other in zip(params, expected, strict=True):
        assert torch.equal(param, other)


def test_the_task_compiles_only_without_a_changing_learning_rate(monkeypatch):
    compiled = []
    monkeypatch.setattr("benchmark.training.task.compile_update", compiled.append)
    net, sgd = tiny_preset("lstm_ptrnet"), partial(torch.optim.SGD, lr=0.1)
    OrderingTask(net, sgd, compile_step=True).configure_optimizers()
    assert len(compiled) == 1
    scheduler = partial(torch.optim.lr_scheduler.ExponentialLR, gamma=0.9)
    OrderingTask(net, sgd, scheduler, compile_step=True).configure_optimizers()
    assert len(compiled) == 1  # a schedule: the update stays eager
    OrderingTask(net, sgd).configure_optimizers()
    assert len(compiled) == 1  # off by default


@pytest.mark.slow
def test_the_compiled_update_equals_the_eager_one_to_rounding():
    losses, params = _adadelta_steps(compiled=True)
    expected_losses, expected = _adadelta_steps(compiled=False)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(expected_losses))
    for param, other in zip(params, expected, strict=True):
        torch.testing.assert_close(param, other, atol=1e-6, rtol=1e-5)
