"""The per-epoch CSV log of a run (`csv/metrics.csv`) and how its epochs are counted.

The `epoch` column counts from 1 (docs/design.md, section 8): the rows of epoch k hold its
training loss and the valid figures after it; the test row holds the epoch of the checkpoint
it tested (0 for a model that is not trained). Logs written before that convention counted
from 0, and logged the validation of the selected checkpoint as one more epoch after the
last; readers tell the two apart with `log_is_zero_based`, and `epoch_curves` reads the
figures of each trained epoch.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

LOG_NAME = "csv/metrics.csv"
CURVE_PREFIXES = ("val/", "train/")  # the per-epoch columns `epoch_curves` reads by default


def log_is_zero_based(rows: Iterable[Mapping]) -> bool:
    """True for a log that counts epochs from 0: it has epoch 0 and training (a later epoch
    or a training loss). Counted from 1, epoch 0 is only an untrained model's, whose log has
    nothing else; for such a model both conventions write the same rows."""
    rows, epochs = list(rows), set()
    for row in rows:
        try:
            epochs.add(float((row.get("epoch") or "").strip()))
        except ValueError:  # blank, or not a number (the reader names the line)
            continue
    trained = any((row.get("train/loss") or "").strip() for row in rows)
    return 0 in epochs and (trained or max(epochs) > 0)


def epoch_curves(
    path: Path, columns: Sequence[str] | None = None, trained: int | None = None
) -> dict[str, dict[int, float]]:
    """Column -> {epoch (from 1): its figure} of the CSV log at `path` ({} when there is
    none), for `columns` (default: every `val/` and `train/` column). A log written when
    epochs were counted from 0 (`log_is_zero_based`) is read as such; epochs after
    `trained` (the re-evaluation of the selected checkpoint such a log adds) are left out;
    an epoch logged twice keeps its first value. ValueError naming file:line for a figure
    that is not a number."""
    path = Path(path)
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, rows = list(reader.fieldnames or []), list(reader)
    if columns is None:
        columns = [name for name in header if name.startswith(CURVE_PREFIXES)]
    shift = 1 if log_is_zero_based(rows) else 0
    curves: dict[str, dict[int, float]] = {column: {} for column in columns}
    for line, row in enumerate(rows, start=2):
        epoch = (row.get("epoch") or "").strip()
        for column in columns:
            text = (row.get(column) or "").strip()
            if not text or not epoch:
                continue
            try:
                number, value = int(float(epoch)) + shift, float(text)
            except ValueError as error:
                raise ValueError(f"{path}:{line}: not a number: {error}") from None
            if trained is None or number <= trained:
                curves[column].setdefault(number, value)
    return {column: dict(sorted(values.items())) for column, values in curves.items() if values}
