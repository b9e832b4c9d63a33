"""The machine a benchmark runs on, and the peak memory of each measured phase.

On a shared machine the figures depend on what else runs, so the record keeps the load
average (`os.getloadavg`) beside the CPU model, the cores and the PyTorch threads. Peak
memory is `torch.cuda.max_memory_allocated` on a GPU; on a CPU, the process's peak
resident set (VmHWM), reset at the start of each phase through /proc/self/clear_refs
where Linux allows it, else the peak since the process started (ru_maxrss).
"""

from __future__ import annotations

import os
import platform
import resource
from pathlib import Path

import torch

CLEAR_REFS = Path("/proc/self/clear_refs")
STATUS = Path("/proc/self/status")


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (else the platform's processor string)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> list[float]:
    """1-, 5- and 15-minute load averages (runnable processes, all users)."""
    return [round(load, 2) for load in os.getloadavg()]


def machine_info(device: torch.device) -> dict:
    """CPU, cores, software versions and PyTorch threads; the GPU when `device` is one."""
    info = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "device": str(device),
        "memory": memory_method(device),
    }
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    return info


def memory_method(device: torch.device) -> str:
    """How `peak_memory_mb` is measured on `device`."""
    if device.type == "cuda":
        return "torch.cuda.max_memory_allocated, reset per phase"
    if os.access(CLEAR_REFS, os.W_OK) and STATUS.is_file():
        return "peak RSS of the process (VmHWM), reset per phase"
    return "peak RSS of the process since it started (ru_maxrss)"


def reset_peak_memory(device: torch.device) -> None:
    """Start a new phase for `peak_memory_mb` (where the platform allows)."""
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    elif os.access(CLEAR_REFS, os.W_OK):
        CLEAR_REFS.write_text("5")  # Linux: reset the peak RSS to the current RSS


def peak_memory_mb(device: torch.device) -> float:
    """Peak memory of the phase (see `memory_method`), in MiB."""
    if device.type == "cuda":
        return round(torch.cuda.max_memory_allocated(device) / 2**20, 1)
    if STATUS.is_file():
        for line in STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)  # kB
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: kB
