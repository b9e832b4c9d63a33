"""How much checkpoint selection on a small validation split is decided by sampling
variance: the spread of the valid figure over a few documents ("noise" in this suite means
distractor sentences, docs/design.md, section 4).

Early stopping and the tested checkpoint are chosen by valid tau (docs/design.md, section
5). On a validation split of a few documents (Accidents and Earthquakes: 10 articles, fold
0) that figure carries a wide sampling interval. From each finished run's record and its per-epoch
CSV log (`csv/metrics.csv`) this module measures, using valid figures only:

- the percentile-bootstrap 95% interval over the validation documents of the selected
  checkpoint's valid tau (the record's `ci.valid.tau`) and its width;
- the epochs whose logged valid tau lies inside that interval (`tied_epochs`: selecting
  any of them is not distinguishable on these documents), and the earliest of them;
- the median absolute change of valid tau from one epoch to the next;
- the selected (best) epoch, its spread over seeds, and how often it lies in the first
  third of the epoch budget.

The figures are of the monitored valid figure (`early_stopping.monitor`: tau, or pm_f
with distractors). `budget_pairs` sets two variants of the same runs side by side (e.g. a
10- and a 60-epoch budget, same seeds): where the longer run's log starts with the shorter
run's epochs, the two selections differ only in how long the search went on, and the
recorded test tau of both selected checkpoints shows what that choice moved. Test figures
are only reported, never used to choose anything.

    orderbench study selection-variance [runs=runs] [variants=repro,...] [pairs=repro:repro_e60,...]
        [out=results/selection_variance.csv]  (`COMMAND` of studies/selection_variance/__init__.py)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchmark.cli_arguments import UsageError
from benchmark.records.run_collection import Run, group_runs
from benchmark.records.training_log import LOG_NAME, epoch_curves
from benchmark.report.command_runs import collect_runs_for
from studies.selection_variance import COMMAND

MONITOR = "val/tau"  # `early_stopping.monitor` when the config does not say
SAME = 1e-6  # logged float32 figures of two runs that agree to this are the same epoch


def monitor(run: Run) -> str:
    """The logged figure that chose the run's checkpoint, e.g. `val/tau`."""
    value = run.config_value("early_stopping.monitor")
    return value if isinstance(value, str) and value.startswith("val/") else MONITOR


def valid_curve(run: Run) -> list[float]:
    """The monitored valid figure after each trained epoch (index 0 = epoch 1), from the
    run's CSV log, whose `epoch` column counts from 1 (docs/design.md, section 8).

    A log written when epochs were counted from 0 is read as such, and its last valid row,
    the re-evaluation of the selected checkpoint logged as one epoch more, is left out; an
    epoch logged twice keeps its first value (`benchmark.records.training_log.epoch_curves`).
    Empty when the run has no log.
    """
    trained, column = run.record.get("epochs"), monitor(run)
    values = epoch_curves(run.path / LOG_NAME, [column],
                          trained if isinstance(trained, int) else None).get(column, {})
    return list(values.values())


def recorded_budget(run: Run) -> tuple:
    """(trainer.max_epochs, early_stopping.patience) as the run's config records them; None
    where it does not."""
    return run.config_value("trainer.max_epochs"), run.config_value("early_stopping.patience")


def _budget(run: Run) -> tuple[float, float]:
    """`recorded_budget` as floats, NaN where unrecorded."""
    return tuple(  # type: ignore[return-value]
        float(value) if isinstance(value, (int, float)) else math.nan
        for value in recorded_budget(run)
    )


def run_noise(run: Run) -> dict:
    """The selection-variance figures of one run (valid only; test tau reported beside).

    `valid` and its interval are of the monitored figure (`monitor`: valid tau, or pm_f
    with distractors)."""
    metric = monitor(run).removeprefix("val/")
    valid = (run.record.get("split") or {}).get("valid") or {}
    interval = ((run.record.get("ci") or {}).get("valid") or {}).get(metric) or {}
    low, high = interval.get("ci_low", math.nan), interval.get("ci_high", math.nan)
    curve = np.asarray(valid_curve(run), dtype=float)  # (epochs,)
    tied = np.flatnonzero((curve >= low) & (curve <= high)) + 1  # 1-based epochs
    max_epochs, patience = _budget(run)
    best = run.record.get("best_epoch")
    best = float(best) if isinstance(best, (int, float)) else math.nan
    return {
        "dataset": run.dataset, "preset": run.preset, "variant": run.variant, "seed": run.seed,
        "max_epochs": max_epochs, "patience": patience, "monitor": monitor(run),
        "n_valid_docs": valid.get("n_docs", math.nan),
        "epochs": run.record.get("epochs", math.nan), "best_epoch": best,
        "stopped_by": run.record.get("stopped_by") or "",
        "valid": valid.get(metric, math.nan), "valid_ci_low": low, "valid_ci_high": high,
        "valid_ci_width": high - low,
        "tied_epochs": len(tied), "first_tied_epoch": int(tied[0]) if len(tied) else math.nan,
        "median_abs_step": float(np.median(np.abs(np.diff(curve)))) if len(curve) > 1 else math.nan,
        "early_best": bool(best <= max_epochs / 3) if not math.isnan(max_epochs) else False,
        "test_tau": run.metrics.get("tau", math.nan),
    }  # fmt: skip


def noise_table(runs: Sequence[Run], variants: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per run (of `variants`, else of every variant): `run_noise`."""
    return pd.DataFrame([
        run_noise(run) for run in runs if variants is None or run.variant in variants
    ])  # fmt: skip


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, preset, variant): the runs' figures pooled over seeds."""
    if table.empty:
        return table
    rows = []
    for (dataset, preset, variant), part in table.groupby(
        ["dataset", "preset", "variant"], sort=False
    ):
        best = part["best_epoch"].dropna()
        rows.append({
            "dataset": dataset, "preset": preset, "variant": variant, "n_runs": len(part),
            "max_epochs": part["max_epochs"].iloc[0], "patience": part["patience"].iloc[0],
            "valid_ci_width": part["valid_ci_width"].mean(),
            "median_abs_step": part["median_abs_step"].median(),
            "tied_epochs": part["tied_epochs"].mean(), "epochs": part["epochs"].mean(),
            "best_epochs": ",".join(str(int(b)) for b in best),
            "best_epoch_range": float(best.max() - best.min()) if len(best) else math.nan,
            "n_early_best": int(part["early_best"].sum()),
        })  # fmt: skip
    return pd.DataFrame(rows)


def _shares_prefix(short: Run, long: Run) -> bool:
    """The longer run's log starts with every epoch of the shorter run's log."""
    a, b = valid_curve(short), valid_curve(long)
    if not a or len(b) < len(a):
        return False
    return all(abs(x - y) <= SAME for x, y in zip(a, b[: len(a)], strict=True))


def budget_pairs(runs: Sequence[Run], short: str, long: str) -> pd.DataFrame:
    """The runs of variants `short` and `long` with the same dataset, preset and seed.

    `same_start`: the longer run trained through the same epochs first (its log begins
    with the shorter run's). `long_in_short_ci`: the longer run's selected valid tau lies
    inside the shorter run's interval over the validation documents.
    """
    groups = group_runs(runs)
    rows = []
    for (dataset, preset, variant), members in groups.items():
        if variant != short:
            continue
        others = {run.seed: run for run in groups.get((dataset, preset, long), [])}
        for run in members:
            if (other := others.get(run.seed)) is None:
                continue
            a, b = run_noise(run), run_noise(other)
            rows.append({
                "dataset": dataset, "preset": preset, "seed": run.seed,
                "same_start": _shares_prefix(run, other),
                "best_epoch_short": a["best_epoch"], "best_epoch_long": b["best_epoch"],
                "valid_short": a["valid"], "valid_long": b["valid"],
                "valid_ci_short": f"[{a['valid_ci_low']:.3f}, {a['valid_ci_high']:.3f}]",
                "long_in_short_ci": bool(a["valid_ci_low"] <= b["valid"]
                                         <= a["valid_ci_high"]),
                "test_tau_short": a["test_tau"], "test_tau_long": b["test_tau"],
                "test_tau_diff": b["test_tau"] - a["test_tau"],
            })  # fmt: skip
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> int:
    return COMMAND.run(argv, _report, _parse)


def _parse(argv: Sequence[str]) -> dict:
    """The keys, `pairs` split into (SHORT, ":", LONG) triples."""
    args = COMMAND.parse(argv)
    args["pairs"] = [pair.partition(":") for pair in args["pairs"]]
    if bad := ["".join(pair) for pair in args["pairs"] if not all(pair)]:
        raise UsageError(f"pairs: {bad[0]!r}: expected SHORT:LONG")
    return args


def _report(args: dict) -> int:
    pairs = args["pairs"]
    runs = collect_runs_for(COMMAND.prog, args["runs"])  # printing the runs left out, and why
    table = noise_table(runs, args["variants"])
    if table.empty:
        print(f"no finished runs under {args['runs']}")
        return 1
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(summarise(table).round(3).to_string(index=False))
        for short, _, long in pairs:
            print(f"\n{short} vs {long}:")
            print(budget_pairs(runs, short, long).round(3).to_string(index=False))
    if args["out"]:
        Path(args["out"]).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args["out"], index=False)
        print(f"wrote {args['out']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
