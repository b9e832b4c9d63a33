"""Stop a training at its first non-finite loss or validation score.

A NaN or infinite training loss (a diverged optimiser, an infinite learning rate) makes
every later figure meaningless, and a NaN selection metric would let model selection keep
whichever checkpoint came first. `FiniteGuard` raises `NonFiniteError` naming the value,
the step and the epoch at the first such value; the run then fails (`failed.json`) instead
of finishing with plausible-looking figures. Under DDP every process takes the decision
together, so none waits forever on one that stopped.

The training losses are watched on their device: each batch's test is a tensor operation
that keeps the first non-finite loss and its batch, and the host reads that result only
every `trainer.log_every_n_steps` batches and at the end of each epoch (reading it at every
batch would make the host wait for the GPU at every step). A run that diverges thus stops
within those batches, and the error names the first non-finite loss's own step and epoch.
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
    """Raises NonFiniteError at the first non-finite training loss (read every
    `log_every_n_steps` batches and at each epoch's end) or `monitor` value."""

    def __init__(self, monitor: str | None = None) -> None:
        self.monitor = monitor
        self._first: torch.Tensor | None = None  # (batch number, loss) of the first bad one
        self._count: torch.Tensor | None = None
        self._batches = 0  # training batches seen
        self._where: dict[int, tuple[int, int, int]] = {}  # batch number -> step, epoch, index

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
        if isinstance(loss, torch.Tensor):
            loss = loss.detach().float().reshape(())
            self._batches += 1
            self._where[self._batches] = (trainer.global_step, trainer.current_epoch, batch_idx)
            if self._first is None:
                self._first = loss.new_full((2,), -1.0)
                self._count = loss.new_zeros(())  # batches, counted on the device
            self._count = self._count + 1
            seen = torch.stack([self._count, loss])
            first_bad = ~torch.isfinite(loss) & (self._first[0] < 0)
            self._first = torch.where(first_bad, seen, self._first)  # no host read
        elif loss is not None:
            self._check(trainer, "train/loss", loss, f"batch {batch_idx}")
        if self._batches % max(1, trainer.log_every_n_steps) == 0:
            self._check_losses(trainer)

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        self._check_losses(trainer)

    def _check_losses(self, trainer: pl.Trainer) -> None:
        """Read the first non-finite training loss kept so far (a host read)."""
        if self._first is None:
            return
        number, value = (float(item) for item in self._first.cpu())
        bad = number >= 0
        if trainer.world_size > 1:
            bad = trainer.strategy.reduce_boolean_decision(bad, all=False)
        if bad:
            step, epoch, index = self._where.get(int(number), (trainer.global_step,
                                                               trainer.current_epoch, -1))
            raise NonFiniteError(
                f"train/loss is {_describe(value) if number >= 0 else 'NaN'} at step {step}, "
                f"epoch {epoch + 1} (batch {index}): training stopped (check "
                "model.optimizer.lr and the data)"
            )  # fmt: skip
        self._where.clear()

    def on_validation_end(self, trainer, pl_module) -> None:
        if trainer.sanity_checking or self.monitor is None or not _fitting(trainer):
            return
        value = trainer.callback_metrics.get(self.monitor)
        if value is not None:
            self._check(trainer, self.monitor, value, "validation")
