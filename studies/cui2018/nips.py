"""results/reproduction_nips.{md,csv}: the NIPS column of Cui et al. 2018, Table 3, on the
SE-Graph split of the NIPS abstracts, beside the published figures (`studies.cui2018.published`),
with the presets the paper did not have; what the page holds is said in this study's README.md
("The NIPS page").

    orderbench study cui2018-nips [runs=runs] [out=results] [variant=repro_e100]
        [presentations=0] [reference=attordernet]
        (`NIPS_COMMAND` of studies/cui2018/__init__.py)
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from benchmark.cli_arguments import report_error, warnings_printed
from benchmark.compare import compare_runs
from benchmark.config.compose import compose_config
from benchmark.config.identity import changed_keys, identity_config
from benchmark.presentation import PresentedDecoder, decode_presented
from benchmark.records.atomic_io import atomic_write_group
from benchmark.records.comparability import IncomparableRunsError, require_pairable
from benchmark.records.run_collection import Run, collect_runs
from benchmark.report.presentation_spread import presentation_figures, read_known
from benchmark.stats.multiple_testing import holm
from benchmark.stats.seeded_paired import compare_seeded, load_row, seeded_interval
from data.readers.nseg import SOURCE as NSEG_SOURCE
from studies.cui2018 import NIPS_COMMAND as COMMAND
from studies.cui2018 import NIPS_REFERENCE
from studies.cui2018.nips_presentation import PRESENTATION_CSV, presentation_lines
from studies.cui2018.published import MODELS, NIPS, NSEG_LABEL, NSEG_NIPS, Row

DATASET = "nips"
VARIANT = "repro_e100"
MIN_RUNS = 3
CPU_SEPARATOR = "; "  # between the CPU models of a row in the table's `cpu_models`
N_RESAMPLES = 10_000
METRICS = {"acc": 100.0, "pmr": 100.0, "tau": 1.0}  # figure -> scale shown (% for the first two)
NAMES = {"acc": "accuracy %", "pmr": "PMR %", "tau": "tau"}
CSV_NAME, MARKDOWN_NAME = "reproduction_nips.csv", "reproduction_nips.md"
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
PROFILED = {"attordernet": "attordernet_paper", "attordernet_att": "attordernet_att_paper",
            "attordernet_cnn": "attordernet_cnn_paper", "lstm_ptrnet": "lstm_ptrnet_paper",
            "cnn_ptrnet": "cnn_ptrnet_paper", "han": "han_paper"}  # fmt: skip
LAUNCH_SECONDS, GPU_FLOPS = 10e-6, 20e12

SWEEPS = Path(__file__).resolve().parent / "conf" / "sweep"
SWEEP = SWEEPS / "nips.yaml"  # the 2018-era rows, in order, at the page's budget (`variant`)
# the pretrained paragraph encoders' rows at a budget of their own (its sweep's `variant`)
PRETRAINED_SWEEP = SWEEPS / "nips_pretrained.yaml"
LABELS = {  # an experiment of the NIPS sweep, or a preset, -> its row's label
    "lstm_ptrnet_cui": "LSTM+PtrNet, batch 16, beam 64",
    "cnn_ptrnet_cui": "CNN+PtrNet, batch 16, beam 64",
    **{f"{preset}_paper": MODELS[preset] for preset in ("attordernet", "attordernet_att",
                                                         "attordernet_cnn")},
    "han_paper": "HAN (Wang and Wan 2019)",
    "preset_minilm_finetune": "MiniLM, top layer fine-tuned",
    "preset_pairwise_tsort": "pairwise + topological sort",
    "calibration_bow_position": "bag-of-words position (calibration)",
    "calibration_overlap_chain": "word-overlap chain (calibration, rule)",
    "paragraph_listmle": "pretrained paragraph encoder + ListMLE",
    "paragraph_ptrnet": "pretrained paragraph encoder + pointer",
    "paragraph_tsort": "pretrained paragraph encoder + topological sort",
}


def _listed(value) -> list[str]:
    return [name.strip() for name in str(value).split(",")]


def sweep_experiments() -> list[str]:
    """The experiments of the NIPS sweep (`+experiment` of
    studies/cui2018/conf/sweep/nips.yaml), in order: the one list of the study's models."""
    return _listed(yaml.safe_load(SWEEP.read_text())["hydra"]["sweeper"]["params"]["+experiment"])


@dataclass(frozen=True)
class PretrainedSweep:
    """The pretrained rows' sweep (studies/cui2018/conf/sweep/nips_pretrained.yaml)."""

    experiment: str  # its `+experiment`: the recipe
    presets: tuple[str, ...]  # its `model` list, in order: one row each
    variant: str  # the variant of its runs: the rows' own
    max_epochs: int
    patience: int

    def budget(self) -> str:
        """The page's sentence on these rows' budget."""
        return (f"The pretrained paragraph encoders: budget `{self.variant}` (`+experiment="
                f"{self.experiment}`, BERSON's published NIPS recipe): at most "
                f"{self.max_epochs} epochs with the learning rate decaying to zero at the last, "
                f"early stopping after {self.patience} and selection as above, chosen before "
                "any of their test figures (docs/reproduction_nips.md says why it is a fair "
                "comparison).")


@functools.cache
def pretrained_sweep() -> PretrainedSweep:
    """What the pretrained rows' sweep file says (read once: the rows and the page's budget
    sentence both ask)."""
    sweep = yaml.safe_load(PRETRAINED_SWEEP.read_text())
    params = sweep["hydra"]["sweeper"]["params"]
    return PretrainedSweep(str(params["+experiment"]), tuple(_listed(params["model"])),
                           str(sweep["variant"]), int(params["trainer.max_epochs"]),
                           int(params["early_stopping.patience"]))  # fmt: skip


@functools.cache
def rows() -> tuple[Row, ...]:
    """One row per experiment of the NIPS sweep (its preset and run tag, `variant_tag`, from
    the composed experiment, set beside the published figure of its preset if Cui et al.
    2018 report one), then one per preset of the pretrained sweep at that sweep's variant."""
    found = []
    for experiment in sweep_experiments():
        cfg = compose_config([f"+experiment={experiment}"])
        preset, tag = str(cfg.model.name), str(cfg.get("variant_tag") or "")
        paper = preset if preset in MODELS else None
        found.append(Row(LABELS.get(experiment, preset), preset, tag, paper))
    pretrained = pretrained_sweep()
    found += [Row(LABELS.get(preset, preset), preset, variant=pretrained.variant)
              for preset in pretrained.presets]
    return tuple(found)


def row_runs(runs: Sequence[Run], variant: str) -> dict[Row, list[Run]]:
    """The finished runs of every row (sorted by seed); a row without runs is absent."""
    found = {}
    for row in rows():
        members = [run for run in runs if run.dataset == DATASET and run.preset == row.preset
                   and run.variant == row.run_variant(variant)]  # fmt: skip
        if members:
            found[row] = sorted(members, key=lambda run: run.seed)
    return found


def _valid_tau(runs: Sequence[Run]) -> float:
    values = [run.record["split"].get("valid", {}).get("tau") for run in runs]
    values = [v for v in values if isinstance(v, (int, float))]
    return float(np.mean(values)) if values else math.nan


def _every_epoch_counted(cost: dict | None, epochs: int | None) -> bool:
    per_epoch = (cost or {}).get("cpu_seconds_per_epoch") or []
    return len(per_epoch) == epochs and all(seconds is not None for seconds in per_epoch)


def gpu_training_seconds(run: Run, profile: dict) -> float:
    """An estimate, not a measurement: the run's optimiser steps on one GPU (training only,
    no validation or test decoding), from the profile of its preset's paper-size experiment
    (or, for a pretrained paragraph encoder, the count of its own encoder's steps), its FLOPs
    per step scaled to the run's batch size; NaN for a preset not profiled."""
    steps = run.record.get("steps")
    experiment = profile.get("experiments", {}).get(PROFILED.get(run.preset, ""))
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


def _cost(runs: Sequence[Run], profile: dict) -> dict:
    """Mean CPU seconds to the selected epoch and in all, peak memory; where a record did
    not count every epoch (it predates `resources`, or was resumed from a checkpoint made
    before them), the CPU time is estimated from its training wall time (`estimated`: how
    many); the CPU models the runs were timed on (`environment.device_name`)."""
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
            "wall_s_sum": float(sum(run.record.get("train_seconds") or 0 for run in runs)),
            "gpu_s_estimate": mean(gpu)}  # fmt: skip


def build(runs: Sequence[Run], variant: str = VARIANT, n_resamples: int = N_RESAMPLES,
          reference: str = NIPS_REFERENCE) -> tuple[pd.DataFrame, dict]:
    """The table (one row per row of `rows()` with runs) and the paired tests against the
    row of the preset `reference` (checked first: a wrong key costs no bootstrap)."""
    presets = [row.preset for row in rows()]
    if reference not in presets:
        raise ValueError(f"reference={reference}: no row of the NIPS page has this preset "
                         f"(one of {', '.join(presets)})")
    groups = row_runs(runs, variant)
    records = []
    loaded = {}
    profile = load_profile()  # for the GPU estimates, read once
    for row, members in groups.items():
        loaded[row] = load_row(members)
        interval = seeded_interval(loaded[row], n_resamples, seed=0)
        entry = {"row": row.label, "preset": row.preset, "variant": row.run_variant(variant),
                 "runs": len(members), "seeds": ",".join(str(r.seed) for r in members),
                 "valid_tau": _valid_tau(members)}  # fmt: skip
        for metric, scale in METRICS.items():
            values = [r.metrics.get(metric, math.nan) * scale for r in members]
            cell = interval.get(metric, {})
            published = NIPS.get(row.paper, {}).get(metric) if row.paper else None
            mean = cell.get("mean", math.nan) * scale
            entry |= {
                f"{metric}_mean": mean,
                f"{metric}_std": float(np.std(values, ddof=1)) if len(values) > 1 else math.nan,
                f"{metric}_ci_low": cell.get("ci_low", math.nan) * scale,
                f"{metric}_ci_high": cell.get("ci_high", math.nan) * scale,
                f"{metric}_published": published,
                f"{metric}_diff": mean - published if published is not None else math.nan,
            }
        entry["stopped_by"] = ",".join(sorted({r.record.get("stopped_by", "?") for r in members}))
        entry["best_epoch"] = float(np.mean([r.record.get("best_epoch") or 0 for r in members]))
        entry |= _cost(members, profile)
        records.append(entry)
    table = pd.DataFrame(records)
    return table, paired_tests(groups, loaded, n_resamples, reference)


def paired_tests(groups: dict, loaded: dict, n_resamples: int, preset: str) -> dict:
    """Every complete row against the reference, the row of `preset` (named before any test
    figure), once it is complete: tau difference, interval, p and Holm's p."""
    complete = [row for row, members in groups.items() if len(members) >= MIN_RUNS]
    named = [row for row in complete if row.preset == preset]
    if not named:
        return {"reference": None, "reference_preset": preset, "tests": {}}
    (reference,) = named
    tests, order = {}, []
    for row in complete:
        if row == reference:
            continue
        try:
            require_pairable(row.label, groups[row][0].record, reference.label,
                             groups[reference][0].record)  # fmt: skip
            tests[row.label] = compare_seeded(loaded[row], loaded[reference], n_resamples)["tau"]
            order.append(row.label)
        except (IncomparableRunsError, ValueError) as error:
            tests[row.label] = {"error": str(error)}
    for label, p_holm in zip(order, holm([tests[label]["p"] for label in order]), strict=True):
        tests[label]["p_holm"] = float(p_holm)
    return {"reference": reference.label, "reference_preset": preset, "tests": tests}


# keys that name a run's place rather than what it computes (left out of "what changed")
PLACE_KEYS = ("variant", "variant_tag")


def ablation_pairs(runs: Sequence[Run], variant: str = VARIANT) -> list[tuple[Run, Run]]:
    """(row run, other run): each NIPS run of a row's preset whose variant is no row's (an
    ablation: one named change, run at the same budget), beside the row's run of its seed."""
    row_keys = {(row.preset, row.run_variant(variant)) for row in rows()}
    base = {(run.preset, run.variant, run.seed): run for run in runs
            if run.dataset == DATASET and (run.preset, run.variant) in row_keys}  # fmt: skip
    pairs = []
    for run in runs:
        if run.dataset != DATASET or (run.preset, run.variant) in row_keys:
            continue
        variants = [row.run_variant(variant) for row in rows() if row.preset == run.preset]
        match = next((base[key] for row_variant in variants
                      if (key := (run.preset, row_variant, run.seed)) in base), None)  # fmt: skip
        if match is not None:
            pairs.append((match, run))
    return sorted(pairs, key=lambda pair: (pair[1].preset, pair[1].variant, pair[1].seed))


def what_changed(base: Run, other: Run) -> str:
    """The config keys where `other` differs from `base`, as `key=value` (place keys out)."""
    changes = changed_keys(identity_config(base.record["config"]),
                           identity_config(other.record["config"]))  # fmt: skip
    changed = [f"{key}={now!r}" for key, _, now in changes if key.split(".")[0] not in PLACE_KEYS]
    return ", ".join(changed) or "nothing (a rerun)"


def ablation_table(runs: Sequence[Run], variant: str = VARIANT,
                   n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
    """One row per ablation run: tau of the row's run and of the ablation on the same seed,
    their difference paired on the test documents (one run a side: documents only)."""
    records = []
    for base, other in ablation_pairs(runs, variant):
        tau = compare_runs(other.path, base.path, n_resamples=n_resamples)["metrics"]["tau"]
        records.append({
            "preset": other.preset, "variant": other.variant, "seed": other.seed,
            "changed": what_changed(base, other), "base_variant": base.variant,
            "tau_base": tau["b"], "tau": tau["a"], "diff": tau["diff"],
            "ci_low": tau["ci_low"], "ci_high": tau["ci_high"], "p": tau["p_permutation"],
        })  # fmt: skip
    return pd.DataFrame(records)


def ablation_lines(ablations: pd.DataFrame) -> list[str]:
    """The ablation section of the page (nothing when there is no ablation run)."""
    if ablations.empty:
        return []
    lines = [
        "", "## Ablations", "",
        "Runs of a row's preset with one named change (`+ablation=...` or a key), at the same "
        "budget, beside the row's run of the same seed: tau, the difference paired on the "
        "test documents with its 95% interval and permutation p (one run a side, so document "
        "variation only; `orderbench compare` gives the same figures).",
        "",
        "| preset | variant | what changed | seed | tau, row's run | tau | Δ tau [95% CI] | p |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    for _, r in ablations.iterrows():
        lines.append(
            f"| {r['preset']} | `{r['variant']}` | `{r['changed']}` | {r['seed']} | "
            f"{r['tau_base']:.3f} | {r['tau']:.3f} | {r['diff']:+.3f} "
            f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['p']:.3g} |"
        )
    return lines


def _f(value, digits: int) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.{digits}f}"


def _cell(r: pd.Series, metric: str) -> str:
    digits = 2 if METRICS[metric] == 100.0 else 3
    text = _f(r[f"{metric}_mean"], digits)
    if r["runs"] > 1:  # one seed has no spread over seeds
        text += f" ± {_f(r[f'{metric}_std'], digits)}"
    text += f" [{_f(r[f'{metric}_ci_low'], digits)}, {_f(r[f'{metric}_ci_high'], digits)}]"
    published = r[f"{metric}_published"]
    if published is None or (isinstance(published, float) and math.isnan(published)):
        return text
    inside = " ✓" if r[f"{metric}_ci_low"] <= published <= r[f"{metric}_ci_high"] else ""
    return f"{text} vs {_f(published, digits)} ({r[f'{metric}_diff']:+.{digits}f}{inside})"


def markdown(table: pd.DataFrame, tests: dict, variant: str, commits: Sequence[str],
             ablations: pd.DataFrame | None = None, presentation: Sequence[str] = ()) -> str:
    """The page (`presentation`: its section of `nips_presentation.presentation_lines`)."""
    lines = [
        "# NIPS abstracts: Cui et al. 2018, Table 3, NIPS column",
        "",
        "Our runs on the NIPS abstracts of the SE-Graph split ("
        + " / ".join(f"{n:,}" for n in NSEG_SOURCE.sizes.values()) + " abstracts; "
        "`dataset=nips`, `+reproduce=nips`) beside Cui et al. 2018, Table 3 (accuracy %, tau; "
        "their split: 2,248 / 409 / 402) and the log of the SE-Graph authors' code on this "
        f"very split. Budget `{variant}`: at most 100 epochs, early stopping after 15 without a "
        "better valid tau, the same for every 2018-era preset, fixed before any test figure; "
        f"3 seeds. {pretrained_sweep().budget()} "
        "Each cell: mean ± std over seeds [95% interval over seeds and test documents] vs the "
        "published figure (ours - published; ✓: inside our interval).",
        "",
        "| row | runs | accuracy % | PMR % | tau | stopped | best epoch |",
        "|---|---:|---|---|---|---|---:|",
    ]
    by_label = {r["row"]: r for _, r in table.iterrows()}
    for row in rows():  # a row without a finished run is listed too, never left out
        r = by_label.get(row.label)
        if r is None:
            lines.append(f"| {row.label} | 0 of {MIN_RUNS} | — | — | — | — | — |")
            continue
        runs = f"{r['runs']} of {MIN_RUNS}" if r["runs"] < MIN_RUNS else str(r["runs"])
        lines.append(
            f"| {r['row']} | {runs} | {_cell(r, 'acc')} | {_cell(r, 'pmr')} | "
            f"{_cell(r, 'tau')} | {r['stopped_by']} | {r['best_epoch']:.1f} |"
        )
    lines.append(
        f"| {NSEG_LABEL} | — | {NSEG_NIPS['acc']:.2f} | {NSEG_NIPS['pmr']:.2f} | "
        f"{NSEG_NIPS['tau']:.4f} | — | — |"
    )
    lines += ["", "## Paired tests", ""]
    if tests["reference"] is None:
        lines.append(f"The reference row (`reference={tests['reference_preset']}`) has "
                     f"fewer than {MIN_RUNS} finished runs: nothing is compared yet.")
    else:
        lines += [
            f"Reference: **{tests['reference']}** (`reference={tests['reference_preset']}`, "
            "named before any test figure). Tau difference of each complete row from it, "
            "paired on the test documents, counting seed and document variation "
            "(`benchmark.stats.seeded_paired`), p-values Holm-corrected over the rows.",
            "",
            "| row | Δ tau [95% CI] | p | Holm p |",
            "|---|---|---:|---:|",
        ]
        for label, test in tests["tests"].items():
            if "error" in test:
                lines.append(f"| {label} | not compared: {test['error']} | | |")
                continue
            lines.append(
                f"| {label} | {test['diff']:+.3f} [{test['ci_low']:+.3f}, {test['ci_high']:+.3f}]"
                f" | {test['p']:.3g} | {test['p_holm']:.3g} |"
            )
    lines += ablation_lines(pd.DataFrame() if ablations is None else ablations)
    lines += list(presentation)
    lines += ["", "## Cost", ""] + cost_lines(table)
    lines += ["", "Made by `make nips` (the sweep, then `orderbench study cui2018-nips`) at "
              + ", ".join(f"`{short_commit(c)}`" for c in commits)
              + " (`+dirty`: made from a working tree with changes not committed)."]
    return "\n".join(lines) + "\n"


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


def cost_lines(table: pd.DataFrame) -> list[str]:
    """The cost table and the cheapest row that reaches the SE-Graph log's tau."""
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
        short = f" ({r['runs']} of {MIN_RUNS} seeds)" if r["runs"] < MIN_RUNS else ""
        lines.append(
            f"| {r['row']}{short} | {_f(r['tau_mean'], 3)} | "
            f"{mark}{_f(r['cpu_s_to_selected'], 0)} | {mark}{_f(r['cpu_s_total'], 0)} | "
            f"{_f(r['peak_rss_mb'], 0)} | {_f(r['gpu_s_estimate'], 0)} | "
            f"{len(_cpu_models(r)) or '—'} |"
        )
    lines += bert_base_lines(load_profile())
    hours = table["wall_s_sum"].sum() / 3600
    lines += ["", f"The {int(table['runs'].sum())} finished runs trained for {hours:.1f} hours in "
              "all (wall time, on 2 cores shared with the other sweeps and runs), decoding and "
              "order discrimination not counted."]
    reaching = table[(table["tau_mean"] >= NSEG_NIPS["tau"]) & (table["runs"] >= MIN_RUNS)]
    if reaching.empty:
        lines += ["", f"No complete row reaches the SE-Graph log's tau {NSEG_NIPS['tau']} "
                  "on average."]
    else:
        cheapest = reaching.sort_values("cpu_s_to_selected").iloc[0]
        lines += ["", f"Cheapest complete row at or above the SE-Graph log's tau "
                  f"{NSEG_NIPS['tau']}: "
                  f"**{cheapest['row']}** ({_f(cheapest['cpu_s_to_selected'], 0)} CPU s)."]
        models = sorted({name for _, r in reaching.iterrows() for name in _cpu_models(r)})
        if len(models) > 1:
            lines[-1] += (f" The complete rows at or above that tau were timed on "
                          f"{len(models)} CPU models ({CPU_SEPARATOR.join(models)}): their "
                          "CPU seconds are not one unit, so the ranking is approximate between "
                          "rows timed on different CPUs (docs/reproduction_nips.md gives each "
                          "machine's seconds an epoch).")
    return lines


def _cpu_models(row: pd.Series) -> list[str]:
    """The CPU models a row of the table was timed on, as its records name them."""
    return [name for name in row["cpu_models"].split(CPU_SEPARATOR) if name]


def write(runs_dir: Path, out: Path, variant: str = VARIANT, presentations: int = 0,
          reference: str = NIPS_REFERENCE, decode=decode_presented) -> list[Path]:
    """The page and its tables in `out`, the complete rows paired against the row of the
    preset `reference`; with `presentations` N, every run of a row that
    reads the presented order is decoded again under N other presentations first, with
    `decode` (`studies.cui2018.nips_presentation`; figures an earlier page kept are reused;
    a None from `decode` leaves that run unmeasured)."""
    runs = collect_runs(runs_dir)
    table, tests = build(runs, variant, reference=reference)
    if table.empty:
        raise ValueError(f"{runs_dir}: no finished NIPS run of variant {variant}")
    groups = row_runs(runs, variant)
    presented = presentation_figures(groups, presentations, read_known(out / PRESENTATION_CSV),
                                     decode)
    commits = sorted({run.record.get("git_commit", "unknown") for run in runs
                      if run.dataset == DATASET})  # fmt: skip
    ablations = ablation_table(runs, variant)
    return atomic_write_group(out, {
        CSV_NAME: table.to_csv(index=False, float_format="%.6g"),
        PRESENTATION_CSV: presented.to_csv(index=False, float_format="%.6g"),
        MARKDOWN_NAME: markdown(table, tests, variant, commits, ablations,
                                presentation_lines(groups, presented)),
    })  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    return COMMAND.run(argv, _write_page)


def _write_page(args: dict) -> int:
    decode = PresentedDecoder(COMMAND.prog)  # a run it cannot decode is named after the page
    try:
        with warnings_printed(COMMAND.prog):  # the runs left out, and why
            written = write(Path(args["runs"]), Path(args["out"]), args["variant"],
                            args["presentations"], args["reference"], decode)
    except (ValueError, FileNotFoundError) as error:  # no runs folder, no finished run, ...
        return report_error(COMMAND.prog, error)
    for path in written:
        print(path)
    return decode.report_failed(Path(args["out"]) / PRESENTATION_CSV)


if __name__ == "__main__":
    raise SystemExit(main())
