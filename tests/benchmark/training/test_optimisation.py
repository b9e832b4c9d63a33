"""Parameter groups and the linear warm-up the harness builds from a model
(benchmark.training.optimisation, OrderingTask.configure_optimizers)."""

from functools import partial

import pytest
import torch
from torch import nn

from benchmark.training.optimisation import (
    linear_warmup,
    parameter_groups,
    warmup_factor,
    warmup_steps,
)
from benchmark.training.task import OrderingTask


class Encoder(nn.Module):
    def __init__(self, learning_rate=None, warmup=0):
        super().__init__()
        self.frozen = nn.Linear(3, 3).requires_grad_(False)
        self.top = nn.Linear(3, 3)
        self.learning_rate = learning_rate
        self.warmup_steps = warmup


class Net(nn.Module):
    def __init__(self, **encoder):
        super().__init__()
        self.encoder = Encoder(**encoder)
        self.head = nn.Linear(3, 1)


def test_warmup_factor_rises_linearly_then_stays():
    assert [warmup_factor(step, 4) for step in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert warmup_factor(0, 0) == 1.0


def test_linear_warmup_scales_every_group():
    net = Net(learning_rate=1e-4)
    optimizer = torch.optim.SGD(parameter_groups(net), lr=0.1)
    scheduler = linear_warmup(optimizer, 2)
    rates = []
    for _ in range(3):
        rates.append([group["lr"] for group in optimizer.param_groups])
        optimizer.step()
        scheduler.step()
    expected = [[0.5e-4, 0.05], [1e-4, 0.1], [1e-4, 0.1]]
    for got, want in zip(rates, expected, strict=True):
        assert got == pytest.approx(want)


def test_groups_split_the_trainable_parameters_once():
    net = Net(learning_rate=1e-4)
    encoder_group, rest = parameter_groups(net)
    assert encoder_group["lr"] == 1e-4 and "lr" not in rest
    assert {id(p) for p in encoder_group["params"]} == {id(p) for p in net.encoder.top.parameters()}
    assert {id(p) for p in rest["params"]} == {id(p) for p in net.head.parameters()}
    plain = Net()  # no module asks for a rate: exactly the parameters, frozen included
    assert [id(p) for p in parameter_groups(plain)] == [id(p) for p in plain.parameters()]


def test_task_builds_groups_and_a_per_step_warmup():
    net = Net(learning_rate=1e-4, warmup=10)
    assert warmup_steps(net) == 10
    task = OrderingTask(net, optimizer=partial(torch.optim.Adam, lr=1e-3))
    config = task.configure_optimizers()
    assert [g["lr"] for g in config["optimizer"].param_groups] == pytest.approx([1e-5, 1e-4])
    assert config["lr_scheduler"]["interval"] == "step"
    plain = OrderingTask(Net(), optimizer=partial(torch.optim.Adam, lr=1e-3))
    assert isinstance(plain.configure_optimizers(), torch.optim.Adam)
