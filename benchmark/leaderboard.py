"""Turn run records into the leaderboard: `python -m benchmark.leaderboard [--runs runs]
[--out results] [--wandb]`.

Reads every finished run under the runs directory (`benchmark.run_collection`: unfinished
runs and malformed records are left out with a warning naming them) and writes
`leaderboard.csv` and `leaderboard.md` into the output directory, atomically. One row per
dataset x preset x variant, with the test figures of its seeds (DESIGN section 3):

- `n_seeds`, `seeds`, `n_docs` (test documents scored);
- `<metric>_mean`, `<metric>_std` for every metric: mean and sample standard deviation
  over seeds (std is empty for one seed);
- for the main metrics (`MAIN_METRICS`) two 95% intervals that answer different
  questions: `<metric>_ci_seeds_low/high`, the Student-t interval of the seed mean
  (how much the figure moves with training randomness; empty for one seed), and
  `<metric>_ci_docs_low/high`, the runs' percentile-bootstrap intervals over test
  documents (the `ci` of each run record) averaged over seeds (how much it moves with
  the choice of documents);
- `n_params`, `train_minutes` (mean over seeds);
- `rank` within the dataset by mean tau (1 = best), and the paired comparison with the
  best row of the dataset: each row's per-document figures are averaged over its seeds
  and compared with the best row's on the same documents (`benchmark.pooled_paired`):
  `tau_diff_vs_best` (this row - best), `tau_p_vs_best` (two-sided paired permutation
  test) and `not_worse_than_best`: true for the best row and where p >= 0.05, empty when
  the comparison was impossible (missing predictions, different documents).
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from benchmark.atomic_io import atomic_write_text
from benchmark.bootstrap import CI_ALPHA
from benchmark.cli_args import EXIT_BAD_INPUT
from benchmark.leaderboard_markdown import to_markdown
from benchmark.metrics import HEADLINE_ACCURACY
from benchmark.pooled_paired import compare_rows, pool_seeds
from benchmark.run_collection import Run, collect_runs, group_runs, metric_order
from benchmark.wandb_export import log_leaderboard

MAIN_METRICS = ("tau", "pmr", HEADLINE_ACCURACY)
RANK_METRIC = "tau"
CSV_NAME = "leaderboard.csv"
MARKDOWN_NAME = "leaderboard.md"
PAIRED_RESAMPLES = 10_000
COUNTS = ("n_docs", "n_params")  # whole numbers, averaged over seeds


class LeaderboardWarning(UserWarning):
    """A row could not be compared with the best one."""


def t_interval(values: Sequence[float], alpha: float = CI_ALPHA) -> tuple[float, float]:
    """Student-t (1 - alpha) interval of the mean of `values`; NaN for fewer than two."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return math.nan, math.nan
    half = stats.t.ppf(1 - alpha / 2, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size)
    return float(values.mean() - half), float(values.mean() + half)


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def _docs_interval(runs: Sequence[Run], metric: str) -> tuple[float, float]:
    """The runs' bootstrap intervals over documents for `metric`, averaged over seeds."""
    intervals = [run.record.get("ci", {}).get("test", {}).get(metric) for run in runs]
    intervals = [ci for ci in intervals if isinstance(ci, dict)]
    return (
        _mean([ci["ci_low"] for ci in intervals]),
        _mean([ci["ci_high"] for ci in intervals]),
    )


def summarise_row(runs: Sequence[Run], metrics: Sequence[str]) -> dict:
    """The leaderboard columns of one row (its runs share dataset, preset and variant)."""
    first = runs[0]
    row = {
        "dataset": first.dataset,
        "preset": first.preset,
        "variant": first.variant,
        "n_seeds": len(runs),
        "seeds": ",".join(str(run.seed) for run in runs),
        "n_docs": _mean([run.test.get("n_docs", math.nan) for run in runs]),
    }
    for metric in metrics:
        values = [run.metrics[metric] for run in runs if metric in run.metrics]
        row[f"{metric}_mean"] = _mean(values)
        row[f"{metric}_std"] = float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
    for metric in MAIN_METRICS:
        values = [run.metrics[metric] for run in runs if metric in run.metrics]
        row[f"{metric}_ci_seeds_low"], row[f"{metric}_ci_seeds_high"] = t_interval(values)
        row[f"{metric}_ci_docs_low"], row[f"{metric}_ci_docs_high"] = _docs_interval(runs, metric)
    row["n_params"] = _mean([run.record.get("n_params", math.nan) for run in runs])
    row["train_minutes"] = _mean([run.record.get("train_seconds", math.nan) for run in runs]) / 60
    return row


def _label(key: tuple[str, str, str]) -> str:
    return f"{key[1]}/{key[2]}"


def _warn(message: str) -> None:
    warnings.warn(message, LeaderboardWarning, stacklevel=3)


def _paired_columns(tau: dict | None) -> dict:
    """The paired-test columns from the best-vs-row test of tau (None: no test)."""
    if tau is None or math.isnan(tau["p_permutation"]):
        return {
            "tau_diff_vs_best": math.nan,
            "tau_p_vs_best": math.nan,
            "not_worse_than_best": None,
        }
    return {
        "tau_diff_vs_best": -tau["diff"],  # the test ran best - row
        "tau_p_vs_best": tau["p_permutation"],
        "not_worse_than_best": bool(tau["p_permutation"] >= CI_ALPHA),
    }


def _compare_with_best(
    groups: dict[tuple, list[Run]], keys: list[tuple], n_resamples: int, seed: int
) -> dict[tuple, dict]:
    """Paired-test columns of every row of one dataset; `keys` ranked best first."""
    best, others = keys[0], keys[1:]
    columns = {
        best: {"tau_diff_vs_best": 0.0, "tau_p_vs_best": math.nan, "not_worse_than_best": True}
    }
    try:
        best_pooled = pool_seeds(groups[best])
    except (ValueError, OSError) as error:
        _warn(f"{best[0]}: the best row {_label(best)} cannot be paired with the others: {error}")
        return {**columns, **{key: _paired_columns(None) for key in others}}
    for key in others:
        try:
            tau = compare_rows(best_pooled, pool_seeds(groups[key]), n_resamples, seed)
        except (ValueError, OSError) as error:  # PairingError is a ValueError
            _warn(f"{key[0]}: {_label(key)} not compared with the best row {_label(best)}: {error}")
            columns[key] = _paired_columns(None)
        else:
            columns[key] = _paired_columns(tau[RANK_METRIC])
    return columns


def build_leaderboard(
    runs: Sequence[Run], n_resamples: int = PAIRED_RESAMPLES, seed: int = 0
) -> pd.DataFrame:
    """The leaderboard of `runs` (see the module docstring), ranked within each dataset."""
    groups = group_runs(runs)
    metrics = metric_order(runs)
    rows = {key: summarise_row(group, metrics) for key, group in groups.items()}
    for dataset in dict.fromkeys(key[0] for key in groups):
        keys = sorted(
            (key for key in groups if key[0] == dataset),
            key=lambda key: (-rows[key][f"{RANK_METRIC}_mean"], key),
        )
        paired = _compare_with_best(groups, keys, n_resamples, seed)
        for rank, key in enumerate(keys, start=1):
            rows[key].update(rank=rank, best=_label(keys[0]), **paired[key])
    table = pd.DataFrame(list(rows.values()))
    if table.empty:
        return table
    table = table.sort_values(["dataset", "rank"], kind="stable").reset_index(drop=True)
    table[list(COUNTS)] = table[list(COUNTS)].round().astype("Int64")  # empty when unknown
    leading = ["dataset", "rank", "preset", "variant"]
    return table[leading + [column for column in table.columns if column not in leading]]


def write_leaderboard(table: pd.DataFrame, out_dir: str | Path) -> tuple[Path, Path]:
    """Write `leaderboard.csv` and `leaderboard.md` into `out_dir` atomically."""
    out_dir = Path(out_dir)
    csv_path, md_path = out_dir / CSV_NAME, out_dir / MARKDOWN_NAME
    atomic_write_text(csv_path, table.to_csv(index=False, float_format="%.6g"))
    atomic_write_text(md_path, to_markdown(table, MAIN_METRICS))
    return csv_path, md_path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmark.leaderboard",
        description="Build results/leaderboard.csv and .md from the finished runs.",
    )
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="runs directory")
    parser.add_argument("--out", type=Path, default=Path("results"), help="output directory")
    parser.add_argument(
        "--resamples",
        type=int,
        default=PAIRED_RESAMPLES,
        metavar="N",
        help=f"resamples of the paired test (default {PAIRED_RESAMPLES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="paired-test seed (default 0)")
    parser.add_argument(
        "--wandb",
        action="store_true",
        help="also log the table to W&B (offline unless WANDB_MODE says otherwise)",
    )
    args = parser.parse_args(argv)
    if args.resamples < 1:
        parser.error(f"--resamples must be >= 1, got {args.resamples}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            runs = collect_runs(args.runs)
        except FileNotFoundError as error:
            print(f"benchmark.leaderboard: error: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
        table = build_leaderboard(runs, args.resamples, args.seed)
    for warning in caught:
        print(f"benchmark.leaderboard: warning: {warning.message}", file=sys.stderr)
    if table.empty:
        print(f"benchmark.leaderboard: error: no finished run under {args.runs}", file=sys.stderr)
        return EXIT_BAD_INPUT
    paths = write_leaderboard(table, args.out)
    if args.wandb:
        log_leaderboard(table)
    print(f"{len(table)} rows from {len(runs)} runs -> {', '.join(map(str, paths))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
