"""What a training cost: CPU seconds per epoch and peak memory, for the run record.

Wall-clock time depends on what else the machine runs; the process's CPU time (user +
system, `resource.getrusage`) does much less, so the cost of a run is counted in CPU
seconds: `ResourceMeter` records the CPU seconds of every training epoch (its validation
pass included), carried across resumes in the checkpoints (plain floats, so they load
with `weights_only=True`), and `resources` gives the record's
`{train_cpu_seconds, cpu_seconds_per_epoch, threads_per_epoch, precision_per_epoch,
cpu_seconds_to_selected, peak_rss_mb}`: `cpu_seconds_to_selected` is what training cost up
to the end of the epoch selected on valid, the price of the run's test figures;
`threads_per_epoch` the PyTorch threads each epoch ran with and `precision_per_epoch`
Lightning's precision (`trainer.precision: auto` resolves per machine, so a run resumed on a
machine with or without bf16 is recorded as it ran, not as its last launch; the record's
`environment` is the last launch's). An epoch the meter did
not see (trained before a resume from a checkpoint that holds no meter state) is `null`,
and a sum that needs it is `null`: an uncounted cost is never reported as a small one.
`peak_rss_mb` is the peak resident memory (Linux `ru_maxrss`) of the process that finished
the run, which includes data loading and the test; on a GPU `gpu_peak_mib` is the peak of
its GPU memory (`torch.cuda.max_memory_allocated`), what `runs_per_gpu: auto` packs by.
"""

from __future__ import annotations

import resource
import sys

import pytorch_lightning as pl
import torch


def cpu_seconds() -> float:
    """The CPU time (user + system) this process has used so far, in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """The process's peak resident memory in MB (`ru_maxrss`: KB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


class ResourceMeter(pl.Callback):
    """The CPU seconds of every training epoch (training steps and validation), and the
    PyTorch threads and Lightning precision it ran with."""

    def __init__(self) -> None:
        self.per_epoch: list[float] = []
        self.threads: list[int | None] = []  # None: an epoch of a checkpoint that kept none
        self.precision: list[str | None] = []
        self._start: float | None = None

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._start = cpu_seconds()

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        # after the epoch's validation (Lightning runs it before this hook)
        if self._start is not None:
            self.per_epoch.append(round(cpu_seconds() - self._start, 3))
            self.threads.append(torch.get_num_threads())
            self.precision.append(str(trainer.precision))
            self._start = None

    def state_dict(self) -> dict:
        return {"cpu_seconds_per_epoch": list(self.per_epoch),
                "threads_per_epoch": list(self.threads),
                "precision_per_epoch": list(self.precision)}

    def load_state_dict(self, state_dict: dict) -> None:
        self.per_epoch = [float(s) for s in state_dict.get("cpu_seconds_per_epoch", [])]
        epochs = len(self.per_epoch)
        self.threads = _last(list(state_dict.get("threads_per_epoch", [])), epochs)
        self.precision = _last(list(state_dict.get("precision_per_epoch", [])), epochs)


def epoch_costs(trainer: pl.Trainer) -> tuple[list[float], list[int | None], list[str | None]]:
    """The CPU seconds, threads and precision of every training epoch so far (the trainer's
    `ResourceMeter`). Read it right after `fit`: a later `validate` or `test` from a
    checkpoint restores the callbacks' state of that checkpoint."""
    meter = next((c for c in trainer.callbacks if isinstance(c, ResourceMeter)), None)
    if meter is None:
        return [], [], []
    return list(meter.per_epoch), list(meter.threads), list(meter.precision)


def _total(seconds: list[float | None]) -> float | None:
    """The sum, or None when an epoch of it was not counted (or there is none)."""
    if not seconds or any(one is None for one in seconds):
        return None
    return round(sum(seconds), 2)


def _last(values: list, epochs: int) -> list:
    """The last `epochs` of `values`, None before those the meter saw."""
    counted = list(values[-epochs:]) if epochs else []
    return [None] * (epochs - len(counted)) + counted


def resources(per_epoch: list[float], best_epoch: int | None, epochs: int,
              threads: list[int | None] | None = None,
              precision: list[str | None] | None = None) -> dict:
    """The record's `resources` from the CPU seconds, threads and precision the meter
    counted, the last `epochs` epochs of the training (the earlier ones, trained before the
    meter's state was kept in the checkpoints, become None); `best_epoch` counts from 1
    (None: nothing was trained)."""
    every_epoch: list[float | None] = _last(per_epoch, epochs)
    return {
        "train_cpu_seconds": _total(every_epoch) if epochs else 0.0,
        "cpu_seconds_per_epoch": every_epoch,
        "threads_per_epoch": _last(threads or [], epochs),
        "precision_per_epoch": _last(precision or [], epochs),
        "cpu_seconds_to_selected": _total(every_epoch[:best_epoch]) if best_epoch else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        **({"gpu_peak_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1)}
           if torch.cuda.is_available() and torch.cuda.is_initialized() else {}),
    }
