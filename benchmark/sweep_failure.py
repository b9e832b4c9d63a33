"""`failed.json`: what a failed run leaves in its run directory for the sweep summary.

Written atomically by the launch that failed (the error, the end of its traceback and the
log files to read); removed when a later launch of the run finishes or finds it finished.
"""

from __future__ import annotations

import json
import socket
import time
import traceback
from pathlib import Path

from benchmark.atomic_io import atomic_write_text

FAILURE_NAME = "failed.json"
_TRACEBACK_LINES = 30


def write_failure(run_dir: Path, error: BaseException, logs: list[Path]) -> Path:
    """Record `error` in `run_dir/failed.json`; `logs` are the files with the full story."""
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    failure = {
        "error": f"{type(error).__name__}: {error}",
        "traceback": "".join(lines).splitlines()[-_TRACEBACK_LINES:],
        "logs": [str(path) for path in logs],
        "host": socket.gethostname(),
        "failed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    path = Path(run_dir) / FAILURE_NAME
    atomic_write_text(path, json.dumps(failure, indent=2) + "\n")
    return path


def read_failure(run_dir: Path) -> dict | None:
    """The failure recorded in `run_dir`, or None."""
    path = Path(run_dir) / FAILURE_NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def clear_failure(run_dir: Path) -> None:
    """Forget an earlier failure of a run that has now finished."""
    (Path(run_dir) / FAILURE_NAME).unlink(missing_ok=True)
