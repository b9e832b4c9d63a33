"""The GPU cost of the pretrained paragraph encoders on NIPS, as an estimate from counted
FLOPs: the runs' all-MiniLM-L6-v2 and a BERT-base-shaped encoder (the cluster setting,
docs/models.md, "Pretrained paragraph encoders").

For each head (`--experiment`: by default the presets of the NIPS page's pretrained rows) and each
encoder, on K batches of the NIPS training split spread over an epoch (the DataModule's own
loader), one thread: the FLOPs (`torch.utils.flop_counter`: matrix products and attention;
elementwise work is not counted) and the ATen operators of a whole training step (loss,
backward, AdamW step), then of a validation forward pass. The GPU time they imply, per step
`operators x LAUNCH_SECONDS + FLOPs / GPU_FLOPS` (the constants of the NIPS page,
`studies.cui2018.nips`: one kernel launch per operator, 30 % of an H100's float32 peak), for
BERSON's published NIPS budget (20 epochs, batch 8) and the training-state memory (weights,
gradients and AdamW's two moments in float32). An estimate, not a measurement: no GPU was
used. BERT-base's weights are not on this machine (nothing is fetched from a hub): its
shape is built with random weights and MiniLM's tokenizer into a temporary folder
(`benchmark.bench.shaped_encoder`), which gives the real model's FLOPs. The GPU check
measures the same preset on a GPU (`paragraph_minilm`, `paragraph_bert_bf16`).

    ORDERBENCH_DATASETS=../shared/datasets python scripts/estimate_paragraph_gpu.py \
        [--batches 4] [--experiment preset_paragraph_listmle ...] \
        [--out results/bench/paragraph-gpu-estimate.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path

import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmark.bench.profile import OpCounter
from benchmark.bench.shaped_encoder import shape_folder
from benchmark.config.compose import compose_config
from benchmark.records.atomic_io import atomic_write_text
from benchmark.run.stages import build_datamodule, build_task
from models.blocks.pretrained import resolve_model_path
from studies.cui2018.nips import pretrained_sweep
from studies.cui2018.nips_cost import (
    BERT_BASE_SHAPE,
    BUNDLED_ENCODER,
    GPU_FLOPS,
    LAUNCH_SECONDS,
    gpu_step_seconds,
)

BERSON_EPOCHS = 20  # BERSON's published NIPS recipe (docs/models.md)
STATE_BYTES_PER_PARAMETER = 16  # float32 weight, gradient and AdamW's two moments


def counted(call) -> tuple[int, int]:
    """(FLOPs, ATen operators) of `call()`."""
    flops, ops = FlopCounterMode(display=False), OpCounter()
    with flops, ops:
        call()
    return flops.get_total_flops(), ops.count


def estimate(overrides: list[str], batches: int, encoder: str) -> dict:
    """The counted step and forward pass of one encoder's config (named `encoder` in the
    record), and what they imply."""
    cfg = compose_config(overrides)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    datamodule.set_epoch(0)
    train, val = list(datamodule.train_dataloader()), list(datamodule.val_dataloader())
    sample = train[:: max(1, len(train) // batches)][:batches]
    torch.manual_seed(cfg.seed)
    net = build_task(cfg, datamodule).net.train()
    optimizer = torch.optim.AdamW(net.parameters(), lr=float(cfg.model.optimizer.lr))

    def step(batch: dict) -> None:
        optimizer.zero_grad(set_to_none=True)
        net.loss(batch).backward()
        optimizer.step()

    started = time.process_time()
    steps = [counted(lambda b=batch: step(b)) for batch in sample]
    cpu_s = (time.process_time() - started) / len(sample)
    docs = sum(len(batch["texts"]) for batch in sample)
    net.eval()
    with torch.no_grad():
        forward = counted(lambda: net.loss(val[0]))
    per_doc = {"train_flops": sum(f for f, _ in steps) / docs,
               "valid_flops": forward[0] / len(val[0]["texts"])}  # fmt: skip
    step_ops = sum(o for _, o in steps) / len(steps)
    batch_size, n_train, n_valid = int(cfg.model.batch_size), len(train), len(val)
    train_docs, valid_docs = len(datamodule.documents["train"]), len(datamodule.documents["valid"])
    epoch_s = (gpu_step_seconds(n_train * step_ops, train_docs * per_doc["train_flops"])
               + gpu_step_seconds(n_valid * forward[1], valid_docs * per_doc["valid_flops"]))
    parameters = sum(p.numel() for p in net.parameters())
    return {
        "preset": str(cfg.model.name),
        "encoder": encoder,
        "parameters": parameters,
        "batch_size": batch_size, "train_batches": n_train, "valid_batches": n_valid,
        "counted_batches": len(sample), "counted_docs": docs,
        "train_flops_per_doc": round(per_doc["train_flops"]),
        "valid_flops_per_doc": round(per_doc["valid_flops"]),
        "aten_ops_per_step": round(step_ops), "aten_ops_per_valid_batch": forward[1],
        "cpu_seconds_per_counted_step": round(cpu_s, 2),
        "estimate": {
            "gpu_seconds_per_epoch": round(epoch_s, 1),
            f"gpu_minutes_{BERSON_EPOCHS}_epochs": round(BERSON_EPOCHS * epoch_s / 60, 1),
            "training_state_gib": round(parameters * STATE_BYTES_PER_PARAMETER / 2**30, 2),
        },
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=4, help="K training batches counted")
    parser.add_argument("--experiment", nargs="+",  # the NIPS page's pretrained rows
                        default=[f"preset_{p}" for p in pretrained_sweep().presets],
                        help="the experiments (conf/experiment) of the heads counted")
    parser.add_argument("--out", help="where to write the record (JSON)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        bert = shape_folder("bert-base", resolve_model_path(None), Path(folder))
        for experiment in args.experiment:
            base = ["+reproduce=nips", f"+experiment={experiment}", "cpu_threads=1"]
            rows += [estimate(base, args.batches, BUNDLED_ENCODER),
                     estimate([*base, f"++model.net.encoder={bert}"], args.batches,
                              BERT_BASE_SHAPE)]  # fmt: skip
    record = {
        "what": "an estimate from counted FLOPs and operators, not a GPU measurement",
        "command": "python scripts/estimate_paragraph_gpu.py "
                   f"--batches {args.batches} --experiment {' '.join(args.experiment)}",
        "constants": {"launch_seconds": LAUNCH_SECONDS, "gpu_flops": GPU_FLOPS,
                      "epochs": BERSON_EPOCHS},
        "load_average": round(os.getloadavg()[0], 2),
        "encoders": rows,
    }  # fmt: skip
    text = json.dumps(record, indent=1)
    print(text)
    if args.out:
        atomic_write_text(Path(args.out), text + "\n")
    if not all(math.isfinite(r["estimate"]["gpu_seconds_per_epoch"]) for r in rows):
        raise SystemExit("the estimate is not finite")


if __name__ == "__main__":
    main()
