"""Render the leaderboard table (`benchmark.report.leaderboard`) as Markdown: per dataset (and
per protocol, where a dataset's runs were evaluated under several), a table of every metric
of the complete rows (mean ± std over seeds, the best mean in bold, the comparison with the
reference or the row's base preset), the rows with fewer seeds apart and unmarked, and a
table of the 95% intervals of the main metrics."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from benchmark.metrics.directions import LOWER, NOT_RANKED, direction
from benchmark.stats.seeded_paired import MIN_SEEDS

HEADER = """# Leaderboard

Test-split figures of each dataset x preset x variant: mean ± std over seeds (std needs
two seeds or more; a one-seed row shows the 95% bootstrap interval over test documents of
the main metrics instead); the best mean of each metric in bold; ↓ marks a metric where lower is
better, ° a figure that is not ranked and never bold (`disc_ties_frac`, the share of tied
discrimination pairs, describes the model, not its quality; benchmark/metrics/directions.py).
*epochs* is the mean number of training epochs, *stopped by* what ended training in each
seed. Rows with as many seeds as the dataset's fullest row are ranked by mean tau
and compared: a base row with the dataset's reference row (chosen without test figures:
named, or the base row with the best mean **valid** tau), an ablation row with its own
preset's base row (a row whose preset has none: with the reference). *Δτ* is this row
minus the compared row with its 95% interval, which counts both seed-to-seed and
document-to-document variation (`benchmark.stats.seeded_paired`, docs/metrics.md);
*p (Holm)* is the two-sided p-value adjusted by Holm over all
comparisons of the dataset; *vs* marks ▲ significantly better, ▼ significantly worse,
= no significant difference (Holm p ≥ 0.05), ref the reference. Rows with fewer seeds
are listed apart and never marked. The last table gives 95% intervals of the main
metrics: *seeds*, the Student-t interval of the seed mean; *docs*, each run's bootstrap
interval over test documents, averaged over seeds. `leaderboard.csv` holds every figure.
"""
MISSING = "–"
ONE_SEED_NOTE = f"""One seed per row: the rows are ranked by mean tau, but no difference is tested:
the paired test of seeds and documents (`benchmark.stats.seeded_paired`) needs at least
{MIN_SEEDS} seeds per row. Beside each main metric, its 95% bootstrap interval over test
documents (training randomness is not counted).
"""


def _number(value: float, digits: int = 3) -> str:
    return MISSING if pd.isna(value) else f"{value:.{digits}f}"


def p_value_text(p: float) -> str:
    return MISSING if pd.isna(p) else "<0.001" if p < 0.001 else f"{p:.3f}"


def _interval(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return MISSING
    return f"[{low:.3f}, {high:.3f}]"


def params_text(count: int) -> str:
    if pd.isna(count):
        return MISSING
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if count >= size:
            return f"{count / size:.1f}{suffix}"
    return str(int(count))


VERDICT_MARKS = {"better": "▲", "worse": "▼", "no_difference": "=", "reference": "ref"}


def _mark(verdict) -> str:
    return MISSING if pd.isna(verdict) else VERDICT_MARKS[verdict]


def _difference(row: pd.Series) -> str:
    if pd.isna(row["tau_diff"]):
        return MISSING
    return (f"{row['tau_diff']:+.3f} [{row['tau_ci_low']:+.3f}, {row['tau_ci_high']:+.3f}]"
            f" vs {row['compared_with']}")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _metrics(table: pd.DataFrame) -> list[str]:
    return [column[: -len("_mean")] for column in table.columns if column.endswith("_mean")]


MARKS = {LOWER: " ↓", NOT_RANKED: " °"}  # after a metric's name: its direction


def _figures_table(rows: pd.DataFrame, metrics: Sequence[str], best: dict) -> list[str]:
    names = [metric + MARKS.get(direction(metric), "") for metric in metrics]
    lines = [
        _row(["rank", "preset", "variant", "seeds", *names, "epochs", "stopped by", "params",
              "train min", "Δτ [95% CI]", "p (Holm)", "vs"]),
        _row(["---:", "---", "---", "---:", *["---:"] * len(metrics), "---:", "---", "---:",
              "---:", "---", "---:", ":---:"]),
    ]
    for _, row in rows.iterrows():
        cells = []
        for metric in metrics:
            mean, std = row[f"{metric}_mean"], row[f"{metric}_std"]
            text = _number(mean) + ("" if math.isnan(std) else f" ± {std:.3f}")
            if math.isnan(std) and f"{metric}_ci_docs_low" in row:  # one seed
                interval = _interval(row[f"{metric}_ci_docs_low"], row[f"{metric}_ci_docs_high"])
                text += "" if interval == MISSING else f" {interval}"
            cells.append(f"**{text}**" if mean == best.get(metric) else text)
        lines.append(_row([
            MISSING if pd.isna(row["rank"]) else str(row["rank"]), row["preset"],
            row["variant"], str(row["n_seeds"]), *cells, _number(row["epochs"], 1),
            str(row["stopped_by"]).replace(",", ", "), params_text(row["n_params"]),
            _number(row["train_minutes"], 1), _difference(row), p_value_text(row["tau_p_holm"]),
            _mark(row["verdict"]),
        ]))
    return lines


def _intervals_table(rows: pd.DataFrame, main: Sequence[str]) -> list[str]:
    names = [f"{metric} ({kind})" for metric in main for kind in ("seeds", "docs")]
    lines = [
        _row(["rank", "preset", "variant", *names]),
        _row(["---:", "---", "---", *["---:"] * len(names)]),
    ]
    for _, row in rows.iterrows():
        cells = [
            _interval(row[f"{metric}_ci_{kind}_low"], row[f"{metric}_ci_{kind}_high"])
            for metric in main
            for kind in ("seeds", "docs")
        ]
        rank = MISSING if pd.isna(row["rank"]) else str(row["rank"])
        lines.append(_row([rank, row["preset"], row["variant"], *cells]))
    return lines


def _best_means(rows: pd.DataFrame, metrics: Sequence[str]) -> dict[str, float]:
    """The best mean of each ranked metric (`benchmark.metrics.directions`); none for a
    single row, which is the best of nothing."""
    best = {}
    if len(rows) < 2:
        return best
    for metric in metrics:
        way = direction(metric)
        if way != NOT_RANKED:
            means = rows[f"{metric}_mean"]
            best[metric] = means.min() if way == LOWER else means.max()
    return best


def to_markdown(table: pd.DataFrame, main: Sequence[str]) -> str:
    """The leaderboard as a Markdown document, one section per dataset."""
    metrics = _metrics(table)
    main = [metric for metric in main if metric in metrics]
    parts = [HEADER]
    protocols = table["protocol"] if "protocol" in table else pd.Series("", index=table.index)
    for (dataset, protocol), rows in table.groupby(["dataset", protocols], sort=True):
        n_docs = ", ".join(str(n) for n in sorted(rows["n_docs"].dropna().unique())) or MISSING
        reference = rows["reference"].iloc[0]
        chosen = (f"reference: {reference} ({rows['reference_rule'].iloc[0]})"
                  if not pd.isna(reference) else f"no reference: {rows['reference_rule'].iloc[0]}")
        complete, apart = rows[rows["complete"]], rows[~rows["complete"]]
        heading = f"{dataset}, protocol {protocol}" if protocol else dataset
        apart_note = (f" Runs of {dataset} under another protocol are in a table of their own, "
                      "never ranked with these." if protocol else "")
        parts.append(f"## {heading}\n\n{n_docs} test documents; {chosen}.{apart_note}\n")
        if len(complete) and complete["n_seeds"].max() < MIN_SEEDS:
            parts.append(ONE_SEED_NOTE)
        best = _best_means(complete if len(complete) else rows, metrics)
        if len(complete):
            parts.append("\n".join(_figures_table(complete, metrics, best)) + "\n")
        if len(apart):
            seeds = int(complete["n_seeds"].max()) if len(complete) else 2
            parts.append(f"Rows with fewer than {seeds} seeds, not ranked and not compared:\n")
            parts.append("\n".join(_figures_table(apart, metrics, best)) + "\n")
        parts.append("\n".join(_intervals_table(rows, main)) + "\n")
    return "\n".join(parts)
