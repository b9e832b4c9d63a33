"""A CSV log (`csv/metrics.csv`) that continues when a run resumes.

Lightning's `CSVLogger` deletes an existing `metrics.csv` when it starts, so a resumed
run lost the curves of the epochs before its checkpoint. `ResumableCSVLogger` keeps them:
told where the training resumes (`continue_from`), it keeps the rows of the epochs the
checkpoint has completed, drops those of later epochs (they are trained again and logged
anew), and appends under the file's own header; each epoch is then in the file once. A
fresh start still begins with an empty file.

The `epoch` column counts from 1 (`benchmark.records.training_log`; the LightningModule
logs it); a log that counts from 0, written before, is renumbered from 1 when a resumed run
trims it.
"""

from __future__ import annotations

import csv
import io
import logging
import os

from lightning_fabric.utilities.rank_zero import rank_zero_only
from pytorch_lightning.loggers import CSVLogger
from pytorch_lightning.loggers.csv_logs import ExperimentWriter

from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.training_log import log_is_zero_based
from benchmark.training.checkpoint_position import CheckpointPosition

log = logging.getLogger(__name__)


def _kept(row: dict, position: CheckpointPosition, zero_based: bool) -> bool:
    """A row logged before `position` (by its epoch, else its step); `position.epoch` is
    Lightning's 0-based index of the last epoch the checkpoint completed."""
    epoch, step = row.get("epoch") or "", row.get("step") or ""
    if epoch.strip():
        return float(epoch) <= position.epoch + (0 if zero_based else 1)
    return not step.strip() or float(step) <= position.global_step


def _from_one(row: dict) -> dict:
    """A row of a 0-based log, its epoch counted from 1."""
    epoch = (row.get("epoch") or "").strip()
    return {**row, "epoch": str(int(float(epoch)) + 1)} if epoch else row


def trim_metrics_csv(path: str, position: CheckpointPosition | None) -> list[str]:
    """Keep the rows of `path` up to `position` (None: remove the file); returns the
    file's header (empty when there is no file left)."""
    if not os.path.isfile(path):
        return []
    if position is None:
        os.remove(path)
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        rows = list(reader)
    zero_based = log_is_zero_based(rows)
    kept = [row for row in rows if _kept(row, position, zero_based)]
    if zero_based:
        kept = [_from_one(row) for row in kept]
    if len(kept) < len(rows):
        log.info("%s: %d rows after epoch %d dropped (trained again)",
                 path, len(rows) - len(kept), position.epoch + 1)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=header, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(kept)
    atomic_write_text(path, text.getvalue())
    return header


class _ContinuingWriter(ExperimentWriter):
    """Lightning's CSV writer, minus the deletion of the file it finds."""

    def __init__(self, log_dir: str, position: CheckpointPosition | None) -> None:
        self._position = position
        super().__init__(log_dir)

    def _check_log_dir_exists(self) -> None:  # called by __init__ instead of deleting
        self.metrics_keys = trim_metrics_csv(self.metrics_file_path, self._position)


class ResumableCSVLogger(CSVLogger):
    """`CSVLogger` that appends to the rows of the epochs a resumed run has completed."""

    _position: CheckpointPosition | None = None

    @rank_zero_only
    def log_metrics(self, metrics: dict, step: int | None = None) -> None:
        """Lightning's, with a whole-number `epoch` written as an integer (`3`, not `3.0`)."""
        epoch = metrics.get("epoch")
        if isinstance(epoch, float) and epoch.is_integer():
            metrics = {**metrics, "epoch": int(epoch)}
        super().log_metrics(metrics, step)

    def continue_from(self, position: CheckpointPosition | None) -> None:
        """Where this run's training starts again (None: from scratch); before logging."""
        self._position = position

    @property
    def experiment(self) -> ExperimentWriter:
        if self._experiment is None and self._is_global_zero():
            os.makedirs(self.root_dir, exist_ok=True)
            self._experiment = _ContinuingWriter(self.log_dir, self._position)
        return super().experiment

    @staticmethod
    def _is_global_zero() -> bool:
        return getattr(rank_zero_only, "rank", 0) == 0
