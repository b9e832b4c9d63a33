"""Training throughput of the paper-size presets on NIPS-like documents, the fast compute
paths against the reference paths (`models.compute_paths`), both in one process.

For each experiment (`conf/experiment/<name>.yaml`, the published sizes and optimiser),
`steps` training batches spread over an epoch of NIPS-like documents
(`benchmark.bench.nips_like`, the DataModule's own length-aware batches) are run as the
harness runs them (loss, backward, clipping, optimiser step; `benchmark.bench.parts.
plain_step`; all but the first step of a run timed), once on each path per repeat, from
the same initial weights, a fresh optimiser and the same seed, the two paths alternating
which goes first. Each repeat
gives the ratio of the two times (wall clock, and the process's CPU time, which a loaded
machine disturbs less); the figures are the medians over repeats. The losses of the two
paths on the same steps must agree (the largest relative difference is recorded): the
ratio is taken at equal outputs. With `compiled`, a third path runs the fast paths with
the optimiser's update compiled (`compile: true`, `benchmark.training.compiled_optimizer`;
its first round compiles, untimed).
"""

from __future__ import annotations

import copy
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

import torch

from benchmark.bench.nips_like import write_nips_like
from benchmark.bench.parts import plain_step
from benchmark.bench.timing import autocast, synchronize
from benchmark.training.compiled_optimizer import compile_update
from models.batch import to_device
from models.compute_paths import reference_paths

PATHS = ("reference", "fast")


def _optimizer(task):
    optimizer = task.configure_optimizers()
    return optimizer["optimizer"] if isinstance(optimizer, dict) else optimizer


def _run(task, batches: list[dict], clip, device: torch.device, precision: str, seed: int,
         optimizer=None):  # fmt: skip
    """Wall and CPU seconds of the steps on `batches` after the first (which creates the
    optimiser's state, and with a compiled update compiles again), from a fresh optimiser
    (or `optimizer` with its state cleared), and the losses of all steps."""
    if optimizer is None:
        optimizer = _optimizer(task)
    optimizer.state.clear()
    torch.manual_seed(seed)
    losses, wall, cpu = [], 0.0, 0.0
    for index, batch in enumerate(batches):
        synchronize(device)
        start, start_cpu = time.perf_counter(), time.process_time()
        mixed = partial(autocast, device, precision)
        losses.append(float(plain_step(task.net, batch, optimizer, clip, mixed)))
        synchronize(device)
        if index or len(batches) == 1:
            wall += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
    return wall, cpu, losses


def compare_paths(
    experiment: str,
    steps: int,
    repeats: int,
    device: str = "cpu",
    precision: str = "32",
    seed: int = 0,
    scale: float = 1.0,
    compiled: bool = False,
) -> dict:
    """The record of one experiment (see the module docstring); `scale` shrinks the
    NIPS-like splits (tests)."""
    paths = (*PATHS, "compiled") if compiled else PATHS
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
    fused = compile_update(_optimizer(task)) if compiled else None
    times = {path: {"wall": [], "cpu": []} for path in paths}
    differences = {path: [] for path in paths[1:]}
    for repeat in range(repeats + 1):  # the first round warms the paths up, untimed
        order = paths if repeat % 2 == 0 else paths[::-1]
        losses = {}
        for path in order:
            task.net.load_state_dict(initial)
            optimizer = fused if path == "compiled" else None
            with reference_paths(path == "reference"):
                wall, cpu, losses[path] = _run(
                    task, batches, clip, place, precision, seed, optimizer
                )
            if repeat:
                times[path]["wall"].append(wall)
                times[path]["cpu"].append(cpu)
        for path in paths[1:]:
            differences[path] += [
                abs(other - ref) / max(abs(ref), 1e-12)
                for ref, other in zip(losses["reference"], losses[path], strict=True)
            ]
    timed = batches[1:] or batches  # the first step of each run is not timed
    docs = sum(len(batch["n_sentences"]) for batch in timed)

    def speedups(path: str, clock: str) -> list[float]:
        return [ref / other for ref, other in zip(times["reference"][clock], times[path][clock],
                                                 strict=True)]  # fmt: skip

    ratios = {clock: statistics.median(speedups("fast", clock)) for clock in ("wall", "cpu")}
    record = {
        "status": "ok",
        "model": cfg.model.name,
        "threads": torch.get_num_threads(),
        "steps": len(batches),
        "docs_per_step": round(docs / len(timed), 1),
        "tokens_per_step": round(sum(int(b["token_lengths"].sum()) for b in timed)
                                 / len(timed)),  # fmt: skip
        "docs_per_s": {
            path: round(docs / statistics.median(times[path]["wall"]), 1) for path in paths
        },
        "step_ms": {
            path: round(1000 * statistics.median(times[path]["wall"]) / len(timed), 1)
            for path in paths
        },
        "speedup_wall": round(ratios["wall"], 2),
        "speedup_cpu": round(ratios["cpu"], 2),
        "speedups_wall": [round(ratio, 2) for ratio in speedups("fast", "wall")],
        "max_loss_relative_difference": float(f"{max(differences['fast']):.2e}"),
    }
    if compiled:
        record["compiled"] = {
            "speedup_wall": round(statistics.median(speedups("compiled", "wall")), 2),
            "speedup_cpu": round(statistics.median(speedups("compiled", "cpu")), 2),
            "max_loss_relative_difference": float(f"{max(differences['compiled']):.2e}"),
        }
    return record


def paper_table(results: dict) -> str:
    """Markdown table of `compare_paths` records by experiment."""
    compiled = any("compiled" in result for result in results.values())
    lines = [
        "| experiment | docs/step | reference docs/s | fast docs/s | speed-up (wall) "
        "| speed-up (CPU time) | repeats | loss difference |"
        + (" + compiled update (wall, CPU) |" if compiled else ""),
        "|---|---:|---:|---:|---:|---:|---|---:|" + ("---:|" if compiled else ""),
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
            + (f" {result['compiled']['speedup_wall']}x, {result['compiled']['speedup_cpu']}x |"
               if "compiled" in result else "")  # fmt: skip
        )
    return "\n".join(lines)
