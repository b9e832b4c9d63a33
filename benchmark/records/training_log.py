"""The per-epoch CSV log of a run (`csv/metrics.csv`) and how its epochs are counted.

The `epoch` column counts from 1 (docs/design.md, section 8): the rows of epoch k hold its
training loss and the valid figures after it; the test row holds the epoch of the checkpoint
it tested (0 for a model that is not trained). Logs written before that convention counted
from 0, and logged the validation of the selected checkpoint as one more epoch after the
last; readers tell the two apart with `log_is_zero_based`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

LOG_NAME = "csv/metrics.csv"


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
