"""Several runs on one GPU (`hydra.launcher.runs_per_gpu`, conf/hydra/launcher/*.yaml).

The paper presets keep a modern GPU busy a few percent of the time (docs/performance.md:
their training steps are bound by kernel launches), so a sweep finishes sooner with
several runs sharing each GPU. How the two launchers place them:

- `hydra/launcher=local`: the runs a batch starts at once (`hydra.sweeper.max_batch_size`)
  are dealt to the visible GPUs, `runs_per_gpu` to each: run k of the batch sees the GPUs of
  slot k // runs_per_gpu (`CUDA_VISIBLE_DEVICES`; submitit alone would give every run the
  first GPU). A batch larger than the slots is refused before anything starts.
- `hydra/launcher=slurm`: `runs_per_gpu` runs go into one job of one GPU, one run per task
  (`tasks_per_node` = the runs, `cpus_per_task` and `mem_gb` as set: size them per run and
  per job); each task trains its own run as one process (`benchmark.run.processes`).
  A run of several processes (`trainer.devices` or `trainer.num_nodes` above 1) cannot
  share: refused.

With a CPU trainer the setting changes nothing (there is no GPU to share).

`runs_per_gpu: auto` (the default) packs as many runs on each GPU as its memory holds: the
GPUs' memory (`nvidia-smi`) times `MEMORY_SHARE`, over the largest peak measured on a GPU
among the presets of the runs to launch (`benchmark.sweep.gpu_peaks`; `UNMEASURED_MIB` for a
preset never measured), at most `MAX_RUNS_PER_GPU` and one per CPU core; a launcher that
sees no GPU (a SLURM login node) places one run per GPU and says how to ask for more. Each
run is told how many shared its GPU (`benchmark.run.processes.SHARED_GPU`), which its record keeps
(`environment.runs_per_gpu`) and the sweep summary counts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable

RUNS_PER_GPU = "runs_per_gpu"  # the hydra.launcher key
AUTO = "auto"
MAX_RUNS_PER_GPU = 8  # each run is a process of its own, with its data loading on a core
MEMORY_SHARE = 0.85  # of a GPU's memory the runs may fill together (contexts, fragmentation)
UNMEASURED_MIB = 4096  # a preset no GPU record holds (BERT-base's shape, bf16: 3,581 MiB)


class SharingError(ValueError):
    """A `runs_per_gpu` request that cannot be placed (the message names the keys)."""


def runs_per_gpu(params: dict) -> int | str:
    """The launcher's `runs_per_gpu` (1 when absent): `AUTO` or an integer >= 1."""
    value = params.get(RUNS_PER_GPU, 1)
    if value == AUTO:
        return AUTO
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SharingError(
            f"hydra.launcher.{RUNS_PER_GPU} must be an integer >= 1 or auto, got {value!r}"
        )
    return value


def auto_runs_per_gpu(models: Iterable[str], gpu_mib: float | None, peaks: dict[str, dict],
                      cores: int | None = None) -> tuple[int, str]:
    """`runs_per_gpu: auto` for runs of `models` on GPUs of `gpu_mib` MiB (None: not seen)
    -> the runs per GPU and why, in words (module docstring)."""
    if not gpu_mib:
        return 1, (f"{RUNS_PER_GPU}=auto: no GPU seen here, so 1 run per GPU; set "
                   f"hydra.launcher.{RUNS_PER_GPU}=N to share")  # fmt: skip
    models = sorted(set(models)) or ["(unknown)"]
    largest = max(models, key=lambda model: peaks.get(model, {}).get("mib", UNMEASURED_MIB))
    peak = peaks.get(largest, {}).get("mib", UNMEASURED_MIB)
    source = peaks.get(largest, {}).get("source", "never measured on a GPU: assumed")
    cores = cores or os.cpu_count() or 1
    count = max(1, min(MAX_RUNS_PER_GPU, int(gpu_mib * MEMORY_SHARE // peak), cores))
    return count, (f"{RUNS_PER_GPU}=auto: {count} run(s) per GPU ({gpu_mib:.0f} MiB each; "
                   f"the largest peak, {largest}, {peak:.0f} MiB: {source}; at most "
                   f"{MAX_RUNS_PER_GPU}, one per core of {cores})")  # fmt: skip


def gpu_memory_mib() -> float | None:
    """The smallest memory among the GPUs `nvidia-smi` lists (those CUDA_VISIBLE_DEVICES
    leaves), in MiB; None where it lists none. No CUDA context is made here."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        done = subprocess.run([smi, "--query-gpu=index,memory.total",
                               "--format=csv,noheader,nounits"], capture_output=True,
                              text=True, timeout=30)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    rows = [line.split(",") for line in done.stdout.splitlines() if line.strip()]
    memory = {int(index): float(total) for index, total in rows}
    try:
        wanted = visible_gpus(count=len(memory))
    except SharingError:
        wanted = list(memory)
    sizes = [memory[index] for index in wanted if index in memory]
    return min(sizes) if sizes else None


def visible_gpus(environ: dict | None = None, count: int | None = None) -> list[int]:
    """The GPUs runs may be placed on: `CUDA_VISIBLE_DEVICES` when set (GPU indices), else
    the `count` GPUs PyTorch sees (asked when None)."""
    environ = os.environ if environ is None else environ
    listed = environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        items = [item.strip() for item in listed.split(",") if item.strip()]
        if not all(item.isdigit() for item in items):
            raise SharingError(
                f"CUDA_VISIBLE_DEVICES={listed}: the local launcher places runs by GPU index; "
                "list indices (0,1,...), not UUIDs"
            )
        return [int(item) for item in items]
    if count is None:
        import torch

        count = torch.cuda.device_count()
    return list(range(count))


def local_placements(runs: int, gpus: list[int], per_run: int, sharing: int) -> list[list[int]]:
    """The GPUs of each of `runs` runs started at once, each using `per_run` GPUs, `sharing`
    runs to a slot of `per_run` GPUs: run k gets slot k // sharing."""
    slots = [gpus[start:start + per_run] for start in range(0, len(gpus) - per_run + 1, per_run)]
    if runs > len(slots) * sharing:
        raise SharingError(
            f"{runs} runs at once (hydra.sweeper.max_batch_size) need "
            f"{-(-runs // sharing) * per_run} GPU(s) at hydra.launcher.{RUNS_PER_GPU}={sharing} "
            f"and {per_run} per run (trainer.devices); {len(gpus)} visible "
            f"({','.join(map(str, gpus)) or 'none'}): lower hydra.sweeper.max_batch_size or "
            f"raise hydra.launcher.{RUNS_PER_GPU}"
        )
    return [slots[run // sharing] for run in range(runs)]


def slurm_groups(runs: int, sharing: int, gpus_per_node: int | None, nodes: int) -> list[range]:
    """The runs of each SLURM job: `sharing` runs to a job of one GPU (the last job may hold
    fewer); one run per job when nothing is shared."""
    if sharing > 1 and gpus_per_node and (gpus_per_node, nodes) != (1, 1):
        raise SharingError(
            f"hydra.launcher.{RUNS_PER_GPU}={sharing}: runs share a GPU one process each, but "
            f"each run asks for {gpus_per_node} GPU(s) on {nodes} node(s) (trainer.devices, "
            "trainer.num_nodes): set both to 1, or runs_per_gpu=1"
        )
    size = sharing if gpus_per_node else 1
    return [range(start, min(start + size, runs)) for start in range(0, runs, size)]
