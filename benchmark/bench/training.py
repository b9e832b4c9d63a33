"""Training throughput on the real data path, and the share of it spent loading data.

Batches come from the DataModule's own training loader (fresh permutations, length-aware
batches, `data/sampler.py`), as in `python -m benchmark.train`; a step is what the
LightningModule does per batch: the model's loss, backward, gradient clipping at the
trainer's `gradient_clip_val`, the optimiser step. Lightning's own per-step bookkeeping
(logging, callbacks) is left out. After `warmup` steps, `steps` steps are timed, each
split into loading (the loader's next batch, moved to the device) and the model step.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import torch

from benchmark.bench.machine import peak_memory_mb, reset_peak_memory
from benchmark.bench.timing import autocast, synchronize
from models.batch import to_device


def training_throughput(
    task,
    datamodule,
    device: torch.device,
    precision: str,
    steps: int,
    warmup: int,
    clip: float | None,
) -> dict:
    """Documents and real tokens per second over `steps` timed steps of `task.net`, the
    loading share of the time, and the phase's peak memory."""
    net = task.net.to(device).train()
    optimizer = task.configure_optimizers()
    if isinstance(optimizer, dict):  # with a learning-rate schedule (not stepped here)
        optimizer = optimizer["optimizer"]
    batches = _epochs(datamodule)
    reset_peak_memory(device)
    load = step = 0.0
    docs = tokens = 0
    for index in range(warmup + steps):
        start = time.perf_counter()
        batch = to_device(next(batches), device)
        synchronize(device)
        loaded = time.perf_counter()
        with autocast(device, precision):
            loss = net.loss(batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()
        synchronize(device)
        if index >= warmup:
            load += loaded - start
            step += time.perf_counter() - loaded
            docs += len(batch["n_sentences"])
            tokens += int(batch["token_lengths"].sum())
    total = load + step
    return {
        "steps": steps,
        "docs_per_s": round(docs / total, 1),
        "tokens_per_s": round(tokens / total),
        "step_ms": round(1000 * step / steps, 1),
        "load_ms": round(1000 * load / steps, 2),
        "load_share": round(load / total, 4),
        "docs_per_step": round(docs / steps, 1),
        "peak_memory_mb": peak_memory_mb(device),
    }


def _epochs(datamodule) -> Iterator[dict]:
    """The training loader's batches, epoch after epoch."""
    for epoch in itertools.count():
        datamodule.set_epoch(epoch)
        yield from datamodule.train_dataloader()
