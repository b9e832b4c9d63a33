"""The Hydra callback that ends every multirun with the sweep summary
(`benchmark.sweep.summary`) and exits with status 1 when a run did not finish (Hydra turns
exceptions raised in callbacks into warnings, so this exits instead of raising)."""

from __future__ import annotations

import time
from typing import Any

from hydra.core.global_hydra import GlobalHydra
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from benchmark.sweep.jobs import sweep_jobs
from benchmark.sweep.summary import FINISHED, format_summary, run_state


class SweepSummary(Callback):
    """Prints the state of every run of the multirun when it ends (`hydra.callbacks`)."""

    def __init__(self) -> None:
        self.started: float | None = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self.started = time.time()

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        jobs = sweep_jobs(config, GlobalHydra.instance().config_loader())
        states = [run_state(job.run_dir) for job in jobs]
        print(format_summary(states, since=self.started), flush=True)
        unfinished = sum(state.state != FINISHED for state in states)
        if unfinished:
            raise SystemExit(f"{unfinished} of {len(states)} runs did not finish (summary above)")
