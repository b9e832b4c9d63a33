"""The second stage: training (resumed from `last.ckpt` where the plan says so) and the
checkpoint selected on valid.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from pytorch_lightning.callbacks import ModelCheckpoint

from benchmark.run.plan import CHECKPOINT_DIR, RunPlan
from benchmark.run.spec import RunSpec
from benchmark.run.stages.build import BuiltRun
from benchmark.training.progress import training_progress
from benchmark.training.resources import epoch_costs

log = logging.getLogger(__name__)


@dataclass
class FittedRun:
    """What `fit` leaves: the selected checkpoint and how the training went."""

    best: Path | None  # the checkpoint selected on valid (None: nothing was trained)
    train_seconds: float  # across resumes
    progress: dict  # epochs, best_epoch, steps, stopped_by (benchmark.training.progress)
    cpu_seconds_per_epoch: list[float]  # benchmark.training.resources
    threads_per_epoch: list[int | None]
    precision_per_epoch: list[str | None]


def fit(spec: RunSpec, built: BuiltRun, plan: RunPlan) -> FittedRun:
    """Train (unless the model has nothing to learn; from `plan.ckpt_path` when resuming)
    and select on valid."""
    trainable = spec.preset.trainable
    if trainable:
        if plan.ckpt_path is not None:
            position = plan.resume_from
            after = f" (after epoch {position.epoch + 1})" if position is not None else ""
            log.info("resuming from %s%s", plan.ckpt_path, after)
        built.trainer.fit(
            built.task, datamodule=built.datamodule, ckpt_path=plan.ckpt_path, weights_only=True
        )
    train_seconds = built.timer.time_elapsed("train")  # includes the sessions before a resume
    best = own_best_checkpoint(built.checkpoint, plan.work_dir) if trainable else None
    progress = training_progress(built.trainer, best and str(best), trainable)
    built.task.selected_epoch = progress["best_epoch"] or 0  # figures logged at that epoch
    return FittedRun(best, train_seconds, progress, *epoch_costs(built.trainer))


def own_best_checkpoint(checkpoint: ModelCheckpoint, work_dir: Path) -> Path | None:
    """The checkpoint selected on valid, which must be this run's own file
    (`work_dir/checkpoints/best.ckpt`); None when training saved none."""
    if not checkpoint.best_model_path:
        return None
    best = Path(checkpoint.best_model_path)
    if best.parent.resolve() != (work_dir / CHECKPOINT_DIR).resolve():
        raise RuntimeError(f"{best}: the selected checkpoint is not in the run's own folder")
    return best
