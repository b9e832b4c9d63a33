"""The jobs of a Hydra multirun and their run directories, expanded the way Hydra's
BasicSweeper expands them (`hydra.sweeper.params` and the command-line sweeps)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig, OmegaConf


@dataclass(frozen=True)
class SweepJob:
    overrides: tuple[str, ...]
    config: DictConfig | None  # the job's composed config (with its `hydra` node)
    error: str | None = None  # why the job's config does not compose

    @cached_property
    def run_dir(self) -> Path | None:
        """The job's run directory, resolved once (its config id is a digest of the config)."""
        if self.config is None:
            return None
        return Path(self.config.hydra.sweep.dir) / self.config.hydra.sweep.subdir


def job_overrides(master: DictConfig, config_loader) -> list[list[str]]:
    """One override list per job of the multirun configured by `master`."""
    params = master.hydra.sweeper.get("params") or {}
    arguments = [f"{key}={value}" for key, value in params.items()]
    arguments += OmegaConf.to_container(master.hydra.overrides.task)
    overrides = OverridesParser.create(config_loader=config_loader).parse_overrides(arguments)
    return [job for batch in BasicSweeper.split_arguments(overrides, None) for job in batch]


def sweep_jobs(
    master: DictConfig, config_loader, progress: Callable[[int, int], None] | None = None
) -> list[SweepJob]:
    """Every job of the multirun with its composed config (or the composition error);
    `progress(done, total)` is called after each job is composed."""
    jobs = []
    every = job_overrides(master, config_loader)
    for overrides in every:
        if progress is not None and jobs:
            progress(len(jobs), len(every))
        try:
            config = config_loader.load_sweep_config(master, overrides)
        except Exception as error:  # reported with the job: the sweep would fail on it
            message = str(error).strip().splitlines()[0]
            jobs.append(SweepJob(tuple(overrides), None, f"{type(error).__name__}: {message}"))
            continue
        jobs.append(SweepJob(tuple(overrides), config))
    return jobs
