"""How much a row's test figures move with the presentation of the shuffled sentences
(docs/design.md, section 5; the command is `orderbench presentation`, `benchmark.presentation`).

Every run is tested on its protocol's fixed presentation of the test documents (protocol
seed 0 unless set), so the rows stay paired. A model that reads the sentences in the
presented order (a pretrained paragraph encoder, with its position embeddings) may score
otherwise under another presentation of the same documents: each run of such a row is
decoded again under `presentations` other fixed shuffles (the first protocol seeds other
than its own). A row whose preset is registered order-free (registry `order_free`: its
paragraph encoding ignores the presented order) cannot move and is not decoded again. The
figures are kept in a CSV (`COLUMNS`) beside the report, so a later report reuses them and
decodes only what is missing (a folder of archived records, without checkpoints, is
reported from the CSV alone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

import pandas as pd

from benchmark.metrics.registry import HEADLINE
from benchmark.records.comparability import protocol_of
from benchmark.records.run_collection import Run
from models.registry import get_preset

COLUMNS = ("row", "preset", "seed", "config_id", "protocol_seed", *HEADLINE)
# (run folder, protocol seed) -> its test figures, or None where it could not be decoded
Decode = Callable[[Path, int], "dict | None"]


class PresentedRow(Protocol):
    """What a row needs here: its label on the page and its preset."""

    label: str
    preset: str


class RowName(NamedTuple):
    """A row of a report that has no row type of its own (the leaderboard's rows)."""

    label: str
    preset: str


def order_free(preset: str) -> bool:
    """Whether the preset's paragraph encoding ignores the presented order (registry)."""
    return get_preset(preset).order_free


def other_protocol_seeds(run: Run, presentations: int) -> list[int]:
    """The first `presentations` protocol seeds other than the one the run was tested under
    (`comparability.protocol_of`; 0, the default, where its record does not say)."""
    own = protocol_of(run.record)["protocol_seed"] or 0
    return [seed for seed in range(presentations + 1) if seed != own][:presentations]


def presentation_figures(
    groups: Mapping[PresentedRow, Sequence[Run]], presentations: int, known: pd.DataFrame,
    decode: Decode,
) -> pd.DataFrame:
    """One line per (run of an order-reading row, other protocol seed): its test tau, PMR and
    accuracy; lines of `known` (an earlier report's) are kept, the missing ones decoded with
    `decode(run folder, protocol seed)` (a None from it leaves that line missing)."""
    lines = [] if known.empty else known.to_dict("records")
    have = {(line["row"], line["seed"], line["config_id"], line["protocol_seed"])
            for line in lines}  # fmt: skip
    for row, runs in groups.items():
        if order_free(row.preset):
            continue
        for run in runs:
            for seed in other_protocol_seeds(run, presentations):
                if (row.label, run.seed, run.config_id, seed) in have:
                    continue
                figures = decode(run.path, seed)
                if figures is None:
                    continue
                lines.append({"row": row.label, "preset": row.preset, "seed": run.seed,
                              "config_id": run.config_id, "protocol_seed": seed,
                              **{key: figures[key] for key in HEADLINE}})  # fmt: skip
    return pd.DataFrame(lines, columns=list(COLUMNS))


def read_known(path: Path) -> pd.DataFrame:
    """The figures an earlier report kept in `path` (empty where there are none)."""
    if not path.is_file():
        return pd.DataFrame(columns=list(COLUMNS))
    # a config id is text, also one of digits only ("12345678", "1e345678") or none ("")
    known = pd.read_csv(path, dtype={"row": str, "preset": str, "config_id": str})
    return known.assign(config_id=known["config_id"].fillna(""))


def _fixed_tau(run: Run) -> float:
    return float(run.metrics.get("tau"))


def _mine(figures: pd.DataFrame, label: str, run: Run | None = None) -> pd.DataFrame:
    mine = figures[figures["row"] == label]
    if run is not None:
        mine = mine[(mine["seed"] == run.seed) & (mine["config_id"] == run.config_id)]
    return mine


def row_lines(groups: Mapping[PresentedRow, Sequence[Run]], figures: pd.DataFrame) -> list[str]:
    """Per row: order-free, not measured, or the spread of its tau over the other
    presentations (per seed: the standard deviation and range over them, averaged over
    seeds) beside its mean tau on the fixed presentation, both over the measured seeds
    only ("1 seed of 2" where a run could not be decoded again)."""
    lines = [
        "| row | presentations | tau, fixed | tau, others: mean | std over them | range |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row, runs in groups.items():
        fixed = _mean_fixed_tau(runs)
        if order_free(row.preset):
            lines.append(f"| {row.label} | order-free | {fixed:.3f} | — | 0 | 0 |")
            continue
        mine = _mine(figures, row.label)
        if mine.empty:
            lines.append(f"| {row.label} | not measured | {fixed:.3f} | — | — | — |")
            continue
        measured = [run for run in runs if not _mine(figures, row.label, run).empty]
        per_seed = mine.groupby("seed")["tau"]
        spread = (per_seed.max() - per_seed.min()).mean()
        of_all = "" if len(measured) == len(runs) else f" of {len(runs)}"
        lines.append(
            f"| {row.label} | {mine['protocol_seed'].nunique()} × {per_seed.ngroups} "
            f"seed{'s' if per_seed.ngroups > 1 else ''}{of_all} | "
            f"{_mean_fixed_tau(measured):.3f} | {mine['tau'].mean():.3f} | "
            f"{per_seed.std(ddof=1).mean():.4f} | {spread:.4f} |"
        )
    return lines


def _mean_fixed_tau(runs: Sequence[Run]) -> float:
    return float(pd.Series([_fixed_tau(run) for run in runs]).mean())


def run_lines(groups: Mapping[PresentedRow, Sequence[Run]], figures: pd.DataFrame) -> list[str]:
    """Per run of a measured row: its tau on the fixed presentation, the mean, standard
    deviation and range of its tau over the others, and where the fixed one ranks among
    them all (1 = highest)."""
    lines = [
        "| row | seed | tau, fixed | tau, others: mean | std over them | range | "
        "fixed ranks |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row, runs in groups.items():
        for run in runs:
            taus = _mine(figures, row.label, run)["tau"]
            if taus.empty:
                continue
            fixed = _fixed_tau(run)
            rank = 1 + int((taus > fixed).sum())
            lines.append(
                f"| {row.label} | {run.seed} | {fixed:.4f} | {taus.mean():.4f} | "
                f"{taus.std(ddof=1):.4f} | {taus.min():.4f} to {taus.max():.4f} | "
                f"{rank} of {len(taus) + 1} |"
            )
    return lines
