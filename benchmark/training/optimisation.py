"""What the optimiser gets from a model: parameter groups with their own learning rates,
a linear warm-up of the learning rates, and on a GPU the update that reads nothing back.

A module of the model that sets `learning_rate` (a float; e.g. a fine-tuned pretrained
sentence encoder, `models.blocks.sentence_transformer_finetuned`) puts its trainable parameters
in a group of their own at that rate; every other trainable parameter keeps the
optimiser's configured rate (the usual recipe for fine-tuning a pretrained encoder under
freshly initialised layers: Devlin et al. 2019's small rate for the pretrained weights).
A module that sets `warmup_steps` > 0 makes every group's rate rise linearly from
rate/warmup_steps at the first optimiser step to the full rate at step `warmup_steps`,
then stay there (the warm-up of Vaswani et al. 2017 and BERT). A module that sets
`decay_epochs` makes every rate then fall linearly to zero at the end of that epoch and
stay there (BERT's linear schedule; the harness counts an epoch's optimiser steps). A
model with none of these gets exactly what it got before: `net.parameters()`, no schedule.

On a GPU the optimiser is made with PyTorch's fused update where it has one (Adam, AdamW,
SGD, Adagrad: one kernel for all parameters, its step counts kept on the device), else its
multi-tensor one (`foreach`: Adadelta, RMSprop, ...), unless the config sets either: the
per-parameter loop launches kernels per tensor (Adadelta over ATTOrderNet's parameters:
about 520 a step). On a CPU PyTorch's default loop stays: the multi-tensor Adadelta was
2.2x slower on this project's CPU (docs/performance.md), and the CPU runs keep their
figures; `compile: true` compiles the update there.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR


def parameter_groups(net: nn.Module) -> Iterable[nn.Parameter] | list[dict]:
    """-> `net.parameters()`, or [{params, lr} per module with a `learning_rate`, then
    {params} for the other trainable parameters] (frozen parameters left out)."""
    groups, claimed = [], set()
    for module in net.modules():
        rate = getattr(module, "learning_rate", None)
        if rate is None:
            continue
        params = [p for p in module.parameters() if p.requires_grad and id(p) not in claimed]
        claimed.update(id(p) for p in params)
        if params:
            groups.append({"params": params, "lr": float(rate)})
    if not groups:
        return net.parameters()
    rest = [p for p in net.parameters() if p.requires_grad and id(p) not in claimed]
    return groups + ([{"params": rest}] if rest else [])


def warmup_steps(net: nn.Module) -> int:
    """The largest `warmup_steps` any module of `net` asks for (0: no warm-up)."""
    return max((int(getattr(m, "warmup_steps", 0) or 0) for m in net.modules()), default=0)


def decay_epochs(net: nn.Module) -> int | None:
    """The epoch at whose end the rates reach zero (the smallest any module asks for), or
    None: no decay."""
    asked = [int(m.decay_epochs) for m in net.modules() if getattr(m, "decay_epochs", None)]
    return min(asked, default=None)


def warmup_factor(step: int, steps: int, decay_end: int | None = None) -> float:
    """Multiplier of the learning rate at optimiser step `step` (0-based): (step + 1) /
    steps during the warm-up, then 1, or with `decay_end` (the step count at which it
    reaches zero) falling linearly from 1 after the warm-up to 0 at `decay_end`."""
    if steps > 0 and step < steps:
        return (step + 1) / steps
    if decay_end is None:
        return 1.0
    return max(0.0, (decay_end - step) / max(1, decay_end - max(steps, 0)))


def linear_warmup(
    optimizer: torch.optim.Optimizer, steps: int, decay_end: int | None = None
) -> LambdaLR:
    """A per-step scheduler applying `warmup_factor` to every group of `optimizer`."""
    return LambdaLR(optimizer, lambda step: warmup_factor(step, steps, decay_end))


FUSED = ("Adam", "AdamW", "SGD", "Adagrad")  # torch.optim classes with a fused update


def sync_free(
    factory: Callable[..., torch.optim.Optimizer], params, device: torch.device
) -> torch.optim.Optimizer:
    """`factory(params)`, on a CUDA device with `fused=True` (`FUSED`) or `foreach=True`
    where the optimiser takes it and the config sets neither (module docstring)."""
    if device.type != "cuda":
        return factory(params)
    keywords = getattr(factory, "keywords", {}) or {}
    target = getattr(factory, "func", factory)
    if "fused" in keywords or "foreach" in keywords or not isinstance(target, type):
        return factory(params)
    takes = inspect.signature(target).parameters
    if target.__name__ in FUSED and "fused" in takes:
        return factory(params, fused=True)
    return factory(params, foreach=True) if "foreach" in takes else factory(params)
