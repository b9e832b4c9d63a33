"""Stop a training at its first non-finite loss or validation score.

A NaN or infinite training loss (a diverged optimiser, an infinite learning rate) makes
every later figure meaningless, and a NaN selection metric would let model selection keep
whichever checkpoint came first. `FiniteGuard` raises `NonFiniteError` naming the value,
the step and the epoch at the first such value; the run then fails (`failed.json`) instead
of finishing with plausible-looking figures. Under DDP every process takes the decision
together, so none waits forever on one that stopped.
"""

from __future__ import annotations

import math

import pytorch_lightning as pl
import torch
from pytorch_lightning.trainer.states import TrainerFn


class NonFiniteError(FloatingPointError):
    """A loss or score that is NaN or infinite."""


def _describe(value: float) -> str:
    return "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _fitting(trainer: pl.Trainer) -> bool:
    return trainer.state.fn == TrainerFn.FITTING


class FiniteGuard(pl.Callback):
    """Raises NonFiniteError at the first non-finite training loss or `monitor` value."""

    def __init__(self, monitor: str | None = None) -> None:
        self.monitor = monitor

    def _check(self, trainer: pl.Trainer, name: str, value, where: str) -> None:
        value = float(value.detach().float().cpu()) if isinstance(value, torch.Tensor) else value
        bad = value is not None and not math.isfinite(value)
        if trainer.world_size > 1:
            bad = trainer.strategy.reduce_boolean_decision(bad, all=False)
        if bad:
            shown = _describe(value) if value is not None and not math.isfinite(value) else "NaN"
            epoch = trainer.current_epoch + 1  # counted from 1 (docs/design.md, section 8)
            raise NonFiniteError(
                f"{name} is {shown} at step {trainer.global_step}, epoch {epoch}"
                f" ({where}): training stopped (check model.optimizer.lr and the data)"
            )

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if loss is not None:
            self._check(trainer, "train/loss", loss, f"batch {batch_idx}")

    def on_validation_end(self, trainer, pl_module) -> None:
        if trainer.sanity_checking or self.monitor is None or not _fitting(trainer):
            return
        value = trainer.callback_metrics.get(self.monitor)
        if value is not None:
            self._check(trainer, self.monitor, value, "validation")
