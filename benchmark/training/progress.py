"""How far a run trained and what ended its training, for the run record.

The budget of a run is `trainer.max_epochs` (or `max_steps`) with early stopping on
valid; a wall-clock limit (`trainer.max_time`, enforced by Lightning's `Timer`) is only
an explicit option. `training_progress` names what stopped the training, so that a
comparison can tell a converged run from one cut short:

- `early_stopping`: the `EarlyStopping` callback on the valid metric stopped it;
- `max_epochs` / `max_steps`: the budget was used up;
- `max_time`: the wall-clock limit ended it;
- `interrupted`: anything else ended it before its budget (Ctrl-C, a signal, a guard);
- `untrained`: the model has nothing to learn (`random`), `fit` was not run.
"""

from __future__ import annotations

from pathlib import Path

import pytorch_lightning as pl
from pytorch_lightning.callbacks import EarlyStopping, Timer
from pytorch_lightning.callbacks.early_stopping import EarlyStoppingReason

from benchmark.training.checkpoint_file import load_checkpoint

STOPPED_BY = ("early_stopping", "max_epochs", "max_steps", "max_time", "interrupted", "untrained")


def best_epoch(best_model_path: str | None) -> int | None:
    """The epoch (counted from 1) of the checkpoint selected on valid, None without one."""
    if not best_model_path or not Path(best_model_path).is_file():
        return None
    state = load_checkpoint(Path(best_model_path), mmap=True)
    return int(state["epoch"]) + 1  # Lightning stores the 0-based epoch of the save


def stopped_by(trainer: pl.Trainer, trained: bool) -> str:
    """What ended the training of `trainer.fit` (one of `STOPPED_BY`)."""
    if not trained:
        return "untrained"
    if trainer.interrupted:
        return "interrupted"
    callbacks = trainer.callbacks
    if any(
        isinstance(callback, EarlyStopping)
        and callback.stopping_reason != EarlyStoppingReason.NOT_STOPPED
        for callback in callbacks
    ):
        return "early_stopping"
    remaining = [c.time_remaining("train") for c in callbacks if isinstance(c, Timer)]
    if any(left is not None and left <= 0 for left in remaining):
        return "max_time"
    if trainer.max_steps not in (None, -1) and trainer.global_step >= trainer.max_steps:
        return "max_steps"
    if trainer.max_epochs is not None and trainer.current_epoch >= trainer.max_epochs:
        return "max_epochs"
    return "interrupted"


def training_progress(trainer: pl.Trainer, best_model_path: str | None, trained: bool) -> dict:
    """`{epochs, best_epoch, steps, stopped_by}` right after `trainer.fit`.

    `epochs` counts the completed training epochs (across resumes), `best_epoch` the
    epoch of the checkpoint selected on valid (1 = first; None when nothing was trained),
    `steps` the optimiser steps.
    """
    return {
        "epochs": int(trainer.current_epoch) if trained else 0,
        "best_epoch": best_epoch(best_model_path) if trained else None,
        "steps": int(trainer.global_step) if trained else 0,
        "stopped_by": stopped_by(trainer, trained),
    }
