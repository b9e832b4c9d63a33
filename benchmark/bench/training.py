"""Training throughput on the real data path, and the share of it spent loading data.

Batches come from the DataModule's own training loader (fresh permutations, length-aware
batches, `data/sampler.py`), as in `python -m benchmark.train`; a step is what the
LightningModule does per batch: the model's loss, backward, gradient clipping at the
trainer's `gradient_clip_val`, the optimiser step. Lightning's own per-step bookkeeping
(logging, callbacks) is left out. After `warmup` steps, `steps` steps are timed, each
split into loading (the loader's next batch, moved to the device) and the model step. With
`cuda_graphs`, the loss is the one `cuda_graphs: true` trains with
(`benchmark.training.cuda_graphs`: bucketed batches, CUDA graphs on a GPU); each batch is
prepared on the host as the LightningModule's `on_before_batch_transfer` prepares it
(`models.batch.prepare_batch`), which counts as loading; the warm-up
then records the graphs of the shapes it meets, and the figures say how many shapes were
met in all and during the timed steps (a new one there is recorded, and timed, too).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import torch

from benchmark.bench.machine import peak_memory_mb, reset_peak_memory
from benchmark.bench.timing import autocast, synchronize
from benchmark.training.cuda_graphs import CompiledLoss
from models.batch import prepare_batch, to_device


def training_throughput(
    task,
    datamodule,
    device: torch.device,
    precision: str,
    steps: int,
    warmup: int,
    clip: float | None,
    cuda_graphs: bool = False,
) -> dict:
    """Documents and real tokens per second over `steps` timed steps of `task.net`, the
    loading share of the time, and the phase's peak memory."""
    net = task.net.to(device).train()
    captured = CompiledLoss(net, device.type, cuda_graphs=True) if cuda_graphs else None
    loss_of = captured or net.loss
    optimizer = task.configure_optimizers()
    if isinstance(optimizer, dict):  # with a learning-rate schedule (not stepped here)
        optimizer = optimizer["optimizer"]
    batches = training_batches(datamodule)

    def autocasted(batch: dict) -> torch.Tensor:
        with autocast(device, precision):
            return loss_of(batch)

    reset_peak_memory(device)
    load = step = 0.0
    docs = tokens = 0
    warmup_started = time.perf_counter()
    warmed_shapes = 0
    for index in range(warmup + steps):
        if index == warmup:
            warmup_s = time.perf_counter() - warmup_started
            warmed_shapes = len(captured.shapes) if captured else 0
        start = time.perf_counter()
        batch = next(batches)  # prepared on the host, as the LightningModule's hook does
        batch = captured.prepare(batch) if captured else prepare_batch(
            net, batch, buckets=device.type == "cpu")  # fmt: skip
        batch = to_device(batch, device)
        synchronize(device)
        loaded = time.perf_counter()
        train_step(autocasted, net, optimizer, batch, clip)
        synchronize(device)
        if index >= warmup:
            load += loaded - start
            step += time.perf_counter() - loaded
            docs += len(batch["n_sentences"])
            tokens += int(batch["token_lengths"].sum())
    total = load + step
    graphs = {}
    if cuda_graphs:
        graphs = {"cuda_graphs": {"captured": captured.captures, "shapes": len(captured.shapes),
                                  "new_shapes_timed": len(captured.shapes) - warmed_shapes,
                                  "warmup_s": round(warmup_s, 2)}}  # fmt: skip
    return {
        "steps": steps,
        "docs_per_s": round(docs / total, 1),
        "tokens_per_s": round(tokens / total),
        "step_ms": round(1000 * step / steps, 1),
        "load_ms": round(1000 * load / steps, 2),
        "load_share": round(load / total, 4),
        "docs_per_step": round(docs / steps, 1),
        "peak_memory_mb": peak_memory_mb(device),
        **graphs,
    }


def train_step(loss_of, net, optimizer, batch: dict, clip: float | None) -> torch.Tensor:
    """One training step as the LightningModule takes it: `loss_of(batch)` (the loss,
    compiled or not), backward, gradient clipping at `clip` (None: none), the optimiser's
    update -> the loss."""
    loss = loss_of(batch)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if clip:
        torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
    optimizer.step()
    return loss


def training_batches(datamodule) -> Iterator[dict]:
    """The training loader's batches, epoch after epoch."""
    for epoch in itertools.count():
        datamodule.set_epoch(epoch)
        yield from datamodule.train_dataloader()
