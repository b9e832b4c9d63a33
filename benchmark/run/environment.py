"""The software and hardware a run ran on, for its record.

CPU results depend on the number of PyTorch threads (a matrix product splits its sums
differently), so the threads are recorded beside the versions, the device and whether
deterministic algorithms were on (`trainer.deterministic`); `docs/metrics.md` says what
is reproducible under which settings.
"""

from __future__ import annotations

import os
import platform

import pytorch_lightning as pl
import torch

from benchmark.config.cpu_memory import MMAP_THRESHOLD, ONEDNN_CACHE
from benchmark.run.processes import SHARED_GPU

# Variables that change a process's memory, not its figures (oneDNN's primitive cache, glibc's
# malloc), whether the shell set them or `cpu_memory: bounded` did (benchmark/config/cpu_memory.py)
MEMORY_VARIABLES = (ONEDNN_CACHE, MMAP_THRESHOLD, "MALLOC_TRIM_THRESHOLD_", "MALLOC_ARENA_MAX")


def _cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (Linux), else what `platform` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run_environment(
    device: torch.device, deterministic, precision: str | None = None,
    net: torch.nn.Module | None = None,
) -> dict:
    """`{threads, interop_threads, deterministic, deterministic_algorithms, torch, ...}`.

    `deterministic` is the `trainer.deterministic` setting as configured;
    `deterministic_algorithms` whether PyTorch had them switched on when recorded;
    `precision` the Trainer's (`trainer.precision: auto` resolved on this machine);
    `runs_per_gpu` how many runs shared its GPU (set by the sweep's launcher);
    `encoders` what each pretrained encoder of `net` was read from (its name, folder and
    version or hub revision: `models.blocks.pretrained.load_pretrained`);
    `memory_variables` those of `MEMORY_VARIABLES` set in the run's environment, so a
    record's peak memory says under which allocator settings it was reached.
    """
    device = torch.device(device)
    name = (
        torch.cuda.get_device_name(device) if device.type == "cuda" else _cpu_name()
    )
    return {
        "threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "deterministic": deterministic,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "torch": torch.__version__,
        "lightning": pl.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "device": str(device),
        "device_name": name,
        "cpu_count": os.cpu_count(),
        **({"precision": str(precision)} if precision is not None else {}),
        **({"runs_per_gpu": int(shared)} if (shared := os.environ.get(SHARED_GPU)) else {}),
        **({"encoders": encoders} if (encoders := pretrained_encoders(net)) else {}),
        **({"memory_variables": memory} if (memory := memory_variables()) else {}),
    }


def memory_variables() -> dict[str, str]:
    """The variables of `MEMORY_VARIABLES` set in this process's environment."""
    return {name: os.environ[name] for name in MEMORY_VARIABLES if name in os.environ}


def pretrained_encoders(net: torch.nn.Module | None) -> list[dict]:
    """The provenance of each pretrained encoder inside `net` (none: an empty list)."""
    if net is None:
        return []
    return [module.orderbench_encoder for module in net.modules()
            if hasattr(module, "orderbench_encoder")]
