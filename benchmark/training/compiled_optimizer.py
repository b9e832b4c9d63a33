"""The optimiser's update compiled with `torch.compile` (config key `compile`, off by
default).

`torch.optim` runs an update as one small kernel per operation and parameter tensor;
Adadelta over ATTOrderNet's 8.2 M parameters makes about ten passes over memory per step
(12% of a training step at the published size on one CPU thread). Compiled, the update
is fused into one loop per parameter (docs/performance.md, "Training at the published
sizes"). The closure (forward and backward, gradient clipping) still runs eagerly; only
the update is compiled. Off by default: the fused arithmetic rounds differently from the
eager update (differences of the order of 1e-7), so a seed's trajectory is not the eager
one's; the first step compiles (seconds; on the CPU a C++ compiler is needed); and a
learning rate that changes between steps (a schedule or warm-up) would recompile, so
such runs stay eager.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import torch

log = logging.getLogger(__name__)


def compile_update(optimizer: torch.optim.Optimizer) -> torch.optim.Optimizer:
    """`optimizer` whose `step(closure)` runs the closure eagerly, then the compiled
    update (the optimiser's own `step` without a closure)."""
    update = torch.compile(optimizer.step)

    def step(closure: Callable[[], object] | None = None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        update()
        return loss

    optimizer.step = step
    return optimizer
