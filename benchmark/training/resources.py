"""What a training cost: CPU seconds per epoch and peak memory, for the run record.

Wall-clock time depends on what else the machine runs; the process's CPU time (user +
system, `resource.getrusage`) does much less, so the cost of a run is counted in CPU
seconds: `ResourceMeter` records the CPU seconds of every training epoch (its validation
pass included), carried across resumes in the checkpoints (plain floats, so they load
with `weights_only=True`), and `resources` gives the record's
`{train_cpu_seconds, cpu_seconds_per_epoch, cpu_seconds_to_selected, peak_rss_mb}`:
`cpu_seconds_to_selected` is what training cost up to the end of the epoch selected on
valid, the price of the run's test figures. `peak_rss_mb` is the process's peak resident
memory (Linux `ru_maxrss`), which includes data loading and the test.
"""

from __future__ import annotations

import resource
import sys

import pytorch_lightning as pl


def cpu_seconds() -> float:
    """The CPU time (user + system) this process has used so far, in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """The process's peak resident memory in MB (`ru_maxrss`: KB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


class ResourceMeter(pl.Callback):
    """The CPU seconds of every training epoch (training steps and validation)."""

    def __init__(self) -> None:
        self.per_epoch: list[float] = []
        self._start: float | None = None

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._start = cpu_seconds()

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        # after the epoch's validation (Lightning runs it before this hook)
        if self._start is not None:
            self.per_epoch.append(round(cpu_seconds() - self._start, 3))
            self._start = None

    def state_dict(self) -> dict:
        return {"cpu_seconds_per_epoch": list(self.per_epoch)}

    def load_state_dict(self, state_dict: dict) -> None:
        self.per_epoch = [float(s) for s in state_dict.get("cpu_seconds_per_epoch", [])]


def epoch_cpu_seconds(trainer: pl.Trainer) -> list[float]:
    """The CPU seconds of every training epoch so far (the trainer's `ResourceMeter`). Read
    it right after `fit`: a later `validate` or `test` from a checkpoint restores the
    callbacks' state of that checkpoint."""
    meter = next((c for c in trainer.callbacks if isinstance(c, ResourceMeter)), None)
    return list(meter.per_epoch) if meter is not None else []


def resources(per_epoch: list[float], best_epoch: int | None) -> dict:
    """The record's `resources` from the CPU seconds of every epoch; `best_epoch` counts
    from 1 (None: nothing was trained)."""
    selected = per_epoch[:best_epoch] if best_epoch else []
    return {
        "train_cpu_seconds": round(sum(per_epoch), 2),
        "cpu_seconds_per_epoch": per_epoch,
        "cpu_seconds_to_selected": round(sum(selected), 2) if selected else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
