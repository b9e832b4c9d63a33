"""Turn run records into the leaderboard: `orderbench leaderboard [runs=runs] [out=DIR]
[wandb=true]` (`benchmark.cli_commands.LEADERBOARD`).

Reads every finished run under the runs directory (`benchmark.records.run_collection`:
unfinished runs, malformed records and records that cannot be trusted (a figure out of its
range, a file or part changed after the run sealed it) are left out with a warning naming
them) and writes `leaderboard.csv` and `leaderboard.md` into the output folder, both in one
step so that the two land together or not at all
(`benchmark.records.atomic_io.replace_folder`): `out`, else `<runs>/reports/`, so the
committed `results/` is replaced only when asked (`out=results`). A folder that cannot be
written is one line. One row per dataset
x preset x variant, with the test figures of its seeds (docs/design.md, section 3); the
rows of a dataset whose runs were evaluated under different protocols (other
`protocol_seed`, test documents, trivial policy, noise: they cannot be paired,
`benchmark.records.comparability`) make a table each, named in `protocol` (empty for a
dataset of one protocol), and are never ranked or compared across tables:

- `n_seeds`, `seeds`, `n_docs` (test documents scored);
- `<metric>_mean`, `<metric>_std` for every metric: mean and sample standard deviation
  over seeds (std is empty for one seed);
- for the main metrics (`MAIN_METRICS`) two 95% intervals that answer different
  questions: `<metric>_ci_seeds_low/high`, the Student-t interval of the seed mean
  (how much the figure moves with training randomness; empty for one seed), and
  `<metric>_ci_docs_low/high`, the runs' percentile-bootstrap intervals over test
  documents (the `ci` of each run record) averaged over seeds (how much it moves with
  the choice of documents);
- `n_params`, `train_minutes` (mean over seeds); `epochs`, `best_epoch` (the epoch
  selected on valid), `steps` (means over seeds), `stopped_by` and `threads` (each value
  with its count over seeds, e.g. "early_stopping×2,max_epochs×1"; `unrecorded` for
  records that predate the field; a run resumed with other threads counts as "1+2", its
  epochs' threads in the order they ran, `run_threads`);
- `complete`: the row has as many seeds as the fullest row of its table. Rows with fewer
  seeds are neither ranked nor compared (shown apart);
- `rank` of the complete rows by mean test tau (1 = highest; with one seed per row too,
  the `ci_docs` intervals then being the only ones), and, when the complete rows have at
  least `MIN_SEEDS` (2) seeds, the paired comparison of each complete row
  (`benchmark.stats.seeded_paired`, seeds and documents both counted; with one seed per
  row nothing is compared, `reference_rule` says why, and a warning says so):
  `reference` is the table's reference row, fixed without test figures (`reference=`,
  else the complete base row with the best mean VALID tau; `reference_rule` says which);
  a base row is compared with the reference, an ablation row with its own preset's base
  row, a row of a preset that has no base row in its table (the rows of a sweep's own
  budget, such as the NIPS page's) with the reference (`compared_with`). `tau_diff`
  (this row - compared row), `tau_ci_low/high` (95%),
  `tau_p` (two-sided), `tau_p_holm` (Holm-adjusted over every comparison of the table,
  `benchmark.stats.multiple_testing`) and `verdict`: better | worse (p_holm < 0.05) |
  no_difference | reference; empty where no comparison was made.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from benchmark import cli_commands
from benchmark.cli_commands import LEADERBOARD
from benchmark.metrics.directions import HIGHER, direction, is_better, metric_range
from benchmark.metrics.registry import HEADLINE
from benchmark.records.atomic_io import atomic_write_text, replace_folder
from benchmark.records.comparability import (
    protocol_groups,
    protocol_labels,
    require_pairable,
)
from benchmark.records.run_collection import (
    DEFAULT_VARIANT,
    Run,
    group_runs,
    metric_order,
)
from benchmark.report.command_runs import Report, run_report
from benchmark.report.leaderboard_markdown import to_markdown
from benchmark.report.wandb_export import log_leaderboard
from benchmark.stats.bootstrap import CI_ALPHA
from benchmark.stats.multiple_testing import holm
from benchmark.stats.seeded_paired import MIN_SEEDS, SeededRow, compare_seeded, load_row

MAIN_METRICS = HEADLINE
RANK_METRIC = "tau"
CSV_NAME = "leaderboard.csv"
MARKDOWN_NAME = "leaderboard.md"
PAIRED_RESAMPLES = cli_commands.PAIRED_RESAMPLES
COUNTS = ("n_docs", "n_params")  # whole numbers, averaged over seeds
UNRECORDED = "unrecorded"  # a run record older than the field


ONE_SEED_RULE = (
    f"the paired test of seeds and documents (benchmark.stats.seeded_paired) needs at least "
    f"{MIN_SEEDS} seeds per row"
)


class LeaderboardWarning(UserWarning):
    """A row could not be compared, or a dataset has no reference row."""


def t_interval(
    values: Sequence[float],
    alpha: float = CI_ALPHA,
    bounds: tuple[float, float] = (-math.inf, math.inf),
) -> tuple[float, float]:
    """Student-t (1 - alpha) interval of the mean of `values`, clipped to `bounds` (the
    metric's range, `benchmark.metrics.directions.metric_range`: over three seeds the t
    interval of a percentage can pass 100); NaN for fewer than two values."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return math.nan, math.nan
    half = stats.t.ppf(1 - alpha / 2, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size)
    low, high = bounds
    return float(max(values.mean() - half, low)), float(min(values.mean() + half, high))


def best_first(value: float) -> float:
    """Sort key of a `RANK_METRIC` figure, the best first (`benchmark.metrics.directions`)."""
    return -value if direction(RANK_METRIC) == HIGHER else value


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def docs_interval(runs: Sequence[Run], metric: str) -> tuple[float, float]:
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
        row[f"{metric}_ci_seeds_low"], row[f"{metric}_ci_seeds_high"] = t_interval(
            values, bounds=metric_range(metric)
        )
        row[f"{metric}_ci_docs_low"], row[f"{metric}_ci_docs_high"] = docs_interval(runs, metric)
    row["n_params"] = _mean([run.record.get("n_params", math.nan) for run in runs])
    row["train_minutes"] = _mean([run.record.get("train_seconds", math.nan) for run in runs]) / 60
    for key in ("epochs", "best_epoch", "steps"):
        row[key] = _recorded_mean(runs, key)
    row["stopped_by"] = tally([run.record.get("stopped_by") for run in runs])
    row["threads"] = tally([run_threads(run) for run in runs])
    return row


def run_threads(run: Run) -> int | str | None:
    """The PyTorch threads the run trained with: its epochs' (`resources.threads_per_epoch`)
    joined as "1+2" where a resume changed them, else its last launch's (`environment`)."""
    per_epoch = (run.record.get("resources") or {}).get("threads_per_epoch") or []
    seen = list(dict.fromkeys(t for t in per_epoch if t is not None))
    if len(seen) > 1:
        return "+".join(map(str, seen))
    return (run.record.get("environment") or {}).get("threads")


def _recorded_mean(runs: Sequence[Run], key: str) -> float:
    """Mean over seeds of a number of the run records; NaN unless every run has it."""
    values = [run.record.get(key) for run in runs]
    if any(not isinstance(value, (int, float)) or isinstance(value, bool) for value in values):
        return math.nan
    return float(np.mean(values))


def tally(values: Sequence) -> str:
    """"early_stopping×2,max_epochs×1": each value with its count, most frequent first;
    `UNRECORDED` for runs whose records predate the field."""
    counts = Counter(UNRECORDED if value is None else str(value) for value in values)
    return ",".join(f"{value}×{count}" for value, count in counts.most_common())


def _label(key: tuple[str, str, str]) -> str:
    return f"{key[1]}/{key[2]}"


def _warn(message: str) -> None:
    warnings.warn(message, LeaderboardWarning, stacklevel=3)


def _valid_mean(runs: Sequence[Run], metric: str = RANK_METRIC) -> float:
    """Mean over seeds of the runs' VALID figure (NaN when a run lacks it)."""
    values = [(run.record["split"].get("valid") or {}).get(metric) for run in runs]
    if any(not isinstance(value, (int, float)) for value in values):
        return math.nan
    return float(np.mean(values))


def choose_reference(
    groups: dict[tuple, list[Run]], keys: Sequence[tuple], complete: set[tuple],
    named: str | None = None,
) -> tuple[tuple | None, str]:
    """The reference row of one dataset and how it was chosen, without test figures.

    `named` ("preset" or "preset/variant") picks it; else the complete `base` row with
    the highest mean valid tau. (None, reason) when there is none.
    """
    if named:
        preset, _, variant = named.partition("/")
        key = next((k for k in keys if k[1] == preset and k[2] == (variant or DEFAULT_VARIANT)),
                   None)
        if key is None:
            return None, f"named reference {named} has no run"
        if key not in complete:
            return None, f"named reference {named} has fewer seeds than the other rows"
        return key, "named"
    candidates = [k for k in keys if k in complete and is_base(k)]
    scored = [(k, _valid_mean(groups[k])) for k in candidates]
    scored = [(k, value) for k, value in scored if not math.isnan(value)]
    if not scored:
        return None, "no complete base row with valid figures"
    best = min(best_first(value) for _, value in scored)
    chosen = max(k for k, value in scored if best_first(value) == best)
    return chosen, f"best valid {RANK_METRIC}"


def is_base(key: tuple) -> bool:
    """Whether a row is a preset's own settings (`base`, also `base@<config id>` where its
    folder holds several configs: `benchmark.records.run_collection`)."""
    return key[2].partition("@")[0] == DEFAULT_VARIANT


def comparison_target(key: tuple, reference: tuple | None, keys: Sequence[tuple]) -> tuple | None:
    """The row `key` is compared with: an ablation its own preset's base row (when the
    table has one), a base row, or a row of a preset without a base row in the table, the
    table's reference; None for the reference itself."""
    if key == reference:
        return None
    if not is_base(key):
        bases = [k for k in keys if k[:2] == key[:2] and is_base(k)]
        if bases:
            return bases[0] if len(bases) == 1 else None  # several configs: none is its own
    return reference


_NOT_COMPARED = {
    "compared_with": None, "tau_diff": math.nan, "tau_ci_low": math.nan, "tau_ci_high": math.nan,
    "tau_p": math.nan, "tau_p_holm": math.nan, "verdict": None,
}


def _verdict(diff: float, p_holm: float) -> str:
    if p_holm < CI_ALPHA:
        return "better" if is_better(RANK_METRIC, diff, 0.0) else "worse"
    return "no_difference"


def _compare_dataset(
    groups: dict[tuple, list[Run]], keys: list[tuple], complete: set[tuple],
    reference: tuple | None, n_resamples: int, seed: int,
) -> dict[tuple, dict]:
    """The comparison columns of every row of one dataset, Holm-corrected as a family."""
    columns = {key: dict(_NOT_COMPARED) for key in keys}
    if reference is not None:
        columns[reference]["verdict"] = "reference"
    loaded: dict[tuple, SeededRow | None] = {}

    def row(key: tuple) -> SeededRow | None:
        if key not in loaded:
            try:
                loaded[key] = load_row(groups[key])
            except (ValueError, OSError) as error:
                _warn(f"{key[0]}: {_label(key)} cannot be compared: {error}")
                loaded[key] = None
        return loaded[key]

    tested = []
    for key in keys:
        target = comparison_target(key, reference, keys)
        if key not in complete or target is None or target not in complete:
            if key in complete and key != reference and not is_base(key):
                _warn(f"{key[0]}: {_label(key)} not compared: no complete base row of {key[1]}")
            continue
        row_a, row_b = row(key), row(target)
        if row_a is None or row_b is None:
            continue
        try:
            require_pairable(
                _label(key), groups[key][0].record, _label(target), groups[target][0].record
            )
            tau = compare_seeded(row_a, row_b, n_resamples, CI_ALPHA, seed)[RANK_METRIC]
        except ValueError as error:  # PairingError, IncomparableRunsError are ValueErrors
            _warn(f"{key[0]}: {_label(key)} not compared with {_label(target)}: {error}")
            continue
        columns[key].update(
            compared_with=_label(target), tau_diff=tau["diff"], tau_ci_low=tau["ci_low"],
            tau_ci_high=tau["ci_high"], tau_p=tau["p"],
        )
        tested.append(key)
    for key, p_holm in zip(tested, holm([columns[k]["tau_p"] for k in tested]), strict=True):
        columns[key]["tau_p_holm"] = float(p_holm)
        columns[key]["verdict"] = _verdict(columns[key]["tau_diff"], p_holm)
    return columns


def _rank_table(
    groups: dict[tuple, list[Run]], rows: dict[tuple, dict], keys: list[tuple], name: str,
    n_resamples: int, seed: int, reference: str | None,
) -> None:
    """Rank and compare the rows `keys` of one table (one dataset, one protocol), named
    `name` in warnings; their columns go into `rows`."""
    full = max(len(groups[key]) for key in keys)
    complete = {key for key in keys if len(groups[key]) == full}
    comparable = complete if full >= MIN_SEEDS else set()
    if comparable:
        ref, rule = choose_reference(groups, keys, comparable, reference)
        if ref is None:
            _warn(f"{name}: no reference row ({rule}); no row is compared")
    else:
        ref, rule = None, ONE_SEED_RULE
        _warn(
            f"{name}: {full} seed per row: {len(complete)} "
            f"row{'s' if len(complete) != 1 else ''} ranked by mean "
            f"{RANK_METRIC}, none compared ({ONE_SEED_RULE}; the intervals are over test "
            "documents only)"
        )
    paired = _compare_dataset(groups, keys, comparable, ref, n_resamples, seed)
    ranked = sorted(
        complete, key=lambda key: (best_first(rows[key][f"{RANK_METRIC}_mean"]), key)
    )
    for key in keys:
        rows[key].update(
            rank=ranked.index(key) + 1 if key in complete else None,
            complete=key in complete,
            reference=_label(ref) if ref else None,
            reference_rule=rule,
            **paired[key],
        )


def build_leaderboard(
    runs: Sequence[Run], n_resamples: int = PAIRED_RESAMPLES, seed: int = 0,
    reference: str | None = None,
) -> pd.DataFrame:
    """The leaderboard of `runs` (see the module docstring), ranked within each table: the
    rows of one dataset and one protocol (`benchmark.records.comparability.protocol_groups`;
    `protocol` names what sets a table apart, empty when a dataset has one).

    `reference` ("preset" or "preset/variant") names the reference row of every table
    that has it; else each table's is its complete base row with the best valid tau.
    """
    groups = group_runs(runs)
    metrics = metric_order(runs)
    rows = {key: summarise_row(group, metrics) for key, group in groups.items()}
    for dataset in dict.fromkeys(key[0] for key in groups):
        on_dataset = [key for key in groups if key[0] == dataset]
        tables = protocol_groups(on_dataset, lambda key: groups[key][0].record)
        labels = protocol_labels([groups[keys[0]][0].record for keys in tables])
        if len(tables) > 1:
            _warn(f"{dataset}: runs of {len(tables)} protocols ({'; '.join(labels)}), which "
                  "cannot be paired: a table each, never ranked together")
        for keys, label in zip(tables, labels, strict=True):
            for key in keys:
                rows[key]["protocol"] = label
            name = f"{dataset} ({label})" if label else dataset
            _rank_table(groups, rows, keys, name, n_resamples, seed, reference)
    table = pd.DataFrame(list(rows.values()))
    if table.empty:
        return table
    table["rank"] = table["rank"].astype("Int64")  # empty for rows shown apart
    table = table.sort_values(
        ["dataset", "protocol", "complete", "rank", "tau_mean"],
        ascending=[True, True, False, True, False], kind="stable",
    ).reset_index(drop=True)
    table[list(COUNTS)] = table[list(COUNTS)].round().astype("Int64")  # empty when unknown
    leading = ["dataset", "protocol", "rank", "preset", "variant"]
    return table[leading + [column for column in table.columns if column not in leading]]


def write_leaderboard(table: pd.DataFrame, out_dir: str | Path) -> tuple[Path, Path]:
    """Write `leaderboard.csv` and `leaderboard.md` into `out_dir` in one step: the two
    land together or not at all (`benchmark.records.atomic_io.replace_folder`)."""
    out_dir = Path(out_dir)
    texts = {
        CSV_NAME: table.to_csv(index=False, float_format="%.6g"),
        MARKDOWN_NAME: to_markdown(table, MAIN_METRICS),
    }

    def fill(folder: Path) -> None:
        for name, text in texts.items():
            atomic_write_text(folder / name, text)

    replace_folder(out_dir, fill, own=texts.__contains__, what=LEADERBOARD.prog)
    return out_dir / CSV_NAME, out_dir / MARKDOWN_NAME


def main(argv: Sequence[str] | None = None) -> int:
    return run_report(LEADERBOARD, argv, _write_leaderboard)


def _write_leaderboard(report: Report, args: dict) -> int:
    table = build_leaderboard(report.runs, args["resamples"], args["seed"], args["reference"])
    paths = write_leaderboard(table, report.out)
    if args["wandb"]:
        for note in log_leaderboard(table, report.runs):
            print(f"{report.prog}: note: no predictions table for {note}", file=sys.stderr)
    print(f"{len(table)} rows from {len(report.runs)} runs -> {', '.join(map(str, paths))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
