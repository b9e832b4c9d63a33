"""A run record vouches for itself (docs/design.md, sections 3 and 8).

When a run finishes, `seal` adds to its record (`seal` in `metrics.json`) the sha256 of
the files its figures came from or produced (`SEALED_FILES`: `predictions.jsonl`,
`vocab.json`, `checkpoints/best.ckpt`, those the run has) and of every part of the record
itself (its figures, its resolved `config`, its `identity` with the data's digest ...).
Every reader checks what it uses before trusting it (`verify`):

- every figure lies in its range (`benchmark.metrics.directions.METRIC_RANGES`), in every
  record, sealed or not (`figure_problems`);
- every part of a sealed record is as sealed (a figure or the config edited by hand);
- every file the reader reads is as sealed (`predictions.jsonl` for the reports and
  `compare`, `vocab.json` and the checkpoint for `evaluate` and `predict`).

A mismatch is an `UntrustedRecordError`: one line naming the file and what differs. A
sealed file that is missing is not a mismatch (it cannot mislead): the reader that needs
it says it is missing, as for any run. A record written before seals existed is
*unsealed*: its figures are range-checked, its files cannot be, and the readers say so once
(`UNSEALED`). A tool that adds figures to a sealed record (`orderbench evaluate
task=discrimination`) seals it again with `reseal`, keeping the files' digests.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

from benchmark.metrics.directions import METRIC_RANGES, range_problem
from benchmark.records.json_values import dumps
from benchmark.records.run_record import (
    PREDICTIONS_NAME,
    RECORD_NAME,
    SELECTED_CHECKPOINT,
    VOCAB_NAME,
    read_run_record,
)
from data.readers.content_hash import file_sha256

SEAL_KEY = "seal"
SEALED_FILES = (PREDICTIONS_NAME, VOCAB_NAME, SELECTED_CHECKPOINT)
# the parts of a record that hold figures, range-checked by every reader
FIGURE_SECTIONS = ("split", "ci", "breakdowns", "random_baseline", "n_docs", "n_trivial")
UNSEALED = "unsealed record (written before runs were sealed): its files are not verified"
SHOWN_DIGITS = 12  # hex digits of a digest shown in a message


class UntrustedRecordError(ValueError):
    """A run record whose figures or files cannot be trusted; the message is one line
    naming the file and what differs."""


class UnsealedRecordWarning(UserWarning):
    """A record written before runs were sealed: read, but its files are not verified."""


def _sha256(value) -> str:
    """The digest of a record's part, as read back from `metrics.json` (NaN as null)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_sha256(text: str) -> str:
    """The digest of a file holding `text` in UTF-8 (as `atomic_write_text` writes it)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sealed(record: Mapping, files: Mapping[str, str]) -> dict:
    body = {key: value for key, value in record.items() if key != SEAL_KEY}
    read_back = json.loads(dumps(body))  # what a reader will digest
    parts = {key: _sha256(value) for key, value in read_back.items()}
    return {**body, SEAL_KEY: {"files": dict(files), "record": parts}}


def seal(record: Mapping, run_dir: Path) -> dict:
    """`record` with its seal: the digests of the `SEALED_FILES` that `run_dir` holds and
    of every part of the record."""
    files = {
        name: file_sha256(Path(run_dir) / name)
        for name in SEALED_FILES
        if (Path(run_dir) / name).is_file()
    }
    return _sealed(record, files)


def reseal(record: Mapping) -> dict:
    """A sealed `record` whose parts were extended after it was verified, sealed again
    with the digests its files were sealed with (they are not read)."""
    files = {name: sealed_digest(record, name) for name in SEALED_FILES}
    return _sealed(record, {name: digest for name, digest in files.items() if digest})


def is_sealed(record: Mapping) -> bool:
    return SEAL_KEY in record


def _figures(node, dotted: str, metric: str | None) -> Iterable[tuple[str, str, object]]:
    """(dotted key, metric, value) of every leaf under `node` that lies under a declared
    metric (the innermost one: `ci.test.tau.ci_low` is a tau)."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            inner = key if key in METRIC_RANGES else metric
            yield from _figures(value, f"{dotted}.{key}", inner)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _figures(value, f"{dotted}[{index}]", metric)
    elif metric is not None:
        yield dotted, metric, node


def figure_problems(record: Mapping) -> list[str]:
    """`split.test.tau = 1.5 is outside its range [-1, 1]`: one line per figure of the
    record's `FIGURE_SECTIONS` that no run could have computed."""
    problems = []
    for section in FIGURE_SECTIONS:
        if section not in record:
            continue
        metric = section if section in METRIC_RANGES else None
        for dotted, name, value in _figures(record[section], section, metric):
            if problem := range_problem(name, value):
                problems.append(f"{dotted} = {value!r} is {problem}")
    return problems


def _short(digest: str) -> str:
    return f"{digest[:SHOWN_DIGITS]}..."


def part_problem(record: Mapping) -> str | None:
    """Which parts of a sealed record changed since it was sealed, or None."""
    parts = record[SEAL_KEY].get("record") if isinstance(record[SEAL_KEY], Mapping) else None
    if not isinstance(parts, Mapping):
        return "its seal is malformed (no digests of its parts)"
    body = {key: value for key, value in record.items() if key != SEAL_KEY}
    changed = [
        key for key in sorted(set(parts) | set(body))
        if parts.get(key) != (_sha256(body[key]) if key in body else None)
    ]  # fmt: skip
    if not changed:
        return None
    return (f"{', '.join(changed)} changed after the run was sealed (their sha256 differs "
            "from the seal)")


def sealed_digest(record: Mapping, name: str) -> str | None:
    """The sha256 the record's seal holds for its run's file `name` (None: not sealed)."""
    seal_ = record.get(SEAL_KEY)
    files = seal_.get("files") if isinstance(seal_, Mapping) else None
    digest = files.get(name) if isinstance(files, Mapping) else None
    return digest if isinstance(digest, str) else None


def file_problem(run_dir: Path, record: Mapping, name: str) -> str | None:
    """What differs between the run's file `name` and its seal, or None (not sealed,
    missing, or as sealed)."""
    sealed = sealed_digest(record, name)
    path = Path(run_dir) / name
    if sealed is None or not path.is_file():
        return None
    actual = file_sha256(path)
    if actual == sealed:
        return None
    return (f"{path}: changed after the run (sha256 {_short(actual)}, sealed {_short(sealed)} "
            f"in {RECORD_NAME})")


def verify(run_dir: Path, record: Mapping, files: Iterable[str] = ()) -> bool:
    """Check a run's record and the files of it that a reader uses (names relative to the
    run directory): UntrustedRecordError naming the file and what differs; True when the
    record is sealed (all checked), False for an unsealed one (its figures checked)."""
    path = Path(run_dir) / RECORD_NAME
    if problems := figure_problems(record):
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UntrustedRecordError(f"{path}: {problems[0]}{more}")
    if not is_sealed(record):
        return False
    if problem := part_problem(record):
        raise UntrustedRecordError(f"{path}: {problem}")
    for name in files:
        if problem := file_problem(run_dir, record, name):
            raise UntrustedRecordError(problem)
    return True


def read_verified_record(run_dir: Path, files: Iterable[str] = ()) -> dict:
    """The run's record, verified with the files a reader uses (`verify`); an unsealed one
    is said in an `UnsealedRecordWarning` naming it."""
    record = read_run_record(run_dir)
    if not isinstance(record, dict):
        raise UntrustedRecordError(f"{Path(run_dir) / RECORD_NAME}: not a run record (not a "
                                   "JSON object)")
    if not verify(run_dir, record, files):
        warnings.warn(f"{Path(run_dir) / RECORD_NAME}: {UNSEALED}", UnsealedRecordWarning,
                      stacklevel=2)
    return record
