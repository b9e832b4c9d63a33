"""Training throughput of the paper-size presets on NIPS-like documents, the fast compute
paths against the reference paths (`models.compute_paths`), both in one process.

For each experiment (`conf/experiment/<name>.yaml`, the published sizes and optimiser),
`steps` training batches spread over an epoch of NIPS-like documents
(`benchmark.bench.nips_like`, the DataModule's own length-aware batches) are run as the
harness runs them (loss, backward, clipping, optimiser step; `benchmark.bench.parts.
plain_step`), once on each path per repeat, from the same initial weights, a fresh
optimiser and the same seed, the two paths alternating which goes first. Each repeat
gives the ratio of the two times (wall clock, and the process's CPU time, which a loaded
machine disturbs less); the figures are the medians over repeats. The losses of the two
paths on the same steps must agree (the largest relative difference is recorded): the
ratio is taken at equal outputs.
"""

from __future__ import annotations

import copy
import statistics
import tempfile
import time
from pathlib import Path

import torch

from benchmark.bench.nips_like import write_nips_like
from benchmark.bench.parts import plain_step
from benchmark.bench.timing import autocast, synchronize
from models.batch import to_device
from models.compute_paths import reference_paths

PATHS = ("reference", "fast")


def _run(task, batches: list[dict], clip, device: torch.device, precision: str, seed: int):
    """Wall and CPU seconds of the steps on `batches` from a fresh optimiser, and the
    losses."""
    optimizer = task.configure_optimizers()
    optimizer = optimizer["optimizer"] if isinstance(optimizer, dict) else optimizer
    torch.manual_seed(seed)
    synchronize(device)
    wall, cpu = time.perf_counter(), time.process_time()
    losses = [
        float(plain_step(task.net, batch, optimizer, clip, lambda: autocast(device, precision)))
        for batch in batches
    ]
    synchronize(device)
    return time.perf_counter() - wall, time.process_time() - cpu, losses


def compare_paths(
    experiment: str,
    steps: int,
    repeats: int,
    device: str = "cpu",
    precision: str = "32",
    seed: int = 0,
    scale: float = 1.0,
) -> dict:
    """The record of one experiment (see the module docstring); `scale` shrinks the
    NIPS-like splits (tests)."""
    from benchmark.bench.profile import build, spread  # the profile's config and data

    place = torch.device(device)
    with tempfile.TemporaryDirectory() as scratch:
        path = write_nips_like(Path(scratch) / "nips_like", seed, scale)
        cfg, datamodule, task = build(experiment, path, seed, Path(scratch) / "cache")
        datamodule.set_epoch(0)
        batches = spread([to_device(b, place) for b in datamodule.train_dataloader()], steps)
    task.net.to(place).train()
    initial = copy.deepcopy(task.net.state_dict())
    clip = cfg.trainer.get("gradient_clip_val")
    times = {path: {"wall": [], "cpu": []} for path in PATHS}
    differences = []
    for repeat in range(repeats + 1):  # the first round warms both paths up, untimed
        order = PATHS if repeat % 2 == 0 else PATHS[::-1]
        losses = {}
        for path in order:
            task.net.load_state_dict(initial)
            with reference_paths(path == "reference"):
                wall, cpu, losses[path] = _run(task, batches, clip, place, precision, seed)
            if repeat:
                times[path]["wall"].append(wall)
                times[path]["cpu"].append(cpu)
        differences += [
            abs(fast - ref) / max(abs(ref), 1e-12)
            for ref, fast in zip(losses["reference"], losses["fast"], strict=True)
        ]
    docs = sum(len(batch["n_sentences"]) for batch in batches)
    ratios = {
        clock: statistics.median(
            ref / fast for ref, fast in zip(times["reference"][clock], times["fast"][clock],
                                            strict=True)  # fmt: skip
        )
        for clock in ("wall", "cpu")
    }
    return {
        "status": "ok",
        "model": cfg.model.name,
        "threads": torch.get_num_threads(),
        "steps": len(batches),
        "docs_per_step": round(docs / len(batches), 1),
        "tokens_per_step": round(sum(int(b["token_lengths"].sum()) for b in batches)
                                 / len(batches)),  # fmt: skip
        "docs_per_s": {
            path: round(docs / statistics.median(times[path]["wall"]), 1) for path in PATHS
        },
        "step_ms": {
            path: round(1000 * statistics.median(times[path]["wall"]) / len(batches), 1)
            for path in PATHS
        },
        "speedup_wall": round(ratios["wall"], 2),
        "speedup_cpu": round(ratios["cpu"], 2),
        "speedups_wall": [
            round(ref / fast, 2)
            for ref, fast in zip(times["reference"]["wall"], times["fast"]["wall"], strict=True)
        ],
        "max_loss_relative_difference": float(f"{max(differences):.2e}"),
    }


def paper_table(results: dict) -> str:
    """Markdown table of `compare_paths` records by experiment."""
    lines = [
        "| experiment | docs/step | reference docs/s | fast docs/s | speed-up (wall) "
        "| speed-up (CPU time) | repeats | loss difference |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name, result in results.items():
        if result.get("status") != "ok":
            lines.append(f"| {name} | {result.get('status')}: {result.get('error', '')} |")
            continue
        docs = result["docs_per_s"]
        lines.append(
            f"| {name} | {result['docs_per_step']} | {docs['reference']} | {docs['fast']} "
            f"| **{result['speedup_wall']}x** | {result['speedup_cpu']}x "
            f"| {', '.join(map(str, result['speedups_wall']))} "
            f"| {result['max_loss_relative_difference']:.1e} |"
        )
    return "\n".join(lines)
