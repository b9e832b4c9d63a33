"""The run record `metrics.json` (docs/design.md, section 3): its fields (`run_record`),
written atomically when a run ends (`write_run_record`); standard JSON, an undefined figure
(NaN) as `null` (`benchmark.records.json_values`).

Only a finished run has a `metrics.json`; a crashed or interrupted run leaves none, so
nothing downstream (scoring, the leaderboard) ever reads half a result.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.json_values import dumps

RECORD_NAME = "metrics.json"
PREDICTIONS_NAME = "predictions.jsonl"
VOCAB_NAME = "vocab.json"  # the run's vocabulary, so a trained run can order new text
CHECKPOINT_DIR = "checkpoints"
BEST_CHECKPOINT = "best.ckpt"  # the checkpoint selected on valid
SELECTED_CHECKPOINT = f"{CHECKPOINT_DIR}/{BEST_CHECKPOINT}"  # relative to the run directory


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


def run_record(
    *, model: str, dataset: str, variant: str, seed: int, split: dict, ci: dict,
    breakdowns: dict, n_params: int, train_seconds: float, progress: dict, environment: dict,
    best_checkpoint: str | None, resources: dict, data: dict, identity: dict, protocol: dict,
    config: dict,
) -> dict:
    """The run record's fields (docs/design.md, sections 3 and 8), in one place: what a
    finished run is known by, its figures, how it trained, on what and under which
    protocol, and the resolved config. `progress` holds `epochs`, `best_epoch`, `steps`
    and `stopped_by` (`benchmark.training.progress`); `best_checkpoint` is relative to the
    run's folder; `resources` the CPU seconds and memory it took
    (`benchmark.training.resources`)."""
    return {
        "model": model,
        "dataset": dataset,
        "variant": variant,
        "seed": seed,
        "split": split,
        "ci": ci,
        "breakdowns": breakdowns,
        "n_params": n_params,
        "train_seconds": round(train_seconds, 2),
        **progress,
        "environment": environment,
        "best_checkpoint": best_checkpoint,
        "resources": resources,
        "n_docs": split["test"]["n_docs"],
        "n_trivial": split["test"]["n_trivial"],
        "data": data,
        "identity": identity,
        "protocol": protocol,
        "config": config,
        "git_commit": git_commit(),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
