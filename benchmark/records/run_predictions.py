"""A finished run's test predictions with what identifies the run (`benchmark.compare`,
the plots)."""

from __future__ import annotations

from pathlib import Path

from benchmark.records.predictions import read_predictions
from benchmark.records.run_record import PREDICTIONS_NAME, read_run_record

RUN_KEYS = ("model", "dataset", "variant", "seed")  # copied from the run record


def load_run(path: str | Path) -> tuple[dict, list[dict]]:
    """(description, prediction records) of a run directory or a predictions file."""
    path = Path(path)
    if path.is_dir():
        record = read_run_record(path)
        about = {"path": str(path), **{key: record.get(key) for key in RUN_KEYS}}
        predictions = path / PREDICTIONS_NAME
    else:
        about, predictions = {"path": str(path)}, path
    return about, [prediction.to_json() for prediction in read_predictions(predictions)]
