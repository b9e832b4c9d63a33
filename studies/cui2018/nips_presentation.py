"""How much a NIPS row's test figures move with the presentation of the shuffled sentences.

Every run is tested on the suite's fixed permutations (protocol seed 0: docs/design.md,
section 5), so the rows stay paired. A model whose paragraph encoding reads the sentences
in the presented order (a pretrained paragraph encoder, with its position embeddings) may
score otherwise under another presentation of the same documents: each finished run of
such a row is decoded again under `presentations` other fixed shuffles (protocol seeds 1
to N, `benchmark.evaluate.evaluate_order`). A row whose preset is registered order-free
(`order_free`: its paragraph encoding ignores the presented order) cannot move and is not
decoded again. The figures are kept in `PRESENTATION_CSV` beside the page, so a later page
reuses them and decodes only what is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from models.registry import get_preset

PRESENTATION_CSV = "reproduction_nips_presentation.csv"
COLUMNS = ("row", "preset", "seed", "config_id", "protocol_seed", "tau", "pmr", "acc")


def order_free(preset: str) -> bool:
    """Whether the preset's paragraph encoding ignores the presented order (registry)."""
    return get_preset(preset).order_free


def presentation_figures(
    groups: dict, presentations: int, known: pd.DataFrame, decode: Callable[[Path, int], dict]
) -> pd.DataFrame:
    """One line per (run of an order-reading row, protocol seed 1..presentations): its test
    tau, PMR and accuracy; lines of `known` (an earlier page's) are kept, the missing ones
    decoded with `decode(run_dir, protocol_seed)`."""
    lines = [] if known.empty else known.to_dict("records")
    have = {(line["row"], line["seed"], line["config_id"], line["protocol_seed"])
            for line in lines}  # fmt: skip
    for row, runs in groups.items():
        if order_free(row.preset):
            continue
        for run in runs:
            for seed in range(1, presentations + 1):
                if (row.label, run.seed, run.config_id, seed) in have:
                    continue
                figures = decode(run.path, seed)
                lines.append({"row": row.label, "preset": row.preset, "seed": run.seed,
                              "config_id": run.config_id, "protocol_seed": seed,
                              **{key: figures[key] for key in ("tau", "pmr", "acc")}})  # fmt: skip
    return pd.DataFrame(lines, columns=list(COLUMNS))


def read_known(out: Path) -> pd.DataFrame:
    """The figures an earlier page kept (empty where there are none)."""
    path = out / PRESENTATION_CSV
    return pd.read_csv(path) if path.is_file() else pd.DataFrame(columns=list(COLUMNS))


def presentation_lines(groups: dict, figures: pd.DataFrame) -> list[str]:
    """The page's section: for each row, order-free or the spread of its tau over the other
    presentations (per seed: the standard deviation and range over them, averaged over
    seeds) beside its tau on the fixed permutations."""
    lines = [
        "", "## Presentation", "",
        "Every run is tested on the same fixed permutations of the test abstracts (protocol "
        "seed 0), so the rows are paired. A row whose encoder reads the sentences in the "
        "presented order is decoded again under other fixed shuffles (protocol seeds 1 to "
        "N: `orderbench evaluate RUN task=order protocol_seed=N`); an order-free row "
        "(registry `order_free`) cannot move.", "",
        "| row | presentations | tau, fixed (seed 0) | tau, others: mean | std over them | "
        "range |",
        "|---|---:|---:|---:|---:|---:|",
    ]  # fmt: skip
    fixed_tau = fixed_taus(groups)
    for row in groups:
        if order_free(row.preset):
            lines.append(f"| {row.label} | order-free | {fixed_tau[row.label]:.3f} | — | 0 | 0 |")
            continue
        mine = figures[figures["row"] == row.label]
        if mine.empty:
            lines.append(f"| {row.label} | not measured | {fixed_tau[row.label]:.3f} | — | — | — |")
            continue
        per_seed = mine.groupby("seed")["tau"]
        spread = (per_seed.max() - per_seed.min()).mean()
        lines.append(
            f"| {row.label} | {mine['protocol_seed'].nunique()} × {per_seed.ngroups} seeds | "
            f"{fixed_tau[row.label]:.3f} | {mine['tau'].mean():.3f} | "
            f"{per_seed.std(ddof=1).mean():.4f} | {spread:.4f} |"
        )
    return lines


def fixed_taus(groups: dict) -> dict[str, float]:
    """Each row's mean test tau over its runs on the fixed permutations."""
    return {row.label: float(pd.Series([run.metrics.get("tau") for run in runs]).mean())
            for row, runs in groups.items()}  # fmt: skip

