"""The run record `metrics.json` (DESIGN section 3), written atomically when a run ends;
standard JSON, an undefined figure (NaN) as `null` (`benchmark.records.json_values`).

Only a finished run has a `metrics.json`; a crashed or interrupted run leaves none, so
nothing downstream (scoring, the leaderboard) ever reads half a result.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.json_values import dumps

RECORD_NAME = "metrics.json"
PREDICTIONS_NAME = "predictions.jsonl"
VOCAB_NAME = "vocab.json"  # the run's vocabulary, so a trained run can order new text


def git_commit(repo: Path | None = None) -> str:
    """The commit the code ran at (`+dirty` when the tree has changes), or `unknown`."""
    cwd = repo or Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}+dirty" if dirty else commit


def write_run_record(run_dir: Path, record: dict) -> Path:
    """Write `metrics.json` into `run_dir` atomically and return its path."""
    path = Path(run_dir) / RECORD_NAME
    atomic_write_text(path, dumps(record, indent=2, sort_keys=True) + "\n")  # NaN -> null
    return path


def read_run_record(run_dir: Path) -> dict:
    """Read a run directory's `metrics.json`, naming the file on error."""
    path = Path(run_dir) / RECORD_NAME
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise FileNotFoundError(f"{path}: no run record (the run did not finish)") from error
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{error.lineno}: malformed run record: {error.msg}") from error
