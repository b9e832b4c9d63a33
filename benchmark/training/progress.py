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

import math
from pathlib import Path

import pytorch_lightning as pl
from pytorch_lightning.callbacks import EarlyStopping, Timer
from pytorch_lightning.callbacks.early_stopping import EarlyStoppingReason

from benchmark.training.checkpoint_file import load_checkpoint

MIN_STEPS_PER_EPOCH = 10  # fewer: a warning (`few_steps_warning`)
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


def steps_per_epoch(
    n_docs: int, batch_size: int, drop_last: bool = False, processes: int = 1,
    accumulate: int = 1,
) -> int:
    """Optimiser steps of one training epoch: `n_docs` documents in batches of `batch_size`
    (`data.sampler.BucketBatchSampler`), shared by `processes`, `accumulate` batches a step."""
    batches = n_docs // batch_size if drop_last else math.ceil(n_docs / batch_size)
    return math.ceil(math.ceil(batches / max(processes, 1)) / max(accumulate, 1))


def few_steps_warning(dataset: str, n_docs: int, batch_size: int, steps: int,
                      processes: int = 1, accumulate: int = 1) -> str | None:
    """The warning for an epoch of fewer than `MIN_STEPS_PER_EPOCH` optimiser steps, saying
    what to change; None when there are enough. With so few steps the model hardly moves
    between two validations, so early stopping and checkpoint selection judge noise."""
    if steps >= MIN_STEPS_PER_EPOCH:
        return None
    message = (
        f"dataset {dataset}: {n_docs:,} training documents at model.batch_size={batch_size} "
        f"give {steps} optimiser step{'s' if steps != 1 else ''} per epoch (fewer than "
        f"{MIN_STEPS_PER_EPOCH}), so early stopping and checkpoint selection compare models "
        "a few updates apart; "
    )
    fitting = n_docs // (MIN_STEPS_PER_EPOCH * max(processes, 1) * max(accumulate, 1))
    if fitting >= 1:
        return message + f"set model.batch_size={fitting} or lower, or train on more data"
    return message + "train on more data (even model.batch_size=1 gives fewer steps)"
