"""What a launched run does with its run directory: skip, resume or start fresh.

- `metrics.json` holds the same resolved config (`benchmark.harness.config_diff`): **skip**.
- `checkpoints/last.ckpt` exists and `checkpoints/resume.json` (written when the training
  started) holds the same config: **resume** from the newest intact checkpoint (`last.ckpt`,
  written after every epoch, else `best.ckpt`), with the same W&B run id. A damaged file
  is passed over with a warning naming it (`benchmark.harness.checkpoint_io`); with none intact
  the run starts afresh.
- Nothing of the run yet: **fresh** start, with a new W&B run id.

A finished record or a checkpoint made with another config is a conflict, raised with
the differing keys: give the new config its own `variant`, or pass `rerun=true` to train
it from scratch in place (the old files are replaced as the new run writes them).
Planning only reads files, so every process of a distributed run reaches the same plan.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytorch_lightning as pl
from omegaconf import DictConfig

from benchmark.harness.checkpoint_io import (
    CheckpointPosition,
    DamagedCheckpointError,
    newest_intact_checkpoint,
    read_checkpoint_position,
)
from benchmark.harness.config_diff import comparable_config, config_differences
from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.run_record import RECORD_NAME, read_run_record

CHECKPOINT_DIR = "checkpoints"
LAST_CHECKPOINT = "last.ckpt"
BEST_CHECKPOINT = "best.ckpt"
RESUME_INFO = "resume.json"
_SHOWN_DIFFERENCES = 5

log = logging.getLogger(__name__)


class RunConflictError(RuntimeError):
    """The run directory holds results of a different config."""


@dataclass(frozen=True)
class RunPlan:
    action: str  # "skip" | "resume" | "fresh"
    config: dict  # the comparable config of this launch
    wandb_id: str  # W&B run id: kept across resumes, new for a fresh start
    ckpt_path: Path | None = None  # the checkpoint resumed from
    resume_from: CheckpointPosition | None = None  # its epoch and step


def _conflict(path: Path, old: dict, new: dict) -> RunConflictError | None:
    differences = config_differences(comparable_config(old), new)
    if not differences:
        return None
    shown = "; ".join(differences[:_SHOWN_DIFFERENCES])
    more = len(differences) - _SHOWN_DIFFERENCES
    return RunConflictError(
        f"{path} was made with another config ({shown}{f'; {more} more' if more > 0 else ''}). "
        "Give this config its own `variant=...`, or pass `rerun=true` to train it again "
        "from scratch in this run directory."
    )


def _recorded_config(run_dir: Path) -> dict:
    """The config in a run's `metrics.json`; a malformed record is a RunConflictError
    naming it and what to do."""
    path = Path(run_dir) / RECORD_NAME
    remedy = ("delete it to run again (resumed from the checkpoints, if any), or pass "
              "rerun=true to train from scratch")
    try:
        record = read_run_record(run_dir)
    except (OSError, ValueError) as error:
        raise RunConflictError(f"{error}; {remedy}") from None
    if not isinstance(record, dict) or not isinstance(record.get("config"), dict):
        raise RunConflictError(f"{path}: not a run record (no config); {remedy}")
    return record["config"]


def finished_with(run_dir: Path, cfg: DictConfig) -> bool:
    """Whether `run_dir` holds a finished run of `cfg` (the **skip** of `plan_run`), read
    from `metrics.json` alone (no checkpoint is opened): the sweep launcher submits no job
    for such a run. A finished run of another config raises `RunConflictError`."""
    record = Path(run_dir) / RECORD_NAME
    if cfg.get("rerun", False) or not record.is_file():
        return False
    conflict = _conflict(record, _recorded_config(run_dir), comparable_config(cfg))
    if conflict:
        raise conflict
    return True


def plan_run(run_dir: Path, cfg: DictConfig) -> RunPlan:
    """Decide what a launch of `cfg` does in `run_dir` (see the module docstring);
    `rerun=true` in `cfg` always starts fresh."""
    run_dir = Path(run_dir)
    config = comparable_config(cfg)
    fresh = RunPlan("fresh", config, uuid.uuid4().hex[:16])
    if cfg.get("rerun", False):
        return fresh
    if finished_with(run_dir, cfg):
        return RunPlan("skip", config, "")
    last = run_dir / CHECKPOINT_DIR / LAST_CHECKPOINT
    if not last.is_file() and not (run_dir / CHECKPOINT_DIR / BEST_CHECKPOINT).is_file():
        return fresh
    info_path = run_dir / CHECKPOINT_DIR / RESUME_INFO
    if not info_path.is_file():
        raise RunConflictError(
            f"{last} has no {RESUME_INFO} beside it, so its config is unknown; "
            "pass `rerun=true` to train from scratch, or delete the checkpoint."
        )
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
        old_config, wandb_id = info["config"], info["wandb_id"]
    except (ValueError, KeyError, TypeError) as error:
        raise RunConflictError(
            f"{info_path}: unreadable ({error}); pass `rerun=true` to train from scratch"
        ) from None
    conflict = _conflict(last, old_config, config)
    if conflict:
        raise conflict
    folder = run_dir / CHECKPOINT_DIR
    position = newest_intact_checkpoint([folder / LAST_CHECKPOINT, folder / BEST_CHECKPOINT])
    if position is None:
        log.warning("%s: no intact checkpoint; training from scratch", folder)
        return fresh
    _check_best(folder / BEST_CHECKPOINT, position)
    if position.path != last:
        log.warning("resuming from %s (epoch %d) instead", position.path, position.epoch)
    return RunPlan("resume", config, wandb_id, position.path, position)


def _check_best(best: Path, position: CheckpointPosition) -> None:
    """A RunConflictError naming `best.ckpt` when it is there but damaged while the run
    resumes from another checkpoint: the model selected on valid is lost, and the test at
    the end of the run would fail on it."""
    if position.path == best or not best.is_file():
        return
    try:
        read_checkpoint_position(best)
    except DamagedCheckpointError as error:
        raise RunConflictError(
            f"{error}: the model selected on valid is lost; pass rerun=true to train the run "
            "again"
        ) from None


class ResumeInfo(pl.Callback):
    """When a fresh training starts (global-zero process, before any checkpoint exists):
    writes `checkpoints/resume.json` with its config and W&B id, and removes the record of
    the run it replaces (`rerun=true`), so that an interruption from here on resumes."""

    def __init__(self, run_dir: Path, plan: RunPlan) -> None:
        self.run_dir = Path(run_dir)
        self.plan = plan

    def on_fit_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.plan.action != "fresh" or not trainer.is_global_zero:
            return
        (self.run_dir / RECORD_NAME).unlink(missing_ok=True)
        info = {"config": self.plan.config, "wandb_id": self.plan.wandb_id}
        atomic_write_text(
            self.run_dir / CHECKPOINT_DIR / RESUME_INFO,
            json.dumps(info, indent=2, sort_keys=True) + "\n",
        )
