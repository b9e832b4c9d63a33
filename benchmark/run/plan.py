"""What a launched run does with its run directory: skip, resume or start fresh.

- `metrics.json` holds the same config (`benchmark.config.identity.identity_config`):
  **skip**, once the record is trusted: its figures in range and its parts as sealed
  (`benchmark.records.seal.verify`), and the documents the config reads now those it was
  made on (`benchmark.run.run_data`; from the processed-data cache's digest where it has
  one). Otherwise a conflict naming the file and what differs; data that cannot be found
  leaves the skip to the record alone, with a warning.
- `checkpoints/last.ckpt` exists and `checkpoints/resume.json` (written when the training
  started) holds the same config: **resume** from the newest intact checkpoint (`last.ckpt`,
  written after every epoch, else `best.ckpt`), with the same W&B run id. A damaged file
  is passed over with a warning naming it (`benchmark.training.checkpoints`); with none intact
  the run starts afresh.
- Nothing of the run yet: **fresh** start, with a new W&B run id.
- `rerun=true` trains from scratch; when the directory holds a finished run, the new run
  works in `.rerun/` and replaces the old one only once it is complete
  (`benchmark.run.folder`); an interrupted rerun resumes there when relaunched with
  `rerun=true`.

The run directory's name carries the config id (`config_diff.config_id`), so a different
config finds a directory of its own; a finished record or a checkpoint whose config differs
all the same (a hand-copied folder) is a conflict, raised with the differing keys.
Planning only reads files (and the processed-data cache, built where a skip finds none), so
every process of a distributed run reaches the same plan.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path

from hydra.errors import InstantiationException
from omegaconf import DictConfig

from benchmark.config.identity import comparable_config, config_differences, identity_config
from benchmark.records.run_record import (
    BEST_CHECKPOINT,
    CHECKPOINT_DIR,
    RECORD_NAME,
    read_run_record,
)
from benchmark.records.seal import UntrustedRecordError, verify
from benchmark.run.folder import RERUN_DIR
from benchmark.run.run_data import build_datamodule, data_change, recorded_documents_sha256
from benchmark.training.checkpoint_file import DamagedCheckpointError
from benchmark.training.checkpoint_position import (
    CheckpointPosition,
    newest_intact_checkpoint,
    read_checkpoint_position,
)

LAST_CHECKPOINT = "last.ckpt"
RESUME_INFO = "resume.json"
_SHOWN_DIFFERENCES = 5
RETRAIN = "pass rerun=true to train the run again"

log = logging.getLogger(__name__)


class RunConflictError(RuntimeError):
    """The run directory holds results of a different config."""


@dataclass(frozen=True)
class RunPlan:
    action: str  # "skip" | "resume" | "fresh"
    config: dict  # the comparable config of this launch
    wandb_id: str  # W&B run id: kept across resumes, new for a fresh start
    work_dir: Path  # where the launch writes: the run directory, or its `.rerun/`
    ckpt_path: Path | None = None  # the checkpoint resumed from
    resume_from: CheckpointPosition | None = None  # its epoch and step


def _conflict(path: Path, old: dict, new: dict) -> RunConflictError | None:
    differences = config_differences(identity_config(old), identity_config(new))
    if not differences:
        return None
    shown = "; ".join(differences[:_SHOWN_DIFFERENCES])
    more = len(differences) - _SHOWN_DIFFERENCES
    return RunConflictError(
        f"{path} was made with another config ({shown}{f'; {more} more' if more > 0 else ''}), "
        "although the run directory's name says otherwise (was it copied by hand?). "
        "Launch it with the config it was made with, or pass `rerun=true` to replace it."
    )


def _finished_record(run_dir: Path) -> dict:
    """A run's `metrics.json`, with its config; a malformed record is a RunConflictError
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
    return record


def check_finished(run_dir: Path, record: dict, cfg: DictConfig) -> None:
    """RunConflictError when a finished run's record cannot be trusted (a figure out of
    its range, a part changed after it was sealed) or was made on other documents than
    `cfg` reads now; data that cannot be read here (not found) is warned of, not refused."""
    try:
        verify(run_dir, record)
    except UntrustedRecordError as error:
        raise RunConflictError(f"{error}; {RETRAIN}") from None
    if recorded_documents_sha256(record) is None:
        return  # a record made before identities: nothing to compare
    try:
        datamodule = build_datamodule(cfg)
        now = datamodule.documents_sha256()
        if data_change(run_dir, record, now):  # a cache's manifest may be what is wrong:
            datamodule.prepare_data()  # the documents read and checked say (data.cache)
            now = datamodule.documents_sha256()
    except (OSError, InstantiationException) as error:  # not found, or not readable here
        first = str(error).strip().splitlines()[0]
        log.warning("%s: the run's data cannot be read here (%s), so it is not checked",
                    run_dir, first)
        return
    except ValueError as error:  # DataFormatError, or a split left without documents
        raise RunConflictError(
            f"{error}: the run's data changed since it was made; restore it, or pass "
            "rerun=true to train on the new data"
        ) from None
    if change := data_change(run_dir, record, now):
        raise RunConflictError(f"{change}; pass rerun=true to train on the new data")


def finished_with(run_dir: Path, cfg: DictConfig) -> bool:
    """Whether `run_dir` holds a finished run of `cfg` (the **skip** of `plan_run`), read
    from `metrics.json` and checked (`check_finished`; no checkpoint is opened): the sweep
    launcher submits no job for such a run. A finished run of another config, or one that
    cannot be trusted, raises `RunConflictError`."""
    path = Path(run_dir) / RECORD_NAME
    if cfg.get("rerun", False) or not path.is_file():
        return False
    record = _finished_record(run_dir)
    conflict = _conflict(path, record["config"], cfg)
    if conflict:
        raise conflict
    check_finished(run_dir, record, cfg)
    return True


def plan_run(run_dir: Path, cfg: DictConfig) -> RunPlan:
    """Decide what a launch of `cfg` does in `run_dir` (see the module docstring)."""
    run_dir = Path(run_dir)
    config = comparable_config(cfg)
    if cfg.get("rerun", False):
        if not (run_dir / RECORD_NAME).is_file():
            return RunPlan("fresh", config, uuid.uuid4().hex[:16], run_dir)
        staging = run_dir / RERUN_DIR  # a finished run stays until its rerun is complete
        try:
            resumed = _resume_plan(staging, config)
        except RunConflictError:  # an unusable earlier rerun: replaced by a fresh one
            resumed = None
        return resumed or RunPlan("fresh", config, uuid.uuid4().hex[:16], staging)
    if finished_with(run_dir, cfg):
        return RunPlan("skip", config, "", run_dir)
    return _resume_plan(run_dir, config) or RunPlan(
        "fresh", config, uuid.uuid4().hex[:16], run_dir
    )


def _resume_plan(work_dir: Path, config: dict) -> RunPlan | None:
    """The plan that resumes the training in `work_dir`, None when it has no checkpoint or
    none is intact; a checkpoint of another config is a conflict."""
    last = work_dir / CHECKPOINT_DIR / LAST_CHECKPOINT
    if not last.is_file() and not (work_dir / CHECKPOINT_DIR / BEST_CHECKPOINT).is_file():
        return None
    info_path = work_dir / CHECKPOINT_DIR / RESUME_INFO
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
    folder = work_dir / CHECKPOINT_DIR
    position = newest_intact_checkpoint([folder / LAST_CHECKPOINT, folder / BEST_CHECKPOINT])
    if position is None:
        log.warning("%s: no intact checkpoint; training from scratch", folder)
        return None
    _check_best(folder / BEST_CHECKPOINT, position)
    if position.path != last:
        log.warning("resuming from %s (epoch %d) instead", position.path, position.epoch)
    return RunPlan("resume", config, wandb_id, work_dir, position.path, position)


def check_resumed_data(plan: RunPlan, documents_sha256: str) -> None:
    """RunConflictError when a resumed training would go on with other data than it began
    with (the same `dataset.path`, its files changed meanwhile)."""
    if plan.action != "resume":
        return
    info_path = plan.work_dir / CHECKPOINT_DIR / RESUME_INFO
    started = json.loads(info_path.read_text(encoding="utf-8")).get("documents_sha256")
    if started is not None and started != documents_sha256:
        raise RunConflictError(
            f"{info_path}: the run began on other data (documents sha256 {started[:12]}..., now "
            f"{documents_sha256[:12]}...): the dataset's files changed; pass `rerun=true` to "
            "train on the new data from scratch"
        )


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
