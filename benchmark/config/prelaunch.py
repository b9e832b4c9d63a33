"""What is checked before Hydra starts: the config, the run directory's path, and a run
directory that cannot be written.

Hydra creates the run directory before the run's code starts, so a setting that makes the
path unsafe or the run impossible (`variant=../x`, `seed=4294967296`,
`dataset.datamodule.min_freq=-1`), an option no config group has (`model=lstm_pointer`)
or an override Hydra refuses is refused here, one line per problem and exit status 2,
before any folder exists (`prelaunch_problems`); so is data that is not where the config
says, when the reader can tell without reading a document (its `files()`), unless the
launch is the skip of a finished run (whose record is checked without its data).
`benchmark.train` runs this before it imports the training code (Lightning, PyTorch), so
bad input is said within a second or two.

Hydra is told to write nothing into a run directory (conf/config.yaml; the run writes
`.hydra/` and `train.log` itself once accepted, `benchmark.run.folder`), so a
read-only run directory of a finished run can still be skipped, reading only, and a run
that would have to train there gets one line (`benchmark.run.lock.ReadOnlyRunError`).
Hydra still creates the run directory: when it cannot (`check_creatable`), the launch ends
here with one line.
"""

from __future__ import annotations

import os
from pathlib import Path

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from benchmark.config.checks import ConfigError, check_config
from benchmark.config.compose import COMPOSE_ERRORS, compose_config, compose_error
from benchmark.records.run_record import RECORD_NAME
from data.readers.dataset_source import DatasetNotFoundError


class UnwritableRunsError(PermissionError):
    """The run directory does not exist and its parent cannot take it."""


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def _single_run(overrides: list[str]) -> bool:
    """Whether `overrides` launch one run (no flag such as `-m` or `--cfg`, left to Hydra)."""
    return not any(arg.startswith("-") for arg in overrides)


def _problems(cfg: DictConfig, overrides: list[str]) -> list[str]:
    """The problems `benchmark.config.checks.check_config` finds in the composed `cfg`."""
    try:
        check_config(cfg, overrides, compose_config, list(cfg.hydra.runtime.choices))
    except ConfigError as error:
        return str(error).splitlines()
    return []


def prelaunch_problems(overrides: list[str]) -> list[str]:
    """The problems of a single-run launch's config: what composing it refuses (one line:
    `benchmark.config.compose.compose_error`), else what `check_config` finds (empty for
    flags such as `-m` or `--cfg`)."""
    if not _single_run(overrides):
        return []
    try:
        cfg = compose_config(list(overrides), return_hydra_config=True)
    except COMPOSE_ERRORS as error:
        return [compose_error(error)]
    except Exception:  # anything else Hydra reports itself
        return []
    return _problems(cfg, overrides)


def _uncreatable(cfg: DictConfig) -> UnwritableRunsError | None:
    """The error for a run directory of `cfg` that does not exist and cannot be created."""
    run_dir = Path(OmegaConf.select(cfg, "hydra.run.dir"))
    if run_dir.is_dir():
        return None
    existing = next(parent for parent in run_dir.parents if parent.exists())
    if _writable(existing):
        return None
    return UnwritableRunsError(
        f"{run_dir}: cannot create the run directory ({existing} is read-only); "
        "choose another paths.runs"
    )


def check_creatable(overrides: list[str]) -> None:
    """UnwritableRunsError when the run directory of a single-run launch does not exist and
    cannot be created. Flags (`-m`, `--cfg` ...) and configs that do not compose are left to
    Hydra."""
    if not _single_run(overrides):
        return
    try:
        cfg = compose_config(list(overrides), return_hydra_config=True)
    except Exception:  # Hydra itself reports a config it cannot compose
        return
    if (error := _uncreatable(cfg)) is not None:
        raise error


def missing_data(cfg: DictConfig) -> DatasetNotFoundError | None:
    """The error for data that is not where `cfg` says, as the reader's `files()` finds
    it reading no document (None where it has none, or for the skip of a finished run)."""
    run_dir = Path(OmegaConf.select(cfg, "hydra.run.dir"))
    if (run_dir / RECORD_NAME).is_file() and not cfg.get("rerun", False):
        return None  # a finished run is skipped on its record (docs/design.md, section 8)
    try:
        files = getattr(instantiate(cfg.dataset.reader), "files", None)
        if callable(files):
            files()
    except DatasetNotFoundError as error:
        return error
    except Exception:  # anything else is said where the data is read
        return None
    return None


def launch_refusal(overrides: list[str]) -> Exception | None:
    """What ends a single-run launch before Hydra starts, composing its config once: a
    config that does not compose or has problems (ConfigError, one line per problem), data
    that is not there (`missing_data`, as the run would say it), a run directory that
    cannot be made (UnwritableRunsError); None for a good one, and for flags."""
    if not _single_run(overrides):
        return None
    try:
        cfg = compose_config(list(overrides), return_hydra_config=True)
    except COMPOSE_ERRORS as error:
        return ConfigError(compose_error(error))
    except Exception:  # anything else Hydra reports itself
        return None
    if problems := _problems(cfg, overrides):
        return ConfigError("\n".join(problems))
    return missing_data(cfg) or _uncreatable(cfg)
