"""Wall-clock timing for the benchmark: device-synchronised, median of repeats, and the
bf16 autocast option."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

import torch

from benchmark.config.precision import bf16_autocast

PRECISIONS = ("32", "bf16")


def synchronize(device: torch.device) -> None:
    """Wait for queued GPU work (a no-op on the CPU), so a clock reading covers it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(run: Callable[[], object], device: torch.device) -> tuple[float, object]:
    """Wall time of one call of `run`, and its result."""
    synchronize(device)
    start = time.perf_counter()
    result = run()
    synchronize(device)
    return time.perf_counter() - start, result


def seconds(run: Callable[[], object], device: torch.device, repeats: int) -> float:
    """Median wall time of `repeats` calls of `run` (warm it up first)."""
    return statistics.median(timed(run, device)[0] for _ in range(repeats))


def autocast(device: torch.device, precision: str) -> AbstractContextManager:
    """bf16 autocast on `device` for precision "bf16" (oneDNN off on a CPU without bf16
    instructions: `benchmark.config.precision`); full float32 for "32"."""
    return bf16_autocast(device.type, precision == "bf16")
