"""The NIPS page's lines kept from its earlier tables.

The page is made from the runs folder it is given; the runs of a row may be gone with the
machine that ran them, their records never archived (the 2018-era rows but ATTOrderNet:
docs/reproduction_nips.md). Such a row, and its paired test and ablations, keeps the line
the page's earlier table (the CSVs beside the page, `out`) holds for it, marked `kept`, so
that the page made from the archived records still holds every row with the figures it had.
A line is kept only while no run of its own is in the runs folder: a row with runs is
computed from them, never from a kept line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

TABLE_CSV = "reproduction_nips.csv"
TESTS_CSV = "reproduction_nips_tests.csv"
ABLATIONS_CSV = "reproduction_nips_ablations.csv"
KEPT = "kept"  # the column that marks a kept line
TEXT = {"row": str, "preset": str, "variant": str, "seeds": str, "commits": str,
        "against": str, "against_preset": str, "against_variant": str, "changed": str,
        "base_variant": str, "cpu_models": str}  # fmt: skip


def read(path: Path) -> pd.DataFrame:
    """A table the page wrote earlier (empty where there is none)."""
    if not path.is_file():
        return pd.DataFrame()
    table = pd.read_csv(path, dtype=TEXT)
    if KEPT not in table:
        table[KEPT] = False
    return table.assign(**{KEPT: table[KEPT].fillna(False).astype(bool)})


@dataclass(frozen=True)
class Earlier:
    """The page's earlier tables: rows, paired tests, ablations."""

    table: pd.DataFrame
    tests: pd.DataFrame
    ablations: pd.DataFrame

    @classmethod
    def read(cls, folder: Path) -> Earlier:
        return cls(read(folder / TABLE_CSV), read(folder / TESTS_CSV),
                   read(folder / ABLATIONS_CSV))  # fmt: skip

    @classmethod
    def none(cls) -> Earlier:
        return cls(pd.DataFrame(), pd.DataFrame(), pd.DataFrame())


def kept_line(earlier: pd.DataFrame, **key) -> dict | None:
    """The earlier line whose columns equal `key` (None: none), marked kept."""
    if earlier.empty or any(column not in earlier for column in key):
        return None
    found = earlier
    for column, value in key.items():
        found = found[found[column] == value]
    if found.empty:
        return None
    return {**found.iloc[0].to_dict(), KEPT: True}


def kept_lines(earlier: pd.DataFrame, columns: Iterable[str], live: set[tuple]) -> list[dict]:
    """The earlier lines whose key (`columns`) is not among `live`, marked kept."""
    columns = list(columns)
    if earlier.empty or any(column not in earlier for column in columns):
        return []
    return [{**record, KEPT: True} for record in earlier.to_dict("records")
            if tuple(record[c] for c in columns) not in live]  # fmt: skip


def marked(row: pd.Series) -> str:
    """A row's label on the page, with † where its line is kept."""
    return f"{row['row']} †" if bool(row.get(KEPT, False)) else str(row["row"])
