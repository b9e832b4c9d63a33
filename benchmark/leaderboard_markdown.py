"""Render the leaderboard table (`benchmark.leaderboard`) as Markdown: per dataset, a table
of every metric (mean ± std over seeds, the best mean in bold) and a table of the 95%
intervals of the main metrics."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from benchmark.metrics import LOWER_IS_BETTER

HEADER = """# Leaderboard

Test-split figures of each dataset x preset x variant: mean ± std over seeds (std needs
two seeds or more); the best mean of each metric in bold; ↓ marks a metric where lower is
better. Rows are ranked by mean tau. *≈ best*: ✓ where the row is the best or not
significantly worse than it (two-sided paired permutation test on the same test
documents, each document's tau averaged over seeds, p ≥ 0.05), ✗ where it is, ? where the
comparison was impossible. The second table gives 95% intervals of the main metrics:
*seeds*, the Student-t interval of the seed mean; *docs*, each run's bootstrap interval
over test documents, averaged over seeds. `leaderboard.csv` holds every figure.
"""
MISSING = "–"


def _number(value: float, digits: int = 3) -> str:
    return MISSING if pd.isna(value) else f"{value:.{digits}f}"


def _p_value(p: float) -> str:
    return MISSING if pd.isna(p) else "<0.001" if p < 0.001 else f"{p:.3f}"


def _interval(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return MISSING
    return f"[{low:.3f}, {high:.3f}]"


def _params(count: int) -> str:
    if pd.isna(count):
        return MISSING
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if count >= size:
            return f"{count / size:.1f}{suffix}"
    return str(int(count))


def _mark(value) -> str:
    if pd.isna(value):
        return "?"
    return "✓" if value else "✗"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _metrics(table: pd.DataFrame) -> list[str]:
    return [column[: -len("_mean")] for column in table.columns if column.endswith("_mean")]


def _figures_table(rows: pd.DataFrame, metrics: Sequence[str]) -> list[str]:
    best = {
        metric: (rows[f"{metric}_mean"].min() if metric in LOWER_IS_BETTER
                 else rows[f"{metric}_mean"].max())
        for metric in metrics
    }
    names = [metric + (" ↓" if metric in LOWER_IS_BETTER else "") for metric in metrics]
    lines = [
        _row(["rank", "preset", "variant", "seeds", *names, "params", "train min", "p vs best",
              "≈ best"]),
        _row(["---:", "---", "---", "---:", *["---:"] * len(metrics), "---:", "---:", "---:",
              ":---:"]),
    ]
    for _, row in rows.iterrows():
        cells = []
        for metric in metrics:
            mean, std = row[f"{metric}_mean"], row[f"{metric}_std"]
            text = _number(mean) + ("" if math.isnan(std) else f" ± {std:.3f}")
            cells.append(f"**{text}**" if mean == best[metric] else text)
        lines.append(_row([
            str(row["rank"]), row["preset"], row["variant"], str(row["n_seeds"]), *cells,
            _params(row["n_params"]), _number(row["train_minutes"], 1),
            _p_value(row["tau_p_vs_best"]), _mark(row["not_worse_than_best"]),
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
        lines.append(_row([str(row["rank"]), row["preset"], row["variant"], *cells]))
    return lines


def to_markdown(table: pd.DataFrame, main: Sequence[str]) -> str:
    """The leaderboard as a Markdown document, one section per dataset."""
    metrics = _metrics(table)
    main = [metric for metric in main if metric in metrics]
    parts = [HEADER]
    for dataset, rows in table.groupby("dataset", sort=True):
        n_docs = ", ".join(str(n) for n in sorted(rows["n_docs"].dropna().unique())) or MISSING
        parts.append(f"## {dataset}\n\n{n_docs} test documents; best: {rows['best'].iloc[0]}.\n")
        parts.append("\n".join(_figures_table(rows, metrics)) + "\n")
        parts.append("\n".join(_intervals_table(rows, main)) + "\n")
    return "\n".join(parts)
