"""`failed.json`: what a run that did not finish leaves in its run directory for the sweep
summary.

Written atomically by the launch that failed (the error, the end of its traceback, the
system's error name such as `ENOSPC` when an OSError caused it, and the log files to read;
a signal as an interruption, `write_interruption`), or by the sweep
launcher for a SLURM job that ended without a result (`write_job_end`: cancelled, out of
memory, timed out, preempted, node failure; with `slurm_state`); removed when a later
launch of the run finishes or finds it finished.
"""

from __future__ import annotations

import errno
import json
import socket
import time
import traceback
from pathlib import Path

from benchmark.records.atomic_io import atomic_write_text

FAILURE_NAME = "failed.json"
_TRACEBACK_LINES = 30
DISK_FULL_ERRNOS = ("ENOSPC", "EDQUOT")  # no space left on the device; disk quota exceeded


def _write(run_dir: Path, failure: dict, logs: list[Path]) -> Path:
    failure = {
        **failure,
        "logs": [str(path) for path in logs],
        "host": socket.gethostname(),
        "failed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    path = Path(run_dir) / FAILURE_NAME
    atomic_write_text(path, json.dumps(failure, indent=2) + "\n")
    return path


def write_failure(run_dir: Path, error: BaseException, logs: list[Path]) -> Path:
    """Record `error` in `run_dir/failed.json`; `logs` are the files with the full story."""
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    failure = {
        "error": f"{type(error).__name__}: {error}",
        "traceback": "".join(lines).splitlines()[-_TRACEBACK_LINES:],
    }
    if name := errno_name(error):
        failure["errno"] = name
    return _write(run_dir, failure, logs)


def errno_name(error: BaseException | None) -> str | None:
    """The errno name (`ENOSPC`, ...) of the first OSError in `error`'s chain of causes."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in errno.errorcode:
            return errno.errorcode[error.errno]
        error = error.__cause__ or error.__context__
    return None


def disk_was_full(failure: dict | None) -> bool:
    """Whether a recorded failure is a full disk (or a disk quota reached)."""
    return failure is not None and failure.get("errno") in DISK_FULL_ERRNOS


def write_interruption(run_dir: Path, reason: str, logs: list[Path]) -> Path:
    """Record that a signal stopped the launch (`reason`, e.g. `interrupted by SIGTERM`); the
    run is resumable, so the sweep summary shows it as interrupted, not failed."""
    return _write(run_dir, {"error": reason, "interrupted": True}, logs)


def was_interrupted(failure: dict) -> bool:
    """Whether a recorded failure is an interruption (a signal, or a SLURM job that ended
    without a result) rather than an error of the run."""
    return bool(failure.get("interrupted")) or "slurm_state" in failure


def write_job_end(run_dir: Path, job_id: str, state: str, detail: str, logs: list[Path]) -> Path:
    """Record that SLURM job `job_id` of the run ended in `state` (e.g. `CANCELLED by 0`,
    `OUT_OF_MEMORY`, `TIMEOUT`) without a result; `detail` says what to do about it."""
    return _write(run_dir, {
        "error": f"SLURM job {job_id} ended {state}: {detail}",
        "slurm_state": state.split()[0] if state.strip() else "UNKNOWN",
        "slurm_job": job_id,
    }, logs)


def read_failure(run_dir: Path) -> dict | None:
    """The failure recorded in `run_dir`, or None."""
    path = Path(run_dir) / FAILURE_NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def clear_failure(run_dir: Path) -> None:
    """Forget an earlier failure of a run that has now finished."""
    path = Path(run_dir) / FAILURE_NAME
    if path.exists():  # a read-only folder refuses even the unlink of a missing file
        path.unlink()
