"""Train one ordering model on one dataset and score it: `python -m benchmark.train`
(or `orderbench train`).

A Hydra app (configs in `conf/`): `launch_run` checks the config, takes the run
directory's lock, plans the run (skip, resume or fresh; `benchmark.run.plan`) and runs it
(`benchmark.run.stages`); `failure_policy` is the one place its failures and exit statuses
are handled. The run directory receives the best checkpoint (selected on
valid), `predictions.jsonl` for the test split, the CSV/W&B logs, Hydra's `.hydra/` and,
last and atomically, `metrics.json` (docs/design.md, sections 3 and 5). With
`dataset.noise` the model is wrapped with an END candidate (`benchmark.run.model_builder`)
and order discrimination is skipped.

The console gets a line on the data and the model, one line per epoch, warnings, and a
closing summary (test figures, their intervals, the random baseline on the same
permutations, the run folder), then the test figures as one line of JSON, the last line of
stdout; `verbose=true` or `ORDERBENCH_VERBOSE=1` adds the libraries' own output
(`benchmark.training.console`).
"""

from __future__ import annotations

import sys

if __name__ == "__main__":  # bad input is refused before the training code is imported
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):  # the groups, without composing
        from benchmark.train_help import train_help

        print(train_help())
        sys.exit(0)
    from benchmark.config.prelaunch import UnwritableRunsError, launch_refusal

    if refusal := launch_refusal(sys.argv[1:]):  # before Hydra creates the run folder
        from benchmark.cli_arguments import error_lines

        print(error_lines(refusal), file=sys.stderr)  # bad input: 2, a read-only folder: 1
        sys.exit(1 if isinstance(refusal, UnwritableRunsError) else 2)

import logging
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import hydra
from hydra import compose
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from benchmark.cli_arguments import error_lines
from benchmark.config.checks import ConfigError, check_config, searchpath_overrides
from benchmark.config.resolvers import register_resolvers
from benchmark.records.atomic_io import FileWriteError
from benchmark.records.failure import clear_failure, write_failure, write_interruption
from benchmark.records.json_values import dumps
from benchmark.records.run_record import RECORD_NAME, read_run_record
from benchmark.records.seal import UNSEALED, is_sealed
from benchmark.run.finished_run import damaged_checkpoint
from benchmark.run.folder import (
    accept_launch,
    close_run_log,
    commit_rerun,
    finish_pending_rerun,
    remove_dead_rerun,
    remove_if_created,
)
from benchmark.run.interruption import RunInterrupted, as_interruption, interruption_signals
from benchmark.run.lock import (
    ReadOnlyRunError,
    RunLock,
    RunLockedError,
    process_rank,
    take_run_lock,
)
from benchmark.run.plan import (
    RunConflictError,
    plan_run,
)
from benchmark.run.processes import prepare_processes, submitit_job, submitit_logs
from benchmark.run.stages import run
from benchmark.training.checkpoints import (
    CheckpointWriteError,
)
from benchmark.training.console import is_verbose, quiet_libraries, summary_lines, uses_wandb
from benchmark.training.finite_guard import NonFiniteError
from benchmark.training.loggers import finish_wandb
from data.cache import DamagedCacheError
from data.errors import DataFormatError
from data.readers.sources import DatasetNotFoundError

log = logging.getLogger(__name__)
# errors whose message says all (the key, file:line or run directory): one line, no traceback
ONE_LINE_ERRORS = (
    CheckpointWriteError, ConfigError, DamagedCacheError, DataFormatError, DatasetNotFoundError,
    FileWriteError, NonFiniteError, ReadOnlyRunError, RunConflictError, RunLockedError,
)
# bad settings or input data, refused before any training: exit status 2 (the others 1)
BAD_INPUT_ERRORS = (ConfigError, DataFormatError, DatasetNotFoundError)


register_resolvers()


@dataclass(frozen=True)
class Launch:
    """One launch as Hydra made it, read once: its run directory, whether it is a job of a
    multirun, whether Hydra has just created the folder (an empty one), the logs a failure
    record points to, and Hydra's own config (written beside the run once it is accepted)."""

    hydra: DictConfig
    run_dir: Path
    multirun: bool
    new_folder: bool
    logs: tuple[Path, ...]
    overrides: tuple[str, ...]  # as typed, with the config search path's
    choices: tuple[str, ...]  # the config groups the run chose (hydra.runtime.choices)

    @classmethod
    def from_hydra(cls) -> Launch:
        hydra_cfg = HydraConfig.get()
        run_dir = Path(hydra_cfg.runtime.output_dir)
        return cls(
            hydra=hydra_cfg,
            run_dir=run_dir,
            multirun=hydra_cfg.mode == RunMode.MULTIRUN,
            new_folder=run_dir.is_dir() and not any(run_dir.iterdir()),
            logs=(run_dir / f"{hydra_cfg.job.name}.log",),
            overrides=(
                *hydra_cfg.overrides.task, *searchpath_overrides(hydra_cfg.overrides.hydra)
            ),
            choices=tuple(hydra_cfg.runtime.choices),
        )


@dataclass
class LaunchState:
    """What a launch holds so far, for the failure policy: the run directory's lock, and
    whether the launch was accepted there (from then on a failure is recorded in it)."""

    lock: RunLock | None = None
    accepted: bool = False


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    """One run: skipped when finished with the same config, resumed from `last.ckpt`
    when interrupted (`benchmark.run.plan`); failures and exit statuses are handled by
    `failure_policy`. The figures are printed last."""
    os.environ.setdefault("WANDB_MODE", "offline")
    quiet_libraries(is_verbose(cfg), wandb=uses_wandb(cfg.get("logger")))
    launch = Launch.from_hydra()
    record = None
    with failure_policy(launch, cfg) as state:
        record = launch_run(cfg, launch, state)
    if record:
        clear_failure(launch.run_dir)
        print("\n".join(summary_lines(record, launch.run_dir)))
        print(dumps({"run_dir": str(launch.run_dir), "test": record["split"]["test"]}))


def launch_run(cfg: DictConfig, launch: Launch, state: LaunchState) -> dict | None:
    """Check the config, take the run directory's lock, plan the run and skip, resume or
    train it. Nothing is written into the run directory before the launch is accepted there
    (`benchmark.run.folder`). -> the run record (a skipped run's too)."""
    run_dir = launch.run_dir
    check_config(cfg, list(launch.overrides), compose_overrides, launch.choices)
    prepare_processes(cfg, launch.multirun)
    read_only = None
    try:
        state.lock = take_run_lock(run_dir)  # one launch per run directory
    except ReadOnlyRunError as error:
        read_only = error  # a finished run can still be skipped
    if state.lock is not None:
        finish_pending_rerun(run_dir)
    plan = plan_run(run_dir, cfg)
    if plan.action == "skip":
        return skipped(run_dir, locked=state.lock is not None)
    if read_only is not None:
        raise read_only
    state.accepted = True
    if plan.action == "fresh" and plan.work_dir != run_dir and plan.work_dir.is_dir():
        log.warning("%s: an earlier rerun there cannot be resumed; removed, training from "
                    "scratch", plan.work_dir)  # fmt: skip
        shutil.rmtree(plan.work_dir, ignore_errors=True)
    run_log = accept_launch(plan.work_dir, cfg, launch.hydra, first_process=process_rank() == 0)
    try:
        record = run(cfg, run_dir, plan)
        if record and plan.work_dir != run_dir:
            commit_rerun(run_dir)
    finally:
        close_run_log(run_log)
    return record


def skipped(run_dir: Path, locked: bool) -> dict:
    """A finished run skipped: its log lines (its seal, a damaged checkpoint, an abandoned
    rerun removed when this launch holds the lock) -> its record, whose figures are shown."""
    log.info("%s: finished with this config, skipped (rerun=true trains it again)", run_dir)
    record = read_run_record(run_dir)  # checked by the plan
    if not is_sealed(record):
        log.info("%s: %s", run_dir / RECORD_NAME, UNSEALED)
    if damaged := damaged_checkpoint(run_dir):
        log.warning("%s; metrics.json stands, but evaluate and predict need the checkpoint: "
                    "pass rerun=true to train the run again", damaged)  # fmt: skip
    if locked and (removed := remove_dead_rerun(run_dir)):
        log.warning(removed)
    return record


@contextmanager
def failure_policy(launch: Launch, cfg: DictConfig) -> Iterator[LaunchState]:
    """The one place a launch's failures are handled. A failure of an accepted launch
    leaves `failed.json` in the run directory; one refused before it began leaves one
    only inside a multirun (for the sweep summary), else the folder Hydra made is removed.
    SIGTERM or SIGINT ends the launch with 128 + the signal number, recorded as an
    interruption (`benchmark.run.interruption`). Inside a multirun a failure is logged and
    the sweep goes on; alone, an error that says all in one line (`ONE_LINE_ERRORS`) is
    printed without a traceback and exits 2 for bad input, 1 otherwise. W&B is closed and
    the lock released in every case."""
    state, failed = LaunchState(), False
    signals = interruption_signals() if submitit_job() is None else nullcontext()
    try:
        with signals:
            yield state
    except BaseException as error:
        failed = True
        interruption = as_interruption(error)
        if interruption is None and not isinstance(error, Exception):
            raise  # SystemExit of our own, or a signal we do not handle
        run_dir = launch.run_dir
        if state.accepted:
            record_failure(run_dir, interruption or error, [*launch.logs, *submitit_logs()])
        elif launch.multirun and launch.new_folder:  # the sweep summary says why
            record_failure(run_dir, error, submitit_logs())
        elif launch.new_folder:  # refused: nothing is left of the launch
            remove_if_created(run_dir, Path(cfg.paths.runs))
        if interruption is not None:
            print(f"error: {run_dir}: {interruption}; the run is resumable (relaunch the "
                  "same command)", file=sys.stderr)  # fmt: skip
            finish_wandb(True)
            sys.exit(interruption.exit_status)
        if not launch.multirun:
            if isinstance(error, ONE_LINE_ERRORS):  # said in full in one line, no traceback
                print(error_lines(error), file=sys.stderr)
                sys.exit(2 if isinstance(error, BAD_INPUT_ERRORS) else 1)
            raise
        log.exception("%s: run failed; the sweep goes on", run_dir)
    finally:
        finish_wandb(failed)
        if state.lock is not None:
            state.lock.release()


def compose_overrides(overrides: list[str]) -> DictConfig:
    """The config of these overrides, composed inside the running Hydra app."""
    return compose(config_name="config", overrides=overrides)


def record_failure(run_dir: Path, error: BaseException, logs: list[Path]) -> None:
    """`failed.json` for the sweep summary (an interruption as such); a folder that cannot
    take it (read-only, full) is said in the log."""
    try:
        if isinstance(error, RunInterrupted):
            write_interruption(run_dir, str(error), logs)
        else:
            write_failure(run_dir, error, logs)
    except OSError as write_error:
        log.error("%s: failed.json could not be written (%s)", run_dir, write_error)


if __name__ == "__main__":
    main()  # its config checked at the top of this file
