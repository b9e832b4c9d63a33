"""Read, validate and write `predictions.jsonl` (docs/design.md, section 3).

One JSON object per line: `{"id": "doc-17", "gold": [0, 1, 2, 3], "pred": [2, 0, 1, 3]}`.
`gold` lists sentence ids (non-negative positions in the original document) in the
correct order, `pred` in the predicted order. A document given distractor sentences lists
their (negative) ids in `"noise": [-1, ...]`; its `pred` may then be any subset of gold +
noise without repeats. Without noise, `pred` must hold exactly the ids of `gold`. An
optional `"meta"` object (the document's meta, e.g. its genre) feeds the breakdowns;
other keys (scores, beam log-probs) are kept as they are. Document ids are unique. Every
rejection names the place (`file:line`, or `record #k` when writing), the document and
every reason (`pred lacks id 3; pred has unknown id 7`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Any

from benchmark.metrics.sentence_ids import document_problems
from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.json_values import dumps
from data.errors import DataFormatError, json_lines, location

REQUIRED_KEYS = ("id", "gold", "pred")
NOISE_KEY = "noise"
META_KEY = "meta"  # optional: the document's meta (genre, source ...), kept in `extra`


class PredictionsError(ValueError):
    """A predictions file or record breaks the contract of docs/design.md, section 3."""


@dataclass(frozen=True)
class Prediction:
    """One validated document prediction."""

    id: str
    gold: tuple[int, ...]
    pred: tuple[int, ...]
    noise: tuple[int, ...] | None = None  # distractor ids; None: no noise setting
    extra: dict[str, Any] = field(default_factory=dict)  # other keys, kept as read
    where: str = field(default="", compare=False)  # "file:line" or "record #k"

    def to_json(self) -> dict[str, Any]:
        """The record as written to `predictions.jsonl`."""
        noise = {} if self.noise is None else {NOISE_KEY: list(self.noise)}
        return {
            "id": self.id,
            "gold": list(self.gold),
            "pred": list(self.pred),
            **noise,
            **self.extra,
        }


def _id_list(obj: Mapping, key: str, fail) -> tuple[int, ...]:
    """The list under `key` as a tuple of ints, or fail with the reason."""
    value = obj[key]
    if hasattr(value, "tolist"):  # numpy arrays and tensors handed to the writer
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(i, Integral) and not isinstance(i, bool) for i in value
    ):
        shown = json.dumps(value, default=repr)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        fail(f"{key!r} must be a list of integer sentence ids, got {shown}")
    return tuple(int(i) for i in value)


def parse_record(obj: Any, where: str) -> Prediction:
    """Validate one decoded record; `where` locates it in messages (e.g. `file:line`)."""
    if not isinstance(obj, Mapping):
        raise PredictionsError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if "id" not in obj:
        raise PredictionsError(f"{where}: missing key 'id'")
    doc_id = obj["id"]
    if not isinstance(doc_id, str):
        raise PredictionsError(f"{where}: 'id' must be a string, got {doc_id!r}")

    def fail(reason: str):
        raise PredictionsError(f"{where}: document {doc_id!r}: {reason}")

    if missing := [key for key in REQUIRED_KEYS if key not in obj]:
        fail("missing key " + ", ".join(repr(key) for key in missing))
    gold = _id_list(obj, "gold", fail)
    pred = _id_list(obj, "pred", fail)
    noise = None if obj.get(NOISE_KEY) is None else _id_list(obj, NOISE_KEY, fail)

    if problems := document_problems(gold, pred, noise):
        fail("; ".join(problems))
    if not isinstance(obj.get(META_KEY) or {}, Mapping):
        fail(f"{META_KEY!r} must be a JSON object (breakdowns group documents by its fields)")

    extra = {key: value for key, value in obj.items() if key not in (*REQUIRED_KEYS, NOISE_KEY)}
    return Prediction(doc_id, gold, pred, noise, extra, where)


class _UniqueIds:
    """Rejects a document id seen before, naming where it was first seen."""

    def __init__(self) -> None:
        self.first_seen: dict[str, str] = {}

    def check(self, record: Prediction) -> None:
        if record.id in self.first_seen:
            raise PredictionsError(
                f"{record.where}: document {record.id!r}: duplicate document id "
                f"(first at {self.first_seen[record.id]})"
            )
        self.first_seen[record.id] = record.where


def read_predictions(path: str | Path) -> list[Prediction]:
    """Read and validate a `predictions.jsonl`; blank lines are skipped."""
    path = Path(path)
    records, unique = [], _UniqueIds()
    try:
        for line_number, obj in json_lines(path):
            where = location(path, line_number)
            record = parse_record(obj, where)
            unique.check(record)
            records.append(record)
    except DataFormatError as error:  # bad JSON or bytes that are not UTF-8, named file:line
        raise PredictionsError(str(error)) from None
    return records


def write_predictions(path: str | Path, records: Iterable[Mapping | Prediction]) -> Path:
    """Validate `records` and write them as `predictions.jsonl`, atomically.

    Records are `Prediction`s or mappings with the keys of docs/design.md, section 3; a bad record
    is rejected (as `record #k`, counting from 0) before anything is written.
    """
    lines, unique = [], _UniqueIds()
    for index, record in enumerate(records):
        obj = record.to_json() if isinstance(record, Prediction) else record
        parsed = parse_record(obj, f"record #{index}")
        unique.check(parsed)
        lines.append(dumps(parsed.to_json(), ensure_ascii=False) + "\n")  # NaN -> null
    path = Path(path)
    atomic_write_text(path, "".join(lines))
    return path
