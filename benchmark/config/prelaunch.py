"""What is checked before Hydra starts: the run directory's path, and a run directory that
cannot be written.

Hydra creates the run directory before the run's code starts, so a setting that makes the
path unsafe or the run impossible (`variant=../x`, `seed=4294967296`) is refused here, one
line per problem and exit status 2, before any folder exists (`prelaunch_problems`).

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

from omegaconf import OmegaConf

from benchmark.config.checks import ConfigError, check_config
from benchmark.config.compose import compose_config


class UnwritableRunsError(PermissionError):
    """The run directory does not exist and its parent cannot take it."""


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def prelaunch_problems(overrides: list[str]) -> list[str]:
    """The problems `benchmark.config.checks.check_config` finds in a single-run
    launch's config (empty for flags such as `-m` or `--cfg`, and for configs that do not
    compose, which Hydra reports itself)."""
    if any(arg.startswith("-") for arg in overrides):
        return []
    try:
        cfg = compose_config(list(overrides), return_hydra_config=True)
        choices = list(cfg.hydra.runtime.choices)
    except Exception:
        return []
    try:
        check_config(cfg, overrides, compose_config, choices)
    except ConfigError as error:
        return str(error).splitlines()
    return []


def check_creatable(overrides: list[str]) -> None:
    """UnwritableRunsError when the run directory of a single-run launch does not exist and
    cannot be created. Flags (`-m`, `--cfg` ...) and configs that do not compose are left to
    Hydra."""
    if any(arg.startswith("-") for arg in overrides):
        return
    try:
        cfg = compose_config(list(overrides), return_hydra_config=True)
        run_dir = Path(OmegaConf.select(cfg, "hydra.run.dir"))
    except Exception:  # Hydra itself reports a config it cannot compose
        return
    if run_dir.is_dir():
        return
    existing = next(parent for parent in run_dir.parents if parent.exists())
    if not _writable(existing):
        raise UnwritableRunsError(
            f"{run_dir}: cannot create the run directory ({existing} is read-only); "
            "choose another paths.runs"
        )
