"""`orderbench bench compile` (`make bench-compile`): how much of each preset's training
step the compiler takes whole, and what compiling it buys on this machine.

For every trained preset (`models/families/*/conf/model`) and `*_paper` experiment
(`models/families/*/conf/experiment`), at its own settings, on the NIPS abstracts
(`+reproduce=nips`; NIPS-like synthetic ones of the same lengths where the corpus is not at
hand, `benchmark.bench.nips_like`), one thread, random
word vectors of the configured width (the cost does not depend on their values):

- **eager**: `steps` training batches of the first epoch (the DataModule's own loader:
  length-aware batches, real NIPS shapes), each one training step as the LightningModule
  takes it on this CPU (`benchmark.bench.training.train_step`: the loss, backward,
  clipping, the optimiser's update); the second step (the first creates the optimiser's
  state) counted with `benchmark.bench.host_syncs.HostSyncs`: its host synchronisations,
  each with its operator and line, and its ATen operators; seconds a step (median over the
  steps after the first); and a step as a GPU takes it, counted the same way
  (`gpu_path`: one call for all sentences, the fused or multi-tensor update);
- **graphs**: `torch._dynamo.explain` over `net.loss(batch)` (what
  `OrderingTask.training_step` calls) on the first batch: the graphs, and each graph
  break with its reason and the suite's line where it happened; a crash of the tracer is
  recorded as such;
- **compiled** (`compiled=true`): the same batches again through the loss compiled by
  `torch.compile` (inductor): the graphs compiled at each step, so the recompilations
  after the first step (the graphs compiled again, and the steps at which that happened,
  each with the batch shape that caused it: with three sentence buckets, at most two
  such steps), the seconds of the
  steps that compiled, and the seconds a step of those that did not (median), beside the
  eager figure. With `compiled=false` the loss is traced with the `eager` backend instead,
  which gives the recompilations at a fraction of the cost, but no compiled timing.

Each target runs in a fresh process (`isolate`), so the compiler's caches and the memory
are its own. Prints a table and writes the record (machine, load average, settings, every
figure) after each target, by default into results/bench/ as `compile-<date>.json`.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import torch

from benchmark.bench.host_syncs import HostSyncs
from benchmark.bench.machine import load_average, machine_info
from benchmark.bench.nips_like import write_nips_like
from benchmark.bench.training import train_step, training_batches
from benchmark.cli_arguments import UsageError
from benchmark.cli_commands import BENCH_COMPILE, PAPER_EXPERIMENTS
from benchmark.config.compose import compose_config
from benchmark.config.config_folders import SOURCE_ROOT as ROOT
from benchmark.config.config_folders import group_files
from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.run_record import git_commit
from benchmark.training.cuda_graphs import CompiledLoss
from benchmark.training.optimisation import parameter_groups, sync_free
from models.batch import PREPARED, prepare_batch
from models.blocks.eager_lstm import EAGER_LSTM

NIPS_FOLDER = "nips_nseg"  # under $ORDERBENCH_DATASETS
STORE_OFF = {  # the pretrained encoders' vector stores off: no state from earlier runs
    "minilm_ptrnet": ["++model.net.minilm_store=null"],
    "minilm_finetune": ["++model.net.encoder_store=null"],
}
# the breaks at an nn.LSTM, which PyTorch does not trace: at a call kept eager
# (`models.blocks.eager_lstm`), or PyTorch's own at any other access to one
ALLOWED_BREAKS = (EAGER_LSTM, "Attempted to wrap RNN, GRU, or LSTM")


def default_targets() -> list[str]:
    """Every trained preset with a model YAML (models/families/*/conf/model), then the
    `*_paper` experiments."""
    from models.registry import preset_names

    configured = {path.stem for path in group_files("model")}
    return [*(name for name in preset_names(trainable=True) if name in configured),
            *PAPER_EXPERIMENTS]  # fmt: skip


def parse_args(argv: Sequence[str]) -> dict:
    """The arguments (`BENCH_COMPILE`), the targets checked against the config folders."""
    args = BENCH_COMPILE.parse(argv)
    known = {path.stem for path in group_files("model")} | set(PAPER_EXPERIMENTS)
    targets = args["targets"] or default_targets()
    if unknown := [name for name in targets if name not in known]:
        raise UsageError(f"unknown target(s) {unknown}; known: {', '.join(sorted(known))}")
    nips = Path(args["nips"]) if args["nips"] else _found_nips()
    if args["nips"] and not (nips / "train.lower").is_file():
        raise UsageError(f"nips={nips}: no NIPS abstracts (train.lower) there")
    day = time.strftime("%Y-%m-%d")
    return {**args, "targets": targets, "nips": nips,
            "out": Path(args["out"] or f"results/bench/compile-{day}.json")}  # fmt: skip


def _found_nips() -> Path | None:
    folder = Path(os.environ.get("ORDERBENCH_DATASETS", ROOT.parent / "shared/datasets"))
    folder = folder / NIPS_FOLDER
    return folder if (folder / "train.lower").is_file() else None


def target_overrides(target: str, nips: Path | None, synthetic: Path | None) -> list[str]:
    """The config of `target` (a preset or an experiment) on the NIPS abstracts at `nips`,
    else on the NIPS-like JSONL folder `synthetic`."""
    chosen = [f"+experiment={target}"] if target in PAPER_EXPERIMENTS else [f"model={target}"]
    data = (["+reproduce=nips", f"dataset.path={nips}"] if nips is not None
            else ["dataset=jsonl", f"dataset.path={synthetic}"])  # fmt: skip
    return [*chosen, *data, "model.embeddings=null", *STORE_OFF.get(target, [])]


def build(target: str, settings: dict, synthetic: Path | None):
    """Config, DataModule (set up) and task of `target`."""
    from benchmark.run.stages import build_datamodule, build_task

    cfg = compose_config([*target_overrides(target, settings["nips"], synthetic),
                          f"seed={settings['seed']}"])  # fmt: skip
    torch.manual_seed(cfg.seed)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    return cfg, datamodule, build_task(cfg, datamodule)


def optimizer_of(task) -> torch.optim.Optimizer:
    """The task's optimiser (its schedule, if any, is not stepped here)."""
    optimizer = task.configure_optimizers()
    return optimizer["optimizer"] if isinstance(optimizer, dict) else optimizer


def host_resident(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    """The optimiser's step counts that PyTorch keeps on the host whatever the device
    (neither `capturable` nor `fused`): reading them synchronises nothing."""
    on_device = any(group.get("capturable") or group.get("fused")
                    for group in optimizer.param_groups)  # fmt: skip
    steps = (state.get("step") for state in optimizer.state.values())
    return [] if on_device else [step for step in steps if isinstance(step, torch.Tensor)]


def _shape(batch: dict) -> list[int]:
    return list(batch["tokens"].shape)


def eager_pass(task, loader_batches: list[dict], clip: float | None) -> dict:
    """The eager steps: seconds, and the second step's syncs and operators."""
    net = task.net.train()
    task.compile_step = task.cuda_graphs = False
    optimizer = optimizer_of(task)
    batches = [task.host_side(batch, training=True) for batch in loader_batches]
    times, counted = [], None
    for index, batch in enumerate(batches):
        start = time.perf_counter()
        if index == 1:
            with HostSyncs(host=host_resident(optimizer)) as counted:
                train_step(net.loss, net, optimizer, batch, clip)
        else:
            train_step(net.loss, net, optimizer, batch, clip)
        times.append(time.perf_counter() - start)
    return {
        "s_per_step": round(statistics.median(times[1:] or times), 4),
        "buckets": "length buckets planned on the host" if batches[0][PREPARED].get("plan")
        else "one call",
        "host_syncs": counted.count if counted else None,
        "host_syncs_by_line": dict(counted.found.most_common()) if counted else {},
        "operators_per_step": counted.operators if counted else None,
        "counted_shape": _shape(batches[1]) if counted else None,
        "gpu_path": gpu_path(task, loader_batches, clip),
    }


def gpu_path(task, loader_batches: list[dict], clip: float | None) -> dict:
    """The syncs and operators of a step as a GPU takes it, counted here: one call for all
    sentences (no length buckets) and the update a GPU gets (`sync_free`: fused or
    multi-tensor), the second of two steps."""
    net = task.net.train()
    params = parameter_groups(net)
    optimizer = sync_free(task.optimizer_factory, params, torch.device("cuda"))
    batches = [prepare_batch(net, batch, buckets=False) for batch in loader_batches[:2]]
    train_step(net.loss, net, optimizer, batches[0], clip)
    with HostSyncs(host=host_resident(optimizer)) as counted:
        train_step(net.loss, net, optimizer, batches[-1], clip)
    return {"host_syncs": counted.count, "operators_per_step": counted.operators,
            "update": "fused" if optimizer.defaults.get("fused") else "foreach"
            if optimizer.defaults.get("foreach") else "per tensor"}  # fmt: skip


def lstm_break(reason: str) -> bool:
    """Whether a graph break is one at an nn.LSTM (`ALLOWED_BREAKS`)."""
    return any(allowed in reason for allowed in ALLOWED_BREAKS)


def _reason(text: str) -> str:
    """A break's reason in one line: its first line, and the eager LSTM's name where it
    is one."""
    first = text.strip().splitlines()[0][:200]
    return f"{first} ({EAGER_LSTM})" if EAGER_LSTM in text else first


def _frame(reason) -> str:
    """The innermost frame of the suite's code in a break's user stack."""
    for frame in reversed(reason.user_stack or []):
        path = Path(frame.filename)
        if path.is_relative_to(ROOT) and ".venv" not in path.parts:
            return f"{path.relative_to(ROOT)}:{frame.lineno}"
    return "outside the suite"


def graphs(task, loader_batch: dict) -> dict:
    """`torch._dynamo.explain` of `net.loss(batch)`, the batch prepared for the default
    (eager) step: graphs, breaks with reasons."""
    torch._dynamo.reset()
    net, batch = task.net, task.host_side(loader_batch, training=True)
    try:
        explained = torch._dynamo.explain(net.loss)(batch)
    except Exception as error:  # the tracer's own crash, recorded
        return {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"}
    breaks = [{"reason": _reason(reason.reason), "where": _frame(reason)}
              for reason in explained.break_reasons]  # fmt: skip
    return {
        "graphs": explained.graph_count,
        "breaks": len(breaks),
        "break_reasons": breaks,
        "breaks_outside_lstm": sum(not lstm_break(item["reason"]) for item in breaks),
        "graph_operators": explained.op_count,
    }


def padding(batches: list[dict]) -> dict:
    """The share of padded positions of the batches' (B, N, T) token tensors and (B, N)
    sentence slots."""
    tokens = sum(batch["tokens"].numel() for batch in batches)
    slots = sum(batch["sentence_mask"].numel() for batch in batches)
    real_tokens = sum(int(batch["token_lengths"].sum()) for batch in batches)
    real_slots = sum(int(batch["sentence_mask"].sum()) for batch in batches)
    return {"tokens": round(1 - real_tokens / tokens, 4),
            "sentences": round(1 - real_slots / slots, 4)}


class CountingBackend:
    """A `torch.compile` backend that counts the graphs it is given, then hands them to
    `backend` (inductor, or eager: tracing alone)."""

    def __init__(self, backend: str):
        self.graphs = 0
        self.backend = torch._dynamo.lookup_backend(backend)

    def __call__(self, graph, example_inputs):
        self.graphs += 1
        return self.backend(graph, example_inputs)


def compiled_pass(task, loader_batches: list[dict], clip: float | None, inductor: bool) -> dict:
    """The same steps as `compile: true` trains them (the loss compiled, batches padded to
    their buckets; the update compiled where the learning rate is constant): graphs
    compiled at each step, the recompilations after the first, seconds of the steps that
    compiled and of the others."""
    torch._dynamo.reset()
    net = task.net.train()
    backend = CountingBackend("inductor" if inductor else "eager")
    loss_of = CompiledLoss(net, "cpu", backend=backend)
    task.compile_step = inductor  # the update compiled too
    optimizer = optimizer_of(task)
    batches = [loss_of.prepare(batch) for batch in loader_batches]  # as the task's host side
    compiling, steady, recompiled = [], [], []
    first = 0
    for index, batch in enumerate(batches):
        before = backend.graphs
        start = time.perf_counter()
        try:
            train_step(loss_of, net, optimizer, batch, clip)
        except Exception as error:
            return {"error": f"step {index}: {type(error).__name__}: "
                             f"{str(error).splitlines()[0][:300]}"}  # fmt: skip
        seconds = time.perf_counter() - start
        new = backend.graphs - before
        if index == 0:
            first = new
        elif new:
            recompiled.append({"step": index, "graphs": new, "shape": _shape(batch)})
        (compiling if new else steady).append(seconds)
    result = {
        "backend": "inductor" if inductor else "eager",
        "shapes": len(loss_of.shapes),
        "padding": padding(batches),
        "graphs_first_step": first,
        "recompilations": sum(item["graphs"] for item in recompiled),
        "recompiling_steps": len(recompiled),
        "recompiled_at": recompiled,
        "steps": len(batches),
    }
    if inductor:
        result["compile_steps_s"] = round(sum(compiling), 2)
        result["s_per_step"] = round(statistics.median(steady), 4) if steady else None
    return result


def measure(target: str, settings: dict, synthetic: Path | None) -> dict:
    """Every figure of one target (module docstring)."""
    torch.set_num_threads(settings["threads"])
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # breaks: in the record
    cfg, datamodule, task = build(target, settings, synthetic)
    batches = []
    for batch in training_batches(datamodule):
        batches.append(batch)
        if len(batches) == settings["steps"]:
            break
    clip = cfg.trainer.get("gradient_clip_val")
    net = task.net
    result = {
        "status": "ok",
        "batch_size": cfg.model.batch_size,
        "shapes": len({tuple(_shape(batch)) for batch in batches}),
        "trainable_params": sum(p.numel() for p in net.parameters() if p.requires_grad),
    }
    result["padding"] = padding(batches)
    result["eager"] = eager_pass(task, batches, clip)
    result["explain"] = graphs(task, batches[0])
    result["compiled"] = compiled_pass(task, batches, clip, settings["compiled"])
    eager, compiled = result["eager"]["s_per_step"], result["compiled"].get("s_per_step")
    if eager and compiled:
        result["compiled_speedup"] = round(eager / compiled, 2)
    return result


def run_target(target: str, settings: dict, synthetic: Path | None) -> dict:
    """`measure`, in a fresh process when `isolate`; a failure is recorded, not raised."""
    try:
        if not settings["isolate"]:
            return measure(target, settings, synthetic)
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            return pool.submit(measure, target, settings, synthetic).result()
    except Exception as error:
        traceback.print_exc()
        return {"status": "failed", "error": f"{type(error).__name__}: {error}"}


def table(record: dict) -> str:
    """One Markdown row per target."""
    lines = ["| target | graphs | breaks (outside nn.LSTM) | recompilations (steps) | host syncs | "
             "operators a step | eager s/step | compiled s/step |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for name, result in record["targets"].items():
        if result.get("status") != "ok":
            lines.append(f"| {name} | {result.get('status')}: {result.get('error', '')} |")
            continue
        explained, compiled, eager = result["explain"], result["compiled"], result["eager"]
        graph = ("tracer crash | —" if "error" in explained else
                 f"{explained['graphs']} | {explained['breaks']} "
                 f"({explained['breaks_outside_lstm']})")  # fmt: skip
        recompiles = (f"{compiled['recompilations']} ({compiled['recompiling_steps']})"
                      if "recompilations" in compiled else "error")
        lines.append(f"| {name} | {graph} | {recompiles} | {eager['host_syncs']} | "
                     f"{eager['operators_per_step']} | {eager['s_per_step']} | "
                     f"{compiled.get('s_per_step', compiled.get('error', '—'))} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH_COMPILE.run(argv, _bench, parse_args)


def _bench(settings: dict) -> int:
    torch.set_num_threads(settings["threads"])
    record = {
        "machine": {**machine_info(torch.device("cpu")), "load_average_before": load_average(),
                    "bf16": torch.backends.mkldnn.is_available()
                    and torch.ops.mkldnn._is_mkldnn_bf16_supported()},
        "commit": git_commit(),  # the code measured
        "settings": {**settings, "nips": str(settings["nips"]), "out": str(settings["out"])},
        "data": "NIPS abstracts" if settings["nips"] else "NIPS-like synthetic abstracts",
        "targets": {},
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        synthetic = None if settings["nips"] else write_nips_like(Path(scratch) / "nips_like")
        for target in settings["targets"]:
            print(f"bench compile: {target} ...", file=sys.stderr, flush=True)
            record["targets"][target] = run_target(target, settings, synthetic)
            record["machine"]["load_average_after"] = load_average()
            atomic_write_text(settings["out"], json.dumps(record, indent=2) + "\n")
    print(table(record))
    print(f"written: {settings['out']}", file=sys.stderr)
    failed = [name for name, result in record["targets"].items() if result["status"] != "ok"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
