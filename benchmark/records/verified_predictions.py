"""A finished run's test predictions with its record and what identifies it, both checked
against the record's seal before they are used (`benchmark.compare`, `benchmark.score`;
docs/design.md, section 8)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from benchmark.records.predictions_jsonl import read_predictions
from benchmark.records.run_record import PREDICTIONS_NAME, RECORD_NAME, read_run_record
from benchmark.records.seal import read_verified_record

RUN_KEYS = ("model", "dataset", "variant", "seed")  # copied from the run record


class LoadedRun(NamedTuple):
    about: dict  # its path, and RUN_KEYS for a run directory
    predictions: list[dict]  # the prediction records of its test split
    record: dict | None  # its verified record; None for a predictions file of no run


def run_record_of(path: str | Path) -> dict | None:
    """The record of a run directory, or of the run whose `predictions.jsonl` `path` is,
    verified with that file (`benchmark.records.seal.read_verified_record`); None for a
    predictions file outside a run directory."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if (path.is_dir() or path.name == PREDICTIONS_NAME) and (folder / RECORD_NAME).is_file():
        return read_verified_record(folder, [PREDICTIONS_NAME])
    if path.is_dir():
        read_run_record(path)  # FileNotFoundError naming the missing record
    return None


def load_run(path: str | Path) -> LoadedRun:
    """The predictions of a run directory or a predictions file, with the run's record
    (`run_record_of`: checked first)."""
    path = Path(path)
    record = run_record_of(path)
    about = {"path": str(path)}
    if path.is_dir():
        about |= {key: record.get(key) for key in RUN_KEYS}
    predictions = path / PREDICTIONS_NAME if path.is_dir() else path
    return LoadedRun(about, [p.to_json() for p in read_predictions(predictions)], record)
