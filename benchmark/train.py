"""Train one ordering model on one dataset and score it: `python -m benchmark.train`
(or `orderbench train`).

A Hydra app (configs in `conf/`): checks the config, takes the run directory's lock, plans
the run (skip, resume or fresh; `benchmark.harness.run_plan`) and runs it
(`benchmark.harness.run`). The run directory receives the best checkpoint (selected on
valid), `predictions.jsonl` for the test split, the CSV/W&B logs, Hydra's `.hydra/` and,
last and atomically, `metrics.json` (DESIGN sections 3 and 5). With `dataset.noise` the
model is wrapped with an END candidate (`benchmark.harness.net_factory`) and order
discrimination is skipped.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import hydra
from hydra import compose
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from benchmark.cli_options import error_lines
from benchmark.harness.checkpoint_io import (
    CheckpointWriteError,
)
from benchmark.harness.config_check import ConfigError, check_config, searchpath_overrides
from benchmark.harness.finite_guard import NonFiniteError
from benchmark.harness.loggers import finish_wandb
from benchmark.harness.processes import prepare_processes, submitit_logs
from benchmark.harness.resolvers import register_resolvers
from benchmark.harness.run import run
from benchmark.harness.run_dir_access import UnwritableRunsError, read_only_arguments
from benchmark.harness.run_lock import ReadOnlyRunError, RunLockedError, take_run_lock
from benchmark.harness.run_plan import (
    RunConflictError,
    plan_run,
)
from benchmark.harness.trained_run import damaged_checkpoint
from benchmark.records.atomic_io import FileWriteError
from benchmark.records.failure import clear_failure, write_failure
from benchmark.records.json_values import dumps
from benchmark.records.run_record import (
    read_run_record,
)
from data.errors import DataFormatError
from data.readers.sources import DatasetNotFoundError

log = logging.getLogger(__name__)
# errors whose message says all (the key, file:line or run directory): one line, no traceback
ONE_LINE_ERRORS = (
    CheckpointWriteError, ConfigError, DataFormatError, DatasetNotFoundError, FileWriteError,
    NonFiniteError, ReadOnlyRunError, RunConflictError, RunLockedError,
)
# bad settings or input data, refused before any training: exit status 2 (the others 1)
BAD_INPUT_ERRORS = (ConfigError, DataFormatError, DatasetNotFoundError)


register_resolvers()


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    """One run: skipped when finished with the same config, resumed from `last.ckpt`
    when interrupted (`benchmark.harness.run_plan`). A failure leaves `failed.json` in the run
    directory; inside a multirun it is logged and the sweep goes on with the next run."""
    os.environ.setdefault("WANDB_MODE", "offline")
    hydra_cfg = HydraConfig.get()
    run_dir = Path(hydra_cfg.runtime.output_dir)
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    failed, lock, read_only = False, None, None
    try:
        overrides = [*hydra_cfg.overrides.task, *searchpath_overrides(hydra_cfg.overrides.hydra)]
        check_config(cfg, overrides, compose_overrides, hydra_cfg.runtime.choices)
        prepare_processes(cfg, multirun)
        try:
            lock = take_run_lock(run_dir)  # one launch per run directory
        except ReadOnlyRunError as error:
            read_only = error  # a finished run can still be skipped
        plan = plan_run(run_dir, cfg)
        if plan.action == "skip":
            log.info("%s: finished with this config, skipped (rerun=true trains it again)", run_dir)
            if damaged := damaged_checkpoint(run_dir):
                log.warning("%s; metrics.json stands, but evaluate and predict need the "
                            "checkpoint: pass rerun=true to train the run again", damaged)
            record = read_run_record(run_dir)
        elif read_only is not None:
            raise read_only
        else:
            record = run(cfg, run_dir, plan)
    except Exception as error:
        failed = True
        record_failure(run_dir, error, [run_dir / f"{hydra_cfg.job.name}.log", *submitit_logs()])
        if not multirun:
            if isinstance(error, ONE_LINE_ERRORS):  # said in full in one line, no traceback
                print(error_lines(error), file=sys.stderr)
                sys.exit(2 if isinstance(error, BAD_INPUT_ERRORS) else 1)
            raise
        log.exception("%s: run failed; the sweep goes on", run_dir)
        return
    finally:
        finish_wandb(failed)
        if lock is not None:
            lock.release()
    if record:
        clear_failure(run_dir)
        print(dumps({"run_dir": str(run_dir), "test": record["split"]["test"]}, indent=2))


def compose_overrides(overrides: list[str]) -> DictConfig:
    """The config of these overrides, composed inside the running Hydra app."""
    return compose(config_name="config", overrides=overrides)


def record_failure(run_dir: Path, error: BaseException, logs: list[Path]) -> None:
    """`failed.json` for the sweep summary; not for a launch refused because another one
    runs there, and a folder that cannot take it (read-only, full) is said in the log."""
    if isinstance(error, RunLockedError):
        return
    try:
        write_failure(run_dir, error, logs)
    except OSError as write_error:
        log.error("%s: failed.json could not be written (%s)", run_dir, write_error)


if __name__ == "__main__":
    try:  # a run directory that cannot be written: before Hydra writes into it
        sys.argv[1:] = read_only_arguments(sys.argv[1:])
    except UnwritableRunsError as unwritable:
        sys.exit(f"error: {unwritable}")
    main()
