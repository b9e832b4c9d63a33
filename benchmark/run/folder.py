"""What a launch writes into its run directory, and when (docs/design.md, section 8).

A launch writes nothing into a run directory until it is accepted there, i.e. until it holds
the run's lock and its plan is to train (`benchmark.run.plan`): a launch refused by
the lock, by a config conflict or by a config error leaves the folder byte-identical. Hydra
itself is told to write nothing (`hydra.output_subdir: null`, console-only job logging in
conf/config.yaml); `accept_launch` then writes Hydra's files (`.hydra/config.yaml`,
`overrides.yaml`, `hydra.yaml`) and opens the job log (`train.log`) in the folder the run
works in, and removes the temporary files a killed writer left there.

A rerun of a finished run (`rerun=true`) works in `.rerun/` inside the run directory, so the
finished record, predictions and checkpoints stay as they are until the new run is complete;
`commit_rerun` then moves the new files into place, `metrics.json` last. The staging folder
is its own journal: a launch that finds a complete one (it holds `metrics.json`) finishes the
move first (`finish_pending_rerun`), so a kill at any point of the move loses nothing. One
that is not complete is the leftover of a rerun killed before it finished: a relaunch with
`rerun=true` resumes it, any other launch of the finished run removes it
(`remove_dead_rerun`), each said in one line.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from benchmark.records.run_record import RECORD_NAME

RERUN_DIR = ".rerun"  # where a rerun of a finished run trains (inside the run directory)
HYDRA_DIR = ".hydra"
LOG_FORMAT = "[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"  # Hydra's job log format
TEMPORARY_PATTERN = ".*.tmp"  # benchmark.records.atomic_io's temporary files

log = logging.getLogger(__name__)


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove the temporary files of atomic writes (`.<name>.<hex>.tmp`) in `folder` and its
    `checkpoints/`, left by a writer that was killed; call it holding the run's lock (no live
    writer then). Returns what was removed."""
    removed = []
    for directory in (folder, folder / "checkpoints"):
        if not directory.is_dir():
            continue
        for path in directory.glob(TEMPORARY_PATTERN):
            if path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)
                removed.append(path)
    if removed:
        log.info("removed %d temporary file(s) of an interrupted writer: %s",
                 len(removed), ", ".join(p.name for p in removed))
    return removed


def write_hydra_files(folder: Path, cfg: DictConfig, hydra_cfg: DictConfig) -> None:
    """`.hydra/config.yaml` (the job's config as composed), `overrides.yaml`, `hydra.yaml`,
    the files Hydra writes itself when `hydra.output_subdir` is set."""
    target = folder / HYDRA_DIR
    target.mkdir(parents=True, exist_ok=True)
    OmegaConf.save(cfg, target / "config.yaml")
    OmegaConf.save(OmegaConf.create(list(hydra_cfg.overrides.task)), target / "overrides.yaml")
    OmegaConf.save(OmegaConf.create({"hydra": hydra_cfg}), target / "hydra.yaml")


def open_run_log(path: Path) -> logging.Handler:
    """Append the job's log records to `path` (until `close_run_log`)."""
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.getLogger().addHandler(handler)
    return handler


def close_run_log(handler: logging.Handler | None) -> None:
    if handler is not None:
        logging.getLogger().removeHandler(handler)
        handler.close()


def accept_launch(
    folder: Path, cfg: DictConfig, hydra_cfg: DictConfig, first_process: bool = True
) -> logging.Handler:
    """The launch trains in `folder` (the run directory or its rerun staging folder): the
    first process of the launch cleans up after killed writers and writes Hydra's files;
    every process opens its job log (`<job name>.log`: `train.log`, and
    `train_ddp_process_1.log` ... for the processes Lightning starts)."""
    folder.mkdir(parents=True, exist_ok=True)
    if first_process:
        remove_stale_temporaries(folder)
        write_hydra_files(folder, cfg, hydra_cfg)
    return open_run_log(folder / f"{hydra_cfg.job.name}.log")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def commit_rerun(run_dir: Path) -> None:
    """Move a complete rerun (`run_dir/.rerun/`, holding `metrics.json`) over the run it
    replaces: every other file first, `metrics.json` last (an atomic rename), then remove the
    staging folder. Idempotent, so an interrupted move is finished by calling it again."""
    staging = run_dir / RERUN_DIR
    for entry in sorted(staging.iterdir()):
        if entry.name == RECORD_NAME:
            continue
        target = run_dir / entry.name
        if target.exists() or target.is_symlink():
            _remove(target)
        os.replace(entry, target)
    if (staging / RECORD_NAME).is_file():
        os.replace(staging / RECORD_NAME, run_dir / RECORD_NAME)
    shutil.rmtree(staging, ignore_errors=True)


def finish_pending_rerun(run_dir: Path) -> bool:
    """Finish the move of a rerun that completed but was interrupted while it replaced the
    old files (call it holding the run's lock); True when there was one."""
    staging = run_dir / RERUN_DIR
    if not (staging / RECORD_NAME).is_file():
        return False
    log.warning("%s: finishing the replacement of the run by its completed rerun", run_dir)
    commit_rerun(run_dir)
    return True


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def remove_dead_rerun(run_dir: Path) -> str | None:
    """Remove the unfinished rerun (`.rerun/` without `metrics.json`) that a killed
    `rerun=true` left in a finished run's folder, for a launch that keeps the finished run
    (call it holding the run's lock); the line saying so, or None when there is none."""
    staging = run_dir / RERUN_DIR
    if not staging.is_dir() or (staging / RECORD_NAME).is_file():
        return None
    megabytes = _size(staging) / 1e6
    shutil.rmtree(staging)
    return (f"{staging}: removed the unfinished rerun a killed launch left ({megabytes:.1f} MB); "
            "the finished run stands (rerun=true trains it again)")


def remove_if_created(run_dir: Path, stop: Path) -> None:
    """Remove `run_dir` and its parents below `stop` while they are empty: the folders Hydra
    made for a launch that was then refused."""
    stop = stop.resolve()
    folder = run_dir.resolve()
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()  # only an empty folder
        except OSError:
            return
        folder = folder.parent
