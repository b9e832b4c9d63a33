"""The NIPS page's cost section: each row's CPU seconds to its selected epoch and in all,
its peak memory (the run records' `resources`; `benchmark.training.resources`), the CPU
models its runs were timed on, an estimate (marked as one) of its training time on one GPU
from the committed profile, and the cheapest complete row that reaches the SE-Graph log's
tau.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchmark.records.run_collection import Run
from studies.cui2018.nips_kept import marked
from studies.cui2018.published import NSEG

CPU_SEPARATOR = "; "  # between the CPU models of a row in the table's `cpu_models`
# The GPU estimate of docs/performance.md ("FLOPs per training step, and GPU time"): per
# optimiser step, one kernel launch of LAUNCH_SECONDS per ATen operator plus the step's
# FLOPs at GPU_FLOPS (30% of an H100's float32 peak), from the reference paths' profile on
# NIPS-like batches (`orderbench bench profile`; a GPU takes the reference paths).
PROFILE = Path(__file__).resolve().parents[2] / "results/bench/profile-cpu-flops-reference.json"
# the pretrained paragraph encoders' counted FLOPs on NIPS training batches, MiniLM's and a
# BERT-base shape's (`python scripts/estimate_paragraph_gpu.py`)
PARAGRAPH_ESTIMATE = PROFILE.parent / "paragraph-gpu-estimate.json"
# the same preset measured on a GPU: the GPU check's `paragraph_bert` step (`make gpu-check`)
GPU_CHECK = PROFILE.parent / "gpu-check-cuda-benches.json"
# the names of its two encoders: the runs' own, and BERT-base's shape (the cluster setting)
BUNDLED_ENCODER = "all-MiniLM-L6-v2 (bundled)"
BERT_BASE_SHAPE = "BERT-base shape (BertConfig defaults, random weights)"
LAUNCH_SECONDS, GPU_FLOPS = 10e-6, 20e12
MEMORY_MARK = " ‡"  # after the peak memory of a row whose seeds ran under memory variables


def _every_epoch_counted(cost: dict | None, epochs: int | None) -> bool:
    per_epoch = (cost or {}).get("cpu_seconds_per_epoch") or []
    return len(per_epoch) == epochs and all(seconds is not None for seconds in per_epoch)


def gpu_training_seconds(run: Run, profile: dict) -> float:
    """An estimate, not a measurement: the run's optimiser steps on one GPU (training only,
    no validation or test decoding), from the profile of its preset's paper-size experiment
    (the profiled experiment whose `model` is the run's preset: `orderbench bench profile`
    profiles `benchmark.cli_commands.PAPER_EXPERIMENTS`) or, for a pretrained paragraph
    encoder, the count of its own encoder's steps, its FLOPs per step scaled to the run's
    batch size; NaN for a preset not profiled."""
    steps = run.record.get("steps")
    experiment = next((entry for entry in profile.get("experiments", {}).values()
                       if entry.get("model") == run.preset), None)  # fmt: skip
    if experiment is not None:
        per_step = experiment["flops_per_step"]
        ops, per_doc = per_step["aten_ops"], per_step["total"] / per_step["docs_per_step"]
    elif (counted := _counted_encoder(run, profile)) is not None:
        ops, per_doc = counted["aten_ops_per_step"], counted["train_flops_per_doc"]
    else:
        return math.nan
    if not steps:
        return math.nan
    return steps * gpu_step_seconds(ops, per_doc * run.record["config"]["model"]["batch_size"])


def gpu_step_seconds(ops: float, flops: float) -> float:
    """The estimated GPU time of one pass: a kernel launch per ATen operator plus its FLOPs."""
    return ops * LAUNCH_SECONDS + flops / GPU_FLOPS


def _counted_encoder(run: Run, profile: dict) -> dict | None:
    """The paragraph estimate's entry of the run's preset with the run's encoder, if any."""
    encoder = run.record.get("config", {}).get("model", {}).get("net", {}).get("encoder")
    for entry in profile.get("paragraph", {}).get("encoders", []):
        if entry.get("preset") == run.preset and entry["encoder"] == (encoder or BUNDLED_ENCODER):
            return entry
    return None


def load_profile(
    path: Path = PROFILE, paragraph: Path = PARAGRAPH_ESTIMATE, gpu_check: Path = GPU_CHECK
) -> dict:
    """The committed profile (`results/bench`), or {} where it is absent, with the paragraph
    encoders' estimate under `paragraph` and the GPU check's record under `gpu_check` where
    those are committed."""
    profile = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for key, file in (("paragraph", paragraph), ("gpu_check", gpu_check)):
        if file.is_file():
            profile[key] = json.loads(file.read_text(encoding="utf-8"))
    return profile


def run_cost(runs: Sequence[Run], profile: dict) -> dict:
    """Mean CPU seconds to the selected epoch and in all, peak memory; where a record did
    not count every epoch (it predates `resources`, or was resumed from a checkpoint made
    before them), the CPU time is estimated from its training wall time (`estimated`: how
    many); the CPU models the runs were timed on (`environment.device_name`); how many ran
    under bounded memory settings (`environment.memory_variables`: they change the peak)."""
    to_selected, total, memory, estimated = [], [], [], 0
    for run in runs:
        cost = run.record.get("resources")
        if not run.record.get("epochs"):  # nothing to train (a rule)
            to_selected.append(0.0)
            total.append(0.0)
            memory.append((cost or {}).get("peak_rss_mb", math.nan))
            continue
        if _every_epoch_counted(cost, run.record.get("epochs")):
            to_selected.append(cost["cpu_seconds_to_selected"])
            total.append(cost["train_cpu_seconds"])
            memory.append(cost["peak_rss_mb"])
        else:
            share = (run.record.get("best_epoch") or 0) / run.record["epochs"]
            to_selected.append(run.record["train_seconds"] * share)
            total.append(run.record["train_seconds"])
            estimated += 1

    def mean(values: list) -> float:
        return float(np.mean(values)) if values else math.nan

    gpu = [gpu_training_seconds(run, profile) for run in runs]
    cpus = {name for run in runs if (name := run.record.get("environment", {}).get("device_name"))}
    return {"cpu_s_to_selected": mean(to_selected), "cpu_s_total": mean(total),
            "peak_rss_mb": mean(memory), "cost_estimated": estimated,
            "cpu_models": CPU_SEPARATOR.join(sorted(cpus)),
            "memory_settings": sum(bool(run.record.get("environment", {}).get("memory_variables"))
                                   for run in runs),
            "wall_s_sum": float(sum(run.record.get("train_seconds") or 0 for run in runs)),
            "gpu_s_estimate": mean(gpu)}  # fmt: skip


def shown(value, digits: int) -> str:
    """A figure with `digits` decimals; — where there is none."""
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.{digits}f}"


def short_commit(commit: str) -> str:
    """A record's `git_commit` in 12 hex digits, keeping its `+dirty` mark."""
    head, plus, mark = commit.partition("+")
    return head[:12] + plus + mark


def bert_base_lines(profile: dict) -> list[str]:
    """What the paragraph estimate says of a BERT-base-shaped encoder, if it holds one."""
    entries = profile.get("paragraph", {}).get("encoders", [])
    bert = next((e for e in entries if e["encoder"] == BERT_BASE_SHAPE), None)
    if bert is None:
        return []
    minilm = next((e for e in entries if e["encoder"] == BUNDLED_ENCODER
                   and e["preset"] == bert["preset"]), None)
    ratio = f" ({bert['train_flops_per_doc'] / minilm['train_flops_per_doc']:.1f} times " \
        "MiniLM's)" if minilm else ""
    estimate, gflops = bert["estimate"], bert["train_flops_per_doc"] / 1e9
    others = [f"`{e['preset']}` {e['estimate']['gpu_minutes_20_epochs']:.0f}"
              for e in entries if e["encoder"] == BERT_BASE_SHAPE and e is not bert]
    heads = f" (with the other heads: {', '.join(others)} GPU minutes)" if others else ""
    return ["", f"A BERT-base-shaped encoder in `{bert['preset']}` (the cluster setting, "
            f"{bert['parameters'] / 1e6:.0f} M parameters): {gflops:.0f} "
            f"GFLOPs per training document{ratio}; BERSON's NIPS budget of 20 epochs with "
            f"validation is about **{estimate['gpu_minutes_20_epochs']:.0f} GPU minutes**{heads}, "
            f"with {estimate['training_state_gib']:.1f} GiB of weights, gradients and AdamW "
            "moments before activations: an estimate from counted FLOPs, not a measurement.",
            *measured_bert_lines(profile, bert)]


def measured_bert_lines(profile: dict, bert: dict) -> list[str]:
    """The GPU check's measurement of the BERT-base shape beside its estimate, if any."""
    step = profile.get("gpu_check", {}).get("steps", {}).get("paragraph_bert", {})
    if step.get("status") != "ok":
        return []
    epochs = profile["paragraph"]["constants"]["epochs"]
    epoch_s = bert["train_batches"] * step["train_step_ms"] / 1000
    ratio = epoch_s / bert["estimate"]["gpu_seconds_per_epoch"]
    return ["", f"Measured since on one {step['gpu']} (`results/bench/{GPU_CHECK.name}`, the GPU "
            f"check's `paragraph_bert`: {bert['preset']}, BERT-base's shape, precision "
            f"{step['precision']}): {step['train_step_ms']:.0f} ms a training step, so "
            f"{epoch_s:.0f} s an epoch of training and **about {epochs * epoch_s / 60:.0f} GPU "
            f"minutes for {epochs} epochs**, {ratio:.1f} times the estimate's epoch; "
            f"{step['train_peak_memory_mib'] / 1024:.1f} GiB of GPU memory at its peak."]


def cost_lines(table: pd.DataFrame, min_runs: int) -> list[str]:
    """The cost table and the cheapest complete row (`min_runs` seeds) that reaches the
    SE-Graph log's tau; a row kept from the page's earlier table is marked †."""
    lines = [
        "CPU seconds of the run's process (all its PyTorch threads: one a run, unless its "
        "record's `resources.threads_per_epoch` says more) to the epoch selected on valid and "
        "for the whole training, mean over seeds, and the peak resident memory of the process; "
        "≈ marks rows whose records predate the CPU-time count (wall-time share instead); "
        "CPU models: how many different CPUs (each record's `environment.device_name`) "
        "a row's seeds were timed on.",
        "",
        "The last column is **an estimate, not a measurement** (no GPU was used): the run's "
        "training steps on one GPU at one kernel launch (10 µs) per operator plus its FLOPs at "
        "20 TFLOP/s, from the profile of the preset's paper-size experiment "
        "(`results/bench/profile-cpu-flops-reference.json`, docs/performance.md) or, for a "
        "pretrained paragraph encoder, the count of its own training steps on NIPS batches "
        "(`results/bench/paragraph-gpu-estimate.json`, "
        "`python scripts/estimate_paragraph_gpu.py`); "
        "training only, without validation and the beam-64 test decoding.",
        "",
        "| row | test tau | CPU s to selected | CPU s in all | peak memory MB "
        "| GPU s of training, estimate | CPU models |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for _, r in table.sort_values("cpu_s_to_selected").iterrows():
        mark = "≈ " if r["cost_estimated"] else ""
        short = f" ({r['runs']} of {min_runs} seeds)" if r["runs"] < min_runs else ""
        lines.append(
            f"| {marked(r)}{short} | {shown(r['tau_mean'], 3)} | "
            f"{mark}{shown(r['cpu_s_to_selected'], 0)} | {mark}{shown(r['cpu_s_total'], 0)} | "
            f"{shown(r['peak_rss_mb'], 0)}{MEMORY_MARK if _memory_set(r) else ''} | "
            f"{shown(r['gpu_s_estimate'], 0)} | "
            f"{len(_cpu_models(r)) or '—'} |"
        )
    if any(_memory_set(r) for _, r in table.iterrows()):
        lines += ["", f"{MEMORY_MARK.strip()}: a peak of seeds of which some or all ran "
                  "under bounded memory settings (`cpu_memory: bounded` or the shell's "
                  "variables, named in their records' `environment.memory_variables`: "
                  "docs/performance.md, \"The memory of a BERT-base-sized run\"), which "
                  "change the peak, not the figures."]
    lines += bert_base_lines(load_profile())
    hours = table["wall_s_sum"].sum() / 3600
    lines += ["", f"The {int(table['runs'].sum())} finished runs trained for {hours:.1f} hours in "
              "all (wall time, on 2 cores shared with the other sweeps and runs), decoding and "
              "order discrimination not counted."]
    reaching = table[(table["tau_mean"] >= NSEG.figure("tau")) & (table["runs"] >= min_runs)]
    if reaching.empty:
        lines += ["", f"No complete row reaches the SE-Graph log's tau {NSEG.figures['tau']} "
                  "on average."]
    else:
        cheapest = reaching.sort_values("cpu_s_to_selected").iloc[0]
        lines += ["", f"Cheapest complete row at or above the SE-Graph log's tau "
                  f"{NSEG.figures['tau']}: "
                  f"**{cheapest['row']}** ({shown(cheapest['cpu_s_to_selected'], 0)} CPU s)."]
        models = sorted({name for _, r in reaching.iterrows() for name in _cpu_models(r)})
        if len(models) > 1:
            lines[-1] += (f" The complete rows at or above that tau were timed on "
                          f"{len(models)} CPU models ({CPU_SEPARATOR.join(models)}): their "
                          "CPU seconds are not one unit, so the ranking is approximate between "
                          "rows timed on different CPUs (docs/reproduction_nips.md gives each "
                          "machine's seconds an epoch).")
    return lines


def _memory_set(row: pd.Series) -> bool:
    """Whether any seed of a row of the table ran under memory variables (a kept line: no)."""
    count = row.get("memory_settings")
    return isinstance(count, (int, float)) and not math.isnan(count) and count > 0


def _cpu_models(row: pd.Series) -> list[str]:
    """The CPU models a row of the table was timed on, as its records name them."""
    models = row.get("cpu_models")
    return [name for name in models.split(CPU_SEPARATOR) if name] if isinstance(models, str) \
        else []


