"""`orderbench bench encoder-memory`: the peak resident memory of a pretrained paragraph
encoder's training steps under settings of the C allocator and of oneDNN, each setting in
its own process, with its CPU seconds a step and ratios to the default, in one run.

Training all-mpnet-base-v2 on NIPS held 12-14 GiB resident on the CPU, several times its live
tensors (docs/performance.md, "The memory of a BERT-base-sized run"). The batches grouped by
tokens change shape at every step, and two caches keep what each shape left: glibc's heap
keeps the freed blocks, and oneDNN keeps up to 1024 primitives (one per new shape). The
settings are environment variables read when a process starts:

- `default`: as the suite runs today;
- `onednn16`: `ONEDNN_PRIMITIVE_CACHE_CAPACITY=16`;
- `onednn16_mmap8m`: and `MALLOC_MMAP_THRESHOLD_=8388608` (blocks of 8 MiB or more mapped
  on their own and returned to the system when freed);
- `mmap128k`: `MALLOC_MMAP_THRESHOLD_=131072` (every block of 128 KiB or more so);
- `bounded`: none of them in the environment, the run's own `cpu_memory: bounded` put into
  effect inside the process (the suite's default: benchmark/config/cpu_memory.py), to show
  that it bounds the memory as `onednn16_mmap8m` does.

Each process trains the same first `steps` batches of the epoch (`bucket_by=tokens`, bf16
autocast where the CPU has bf16 instructions, as the NIPS sweep of the mpnet rows) from the
same initial weights, and reports its peak resident memory (`ru_maxrss`, model loading
included) and CPU seconds a step. Nothing is checked against a bound.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmark.config.cpu_memory import (
    BOUNDED,
    BOUNDED_VALUES,
    DEFAULT,
    MMAP_THRESHOLD,
    ONEDNN_CACHE,
    apply_cpu_memory,
)

# each setting: the variables its process starts with, and its `cpu_memory` setting
SETTINGS = {
    "default": ({}, DEFAULT),
    "onednn16": ({ONEDNN_CACHE: BOUNDED_VALUES[ONEDNN_CACHE]}, DEFAULT),
    "onednn16_mmap8m": (dict(BOUNDED_VALUES), DEFAULT),
    "mmap128k": ({MMAP_THRESHOLD: str(128 * 2**10)}, DEFAULT),
    "bounded": ({}, BOUNDED),
}  # fmt: skip


def train_and_measure(encoder: str, nips: str, preset: str, steps: int, threads: int,
                      seed: int, cpu_memory: str) -> dict:
    """In this process: `steps` training steps -> peak memory and seconds a step."""
    apply_cpu_memory(cpu_memory)
    import torch

    from benchmark.bench.encoder_cost import epoch_batches, time_path, training_split
    from benchmark.config.precision import cpu_has_bf16
    from benchmark.training.resources import peak_rss_mb
    from models.registry import get_preset

    torch.set_num_threads(threads)
    dataset = training_split(Path(nips))
    torch.manual_seed(seed)
    net = get_preset(preset).build(None, encoder=encoder)
    bf16 = cpu_has_bf16()
    times = time_path(net, dataset, epoch_batches(dataset, "tokens", seed), steps, 0, bf16)
    return {"precision": "bf16" if bf16 else "32",
            "peak_rss_gib": round(peak_rss_mb() / 1024, 2),
            "step_s_mean": round(statistics.mean(wall for wall, _, _ in times), 3),
            "step_cpu_s_mean": round(statistics.mean(cpu for _, cpu, _ in times), 3)}


def main(nips: str, encoder: str = "mpnet", settings: list[str] | None = None,
         preset: str = "paragraph_ptrnet", steps: int = 30, threads: int = 1, seed: int = 0,
         out: str | None = None) -> int:
    """Run every setting in a child process; print the table (and write it to `out`)."""
    from benchmark.bench.encoder_cost import BATCH
    from benchmark.bench.machine import cpu_model
    from benchmark.bench.table import markdown_table

    names = settings or list(SETTINGS)
    unknown = [name for name in names if name not in SETTINGS]
    if unknown:
        raise SystemExit(f"bench encoder-memory: settings={','.join(unknown)}: not one of "
                         f"{', '.join(SETTINGS)}")
    rows, base = [], None
    clean = {key: value for key, value in os.environ.items() if key not in BOUNDED_VALUES}
    for name in names:
        variables, cpu_memory = SETTINGS[name]
        job = json.dumps([encoder, nips, preset, steps, threads, seed, cpu_memory])
        done = subprocess.run([sys.executable, "-m", __name__, job], capture_output=True,
                              text=True, env={**clean, **variables})
        if done.returncode != 0:
            raise SystemExit(f"bench encoder-memory: setting {name} failed:\n{done.stderr[-3000:]}")
        row = {"setting": name, **json.loads(done.stdout.splitlines()[-1])}
        base = base or row
        row["memory_ratio"] = round(row["peak_rss_gib"] / base["peak_rss_gib"], 2)
        row["cpu_ratio"] = round(row["step_cpu_s_mean"] / base["step_cpu_s_mean"], 2)
        rows.append(row)
        print(f"  {name}: {row['peak_rss_gib']} GiB, {row['step_cpu_s_mean']} CPU s a step",
              file=sys.stderr, flush=True)
    machine = f"{cpu_model()}, {threads} threads"
    columns = ["setting", "precision", "peak_rss_gib", "memory_ratio", "step_s_mean",
               "step_cpu_s_mean", "cpu_ratio"]
    print(f"{preset} with {encoder}, {steps} NIPS training batches of {BATCH} "
          f"(bucket_by=tokens), {machine}")
    print(markdown_table(columns, [[str(row[c]) for c in columns] for row in rows]))
    if out:
        described = {name: {"environment": variables, "cpu_memory": cpu_memory}
                     for name, (variables, cpu_memory) in SETTINGS.items()}
        Path(out).write_text(json.dumps({"cpu": machine, "encoder": encoder, "steps": steps,
                                         "settings": described, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":  # a child of `main`, in its own process and environment
    print(json.dumps(train_and_measure(*json.loads(sys.argv[1]))))
