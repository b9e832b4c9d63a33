"""Where the training time of the paper-size presets goes: `orderbench bench profile
[key=value ...]` (`benchmark.cli_commands.BENCH_PROFILE`).

For each experiment (`conf/experiment/<name>.yaml`, the published settings) on NIPS-like
documents (`benchmark.bench.nips_like`; or a JSONL directory, `path=`), one thread: one
training epoch through the DataModule's own loader, every step split into its parts
(`benchmark.bench.parts`: word embedding, sentence encoder, paragraph encoder, pointer
decoder, loss, optimiser step; forward and backward of each), the time spent getting
batches (`loading`), the padding of the batches, then one validation pass at the
preset's validation beam, split the same way. Plain steps (`net.loss` + backward + step,
as the harness runs them) on a sample of the batches check that splitting the step does
not change its total. The FLOPs of one training step (`torch.utils.flop_counter`: matrix
products, convolutions and attention; the LSTMs' through the formula of `LSTM_FLOPS`;
elementwise work is not counted) are counted per part on a sample of batches, with the
ATen operators a step runs (on a GPU about one kernel launch each, which bounds a small
model's step time from below whatever its FLOPs).

Prints the table and writes the record (machine, load average, settings, figures) to
`out`. `reference=true` profiles the reference compute paths (`models.compute_paths`),
the code before docs/performance.md's training changes.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from benchmark.bench.machine import load_average, machine_info
from benchmark.bench.nips_like import write_nips_like
from benchmark.bench.parts import (
    PARTS,
    PartClock,
    padding_counts,
    padding_shares,
    plain_step,
    staged_decode,
    staged_step,
)
from benchmark.bench.timing import autocast
from benchmark.cli_arguments import UsageError
from benchmark.cli_commands import BENCH_PROFILE
from benchmark.config.compose import compose_config
from benchmark.config.config_folders import group_files
from benchmark.records.atomic_io import atomic_write_text
from benchmark.run.stages import build_datamodule, build_task
from models.batch import to_device
from models.compute_paths import reference_paths


def _lstm_flops(input_shape, w_ih_shape, w_hh_shape, backward: bool) -> int:
    """One LSTM layer in one direction: 2 * tokens * 4H * (I + H) forward (input and
    recurrent products), twice that backward (input and state gradients, and the weight
    gradients)."""
    tokens = 1
    for size in input_shape[:-1]:
        tokens *= size
    gates, width = w_ih_shape
    flops = 2 * tokens * gates * (width + w_hh_shape[1])
    return 2 * flops if backward else flops


def _rnn_forward(input, w_ih, w_hh, *args, out_shape=None, **kwargs) -> int:
    return _lstm_flops(input, w_ih, w_hh, backward=False)


def _rnn_backward(input, w_ih, w_hh, *args, out_shape=None, **kwargs) -> int:
    return _lstm_flops(input, w_ih, w_hh, backward=True)


# PyTorch's flop counter has no formula for the fused CPU LSTM layer
LSTM_FLOPS = {
    torch.ops.aten.mkldnn_rnn_layer: _rnn_forward,
    torch.ops.aten.mkldnn_rnn_layer_backward: _rnn_backward,
}


class OpCounter(TorchDispatchMode):
    """Counts the ATen operators run (on a GPU, about one kernel launch each)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


class PartFlops:
    """FLOPs (`torch.utils.flop_counter.FlopCounterMode`, with `LSTM_FLOPS`) and ATen
    operators per part."""

    def __init__(self):
        self.flops: dict[str, int] = defaultdict(int)
        self.ops: dict[str, int] = defaultdict(int)

    @contextmanager
    def __call__(self, part: str):
        counter, ops = FlopCounterMode(display=False, custom_mapping=LSTM_FLOPS), OpCounter()
        with counter, ops:
            yield
        self.flops[part] += counter.get_total_flops()
        self.ops[part] += ops.count


def parse_args(argv: Sequence[str]) -> dict:
    """The arguments (`BENCH_PROFILE`), checked against conf/experiment/ and the device."""
    args = BENCH_PROFILE.parse(argv)
    known = [path.stem for path in group_files("experiment")]
    experiments = args["experiments"]
    if unknown := [name for name in experiments if name not in known]:
        raise UsageError(f"unknown experiment(s) {unknown}; known: {', '.join(known)}")
    device = args["device"]
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("device=cuda but PyTorch sees no GPU")
    try:
        scale = float(args["scale"])
    except ValueError:
        scale = 0.0
    if not 0 < scale <= 1:
        raise UsageError(f"scale must be a number in (0, 1], got {args['scale']!r}")
    return {
        **args,
        "experiments": experiments,
        "scale": scale,
        "out": Path(args["out"] or f"results/bench/profile-{device}.json"),
    }


def spread(items: list, count: int) -> list:
    """`count` evenly spaced items of `items` (all when `count` is 0 or too large)."""
    if not count or count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


def build(experiment: str, path: Path, seed: int, cache: Path):
    """Config, DataModule (set up) and task of `experiment` on the JSONL data at `path`;
    random word vectors of the config's width (the cost does not depend on their values)."""
    cfg = compose_config([
        f"+experiment={experiment}", "dataset=jsonl", f"dataset.path={path}",
        "model.embeddings=null", f"++dataset.datamodule.cache_dir={cache}", f"seed={seed}",
    ])  # fmt: skip
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    torch.manual_seed(cfg.seed)
    return cfg, datamodule, build_task(cfg, datamodule)


def _shares_of(device: torch.device) -> str:
    """Which clock the shares come from: process CPU time for one thread on the CPU (a
    shared machine's load disturbs it less), else wall time."""
    return "cpu" if device.type == "cpu" and torch.get_num_threads() == 1 else "wall"


def _shares(seconds: dict[str, float]) -> dict[str, float]:
    total = sum(seconds.values())
    return {part: round(value / total, 4) for part, value in seconds.items()}


def profile_experiment(experiment: str, settings: dict, path: Path, cache: Path) -> dict:
    """The record of one experiment (see the module docstring)."""
    device = torch.device(settings["device"])
    cfg, datamodule, task = build(experiment, path, settings["seed"], cache)
    net = task.net.to(device)
    optimizer = task.configure_optimizers()
    optimizer = optimizer["optimizer"] if isinstance(optimizer, dict) else optimizer
    clip = cfg.trainer.get("gradient_clip_val")
    mixed = partial(autocast, device, settings["precision"])

    datamodule.set_epoch(0)
    loader, fetched = iter(datamodule.train_dataloader()), []
    start, cpu = time.perf_counter(), time.process_time()
    for batch in loader:  # the whole epoch's batches
        fetched.append(to_device(batch, device))
    loading, loading_cpu = time.perf_counter() - start, time.process_time() - cpu
    chosen = spread(fetched, settings["train_batches"])
    counts = defaultdict(int)
    for batch in fetched:
        for key, value in padding_counts(batch).items():
            counts[key] += value
    clock = PartClock(device)
    net.train()
    losses = [float(staged_step(net, batch, optimizer, clip, clock, mixed)) for batch in chosen]
    scale = len(fetched) / len(chosen)  # extrapolation to the epoch when sampled
    train = {part: clock.seconds.get(part, 0.0) * scale for part in PARTS}
    train["loading"] = loading
    train_cpu = {part: clock.cpu_seconds.get(part, 0.0) * scale for part in PARTS}
    train_cpu["loading"] = loading_cpu
    docs = sum(len(batch["n_sentences"]) for batch in fetched)

    plain = spread(fetched, settings["plain_batches"])
    staged_clock = PartClock(device)
    plain_seconds = 0.0
    for batch in plain:  # alternating, same batches: the cost of cutting the step
        staged_step(net, batch, optimizer, clip, staged_clock, mixed)
        start = time.perf_counter()
        plain_step(net, batch, optimizer, clip, mixed)
        plain_seconds += time.perf_counter() - start

    flops = PartFlops()
    flop_sample = spread(fetched, settings["flop_batches"])
    for batch in flop_sample:
        staged_step(net, batch, optimizer, clip, flops, mixed)
    step_flops = {part: flops.flops.get(part, 0) / len(flop_sample) for part in PARTS[:-1]}

    net.eval()
    start, cpu = time.perf_counter(), time.process_time()
    val_batches = [to_device(batch, device) for batch in datamodule.val_dataloader()]
    val_loading, val_loading_cpu = time.perf_counter() - start, time.process_time() - cpu
    val_chosen = spread(val_batches, settings["val_batches"])
    val_clock = PartClock(device)
    beam = cfg.model.val_beam_size
    for batch in val_chosen:
        staged_decode(net, batch, beam, val_clock, mixed)
    val_scale = len(val_batches) / len(val_chosen)
    valid = {part: val_clock.seconds.get(part, 0.0) * val_scale for part in PARTS}
    valid["loading"] = val_loading
    valid_cpu = {part: val_clock.cpu_seconds.get(part, 0.0) * val_scale for part in PARTS}
    valid_cpu["loading"] = val_loading_cpu
    shared = _shares_of(device)
    val_docs = sum(len(batch["n_sentences"]) for batch in val_batches)
    return {
        "model": cfg.model.name,
        "shares_of": shared,
        "batch_size": cfg.model.batch_size,
        "val_beam_size": beam,
        "parameters": sum(p.numel() for p in net.parameters() if p.requires_grad),
        "train": {
            "batches": len(fetched),
            "profiled_batches": len(chosen),
            "docs": docs,
            "seconds": {part: round(value, 3) for part, value in train.items()},
            "cpu_seconds": {part: round(value, 3) for part, value in train_cpu.items()},
            "shares": _shares(train_cpu if shared == "cpu" else train),
            "epoch_s": round(sum(train.values()), 2),
            "epoch_cpu_s": round(sum(train_cpu.values()), 2),
            "docs_per_s": round(docs / sum(train.values()), 1),
            "padding": padding_shares(counts),
            "mean_loss": round(sum(losses) / len(losses), 4),
            "staged_over_plain": round(sum(staged_clock.seconds.values()) / plain_seconds, 3),
        },
        "valid": {
            "batches": len(val_batches),
            "profiled_batches": len(val_chosen),
            "docs": val_docs,
            "seconds": {part: round(value, 3) for part, value in valid.items()},
            "cpu_seconds": {part: round(value, 3) for part, value in valid_cpu.items()},
            "shares": _shares(valid_cpu if shared == "cpu" else valid),
            "pass_s": round(sum(valid.values()), 2),
            "pass_cpu_s": round(sum(valid_cpu.values()), 2),
        },
        "flops_per_step": {
            "batches": len(flop_sample),
            "docs_per_step": round(sum(len(b["n_sentences"]) for b in flop_sample)
                                   / len(flop_sample), 1),  # fmt: skip
            "by_part": {part: round(value) for part, value in step_flops.items()},
            "total": round(sum(step_flops.values())),
            "per_epoch_estimate": round(sum(step_flops.values()) * len(fetched)),
            "aten_ops": round(sum(flops.ops.values()) / len(flop_sample)),
        },
    }


TRAIN_COLUMNS = ("loading", "embedding", "sentence", "paragraph", "decoder", "loss", "optimiser")


def table(record: dict) -> str:
    """Markdown tables: training epoch shares, validation shares, FLOPs per step."""
    lines = [
        "| experiment | epoch s (CPU s) | docs/s | " + " | ".join(TRAIN_COLUMNS)
        + " | token padding | in real sentences | staged/plain |",
        "|---" * (len(TRAIN_COLUMNS) + 6) + "|",
    ]
    rows = record["experiments"].items()
    for name, result in rows:
        train = result["train"]
        shares = [f"{100 * train['shares'][part]:.1f}%" for part in TRAIN_COLUMNS]
        padding = train["padding"]
        lines.append(
            f"| {name} | {train['epoch_s']} ({train['epoch_cpu_s']}) | {train['docs_per_s']} | "
            + " | ".join(shares)
            + f" | {100 * padding['tokens']:.1f}% | {100 * padding['tokens_in_sentences']:.1f}%"
            f" | {train['staged_over_plain']} |"
        )
    valid_columns = ("loading", "embedding", "sentence", "paragraph", "decoder")
    lines += ["", "| experiment | validation s (CPU s) | beam | " + " | ".join(valid_columns)
              + " |",
              "|---" * (len(valid_columns) + 3) + "|"]  # fmt: skip
    for name, result in rows:
        valid = result["valid"]
        shares = [f"{100 * valid['shares'][part]:.1f}%" for part in valid_columns]
        lines.append(f"| {name} | {valid['pass_s']} ({valid['pass_cpu_s']}) | "
                     f"{result['val_beam_size']} | "
                     + " | ".join(shares) + " |")  # fmt: skip
    flop_parts = PARTS[:-1]
    lines += ["", "| experiment | GFLOP per step | docs/step | ATen ops per step | "
              + " | ".join(flop_parts) + " |", "|---" * (len(flop_parts) + 4) + "|"]  # fmt: skip
    for name, result in rows:
        flops = result["flops_per_step"]
        parts = [f"{flops['by_part'][part] / 1e9:.2f}" for part in flop_parts]
        lines.append(f"| {name} | {flops['total'] / 1e9:.2f} | {flops['docs_per_step']} | "
                     f"{flops['aten_ops']} | " + " | ".join(parts) + " |")  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH_PROFILE.run(argv, _profile, parse_args)


def _profile(settings: dict) -> int:
    """Profile each experiment of `settings`, write the record to settings["out"]."""
    torch.set_num_threads(settings["threads"])
    device = torch.device(settings["device"])
    record = {
        "machine": {**machine_info(device), "load_average_before": load_average()},
        "settings": {**settings, "out": str(settings["out"])},
        "experiments": {},
    }
    paths = reference_paths() if settings["reference"] else nullcontext()
    with tempfile.TemporaryDirectory() as scratch, paths:
        path = settings["path"] or write_nips_like(
            Path(scratch) / "nips_like", settings["seed"], settings["scale"]
        )
        for experiment in settings["experiments"]:
            print(f"profile: {experiment} ...", file=sys.stderr, flush=True)
            record["experiments"][experiment] = profile_experiment(
                experiment, settings, path, Path(scratch) / "cache"
            )
            record["machine"]["load_average_after"] = load_average()
            atomic_write_text(settings["out"], json.dumps(record, indent=2) + "\n")
    print(table(record))
    print(f"written: {settings['out']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
