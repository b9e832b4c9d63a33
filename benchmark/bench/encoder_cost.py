"""`orderbench bench encoder`: what a training step of a pretrained paragraph encoder costs
on real NIPS abstracts, today's path beside the cheaper ones, in one run.

For each encoder (`model.net.encoder`: minilm, mpnet, a folder) and each path, the real
training batches of the NIPS training split (its nseg folder; a folder of train/valid/test
JSONL is read as such, for tests) (the suite's reader and sampler, batch 8 as
BERSON's recipe) are trained on for `steps` timed steps after `warmup` (loss, backward,
AdamW step, as `OrderingTask.training_step`), from the same initial weights:

- `shape, 32`: today's path: batches grouped by (sentences, longest sentence), float32;
- `tokens, 32`: batches grouped by the documents' word tokens (`bucket_by=tokens`);
- `tokens, bf16`: the same under bf16 autocast, only where the CPU has bf16 instructions
  (`benchmark.config.precision.cpu_has_bf16`; `precisions=32,bf16` forces it elsewhere,
  where it runs PyTorch's slower kernels);
- with `compiled=true`, the last of these again with its loss compiled as `compile=true`
  trains it (`benchmark.training.cuda_graphs.CompiledLoss`: inductor, batches padded to a
  few sentence counts): the steps that compiled graphs (warm-up included) are counted
  apart, as compile seconds, and the step figures are those of the steps that compiled
  nothing.

Each path reports wall and CPU seconds per step (means of the timed steps; the CPU seconds
are the process's, steadier on a shared machine), its batches' padding measured over the
whole epoch with the encoder's own tokenizer (joined input tokens padded / real), the
epoch's CPU minutes (mean CPU step x batches) and their ratio to today's path. The CPU
model and its bf16 instructions are named beside the figures; nothing is checked against a
bound.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import torch

from benchmark.bench.compile import CountingBackend
from benchmark.bench.machine import cpu_model
from benchmark.bench.table import markdown_table
from benchmark.config.precision import bf16_autocast, cpu_has_bf16
from benchmark.training.cuda_graphs import CompiledLoss
from data.collate import collate
from data.ordering_data import OrderingData
from data.readers.jsonl import JsonlReader
from data.readers.nips import NipsReader
from data.sampler import BucketBatchSampler

PATHS = (("shape", "32", "eager"), ("tokens", "32", "eager"), ("tokens", "bf16", "eager"))
BATCH = 8  # BERSON's NIPS batch


def training_split(nips: Path):
    """The NIPS training split (an nseg folder, or a folder of train/valid/test JSONL)."""
    reader = JsonlReader(str(nips)) if (nips / "train.jsonl").is_file() else NipsReader(str(nips))
    data = OrderingData(reader, "nips", batch_size=BATCH)
    data.setup()
    return data.datasets["train"]


def epoch_batches(dataset, bucket_by: str, seed: int) -> list[list[tuple[int, int]]]:
    return list(BucketBatchSampler(dataset.sizes(bucket_by), BATCH, shuffle=True, seed=seed))


def padding(encoder, dataset, batches, fixed_shapes: bool = False) -> tuple[int, int]:
    """(joined input tokens as the encoder pads them, real joined tokens) over `batches`;
    `fixed_shapes`: padded as for a compiled step (`text_inputs`)."""
    padded = real = 0
    for batch in batches:
        texts = [list(dataset.documents[index].sentences) for index, _ in batch]
        inputs = encoder.text_inputs(texts, max(map(len, texts)), fixed_shapes)
        padded += inputs["input_ids"].numel()
        real += int(inputs["lengths"].sum())
    return padded, real


def time_path(net, dataset, batches, steps: int, warmup: int, bf16: bool,
              compiled: bool = False) -> list[tuple[float, float, int]]:
    """(wall, CPU seconds, graphs compiled) of each training step over the first warmup +
    steps batches, the warm-up's included (CPU seconds: the process's, steadier than the
    wall clock on a shared machine); `compiled`: the loss compiled (`CompiledLoss`)."""
    optimizer = torch.optim.AdamW(net.parameters(), lr=5e-5, weight_decay=0.01)
    net.train()
    backend = CountingBackend("inductor") if compiled else None
    loss_of = CompiledLoss(net, "cpu", backend=backend) if compiled else net.loss
    times = []
    for batch in batches[: warmup + steps]:
        inputs = collate([dataset[key] for key in batch])
        graphs = backend.graphs if backend else 0
        start, cpu = time.perf_counter(), time.process_time()
        with bf16_autocast("cpu", bf16):
            loss = loss_of(inputs)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        times.append((time.perf_counter() - start, time.process_time() - cpu,
                      (backend.graphs if backend else 0) - graphs))
    return times


def encoder_rows(name: str, nips: Path, preset: str, paths, steps: int, warmup: int,
                 seed: int) -> list[dict]:
    """One row per path of `name` under `preset`."""
    from models.registry import get_preset

    dataset = training_split(nips)
    torch.manual_seed(seed)
    initial = get_preset(preset).build(None, encoder=name).state_dict()
    rows, base = [], None
    for bucket_by, precision, step in paths:
        torch.manual_seed(seed)
        torch._dynamo.reset()
        net = get_preset(preset).build(None, encoder=name)
        net.load_state_dict(initial)
        batches = epoch_batches(dataset, bucket_by, seed)
        padded, real = padding(net.sentence_encoder, dataset, batches, step == "compiled")
        times = time_path(net, dataset, batches, steps, warmup, precision == "bf16",
                          compiled=step == "compiled")
        steady = [(wall, cpu) for wall, cpu, graphs in times[warmup:] if not graphs]
        if not steady:
            raise SystemExit(f"bench encoder: {name} {bucket_by} {precision} {step}: every "
                             f"timed step compiled graphs; give it more steps (steps={steps})")
        wall, cpu = ([one[k] for one in steady] for k in (0, 1))
        epoch = statistics.mean(cpu) * len(batches)  # CPU seconds of an epoch's steps
        base = base or epoch
        rows.append({
            "encoder": name, "bucket_by": bucket_by, "precision": precision, "step": step,
            "step_s_mean": round(statistics.mean(wall), 3),
            "step_cpu_s_mean": round(statistics.mean(cpu), 3), "steps": len(steady),
            "compile_s": round(sum(one[0] for one in times if one[2]), 1),
            "padded_per_real": round(padded / real, 3), "batches": len(batches),
            "epoch_cpu_min": round(epoch / 60, 1), "ratio": round(base / epoch, 2),
        })
        print(f"  {name} {bucket_by} {precision} {step}: {rows[-1]['step_cpu_s_mean']} CPU s "
              f"a step, padding x{rows[-1]['padded_per_real']}", file=sys.stderr, flush=True)
    return rows


def main(encoders: list[str], nips: str, preset: str = "paragraph_ptrnet",
         precisions: list[str] | None = None, steps: int = 8, warmup: int = 2,
         threads: int | None = None, seed: int = 0, compiled: bool = False,
         out: str | None = None) -> int:
    """Print the table (and write it as JSON to `out`)."""
    if threads:
        torch.set_num_threads(threads)
    bf16 = cpu_has_bf16()
    wanted = precisions or (["32", "bf16"] if bf16 else ["32"])
    paths = [path for path in PATHS if path[1] in wanted]
    if compiled:
        paths.append((*paths[-1][:2], "compiled"))
    cpu = f"{cpu_model()}, bf16 instructions: {'yes' if bf16 else 'no'}, " \
        f"{torch.get_num_threads()} threads"
    print(f"bench encoder: {cpu}", file=sys.stderr)
    rows = []
    for name in encoders:
        rows += encoder_rows(name, Path(nips), preset, paths, steps, warmup, seed)
    columns = ["encoder", "bucket_by", "precision", "step", "step_s_mean", "step_cpu_s_mean",
               "compile_s", "padded_per_real", "batches", "epoch_cpu_min", "ratio"]
    print(f"{preset}, NIPS training batches of {BATCH}, {cpu}")
    print(markdown_table(columns, [[str(row[c]) for c in columns] for row in rows]))
    if out:
        Path(out).write_text(json.dumps({"cpu": cpu, "preset": preset, "rows": rows}, indent=1))
    return 0
