"""The state of a sweep's runs, printed when a multirun ends and on demand:
`orderbench sweep summary RUNS` summarises every run directory under RUNS.

A run is `failed` when its last launch failed (it has `failed.json`: the error and the logs
to read; an older `metrics.json` beside it stays valid for its own config), else
`finished` (it has a complete `metrics.json`), `interrupted` (it started but left neither: killed,
timed out, or still running; a relaunch resumes it from `checkpoints/last.ckpt`) or
`not run`. A run whose SLURM job ended without a result (its `failed.json` has the
`slurm_state`: CANCELLED, OUT_OF_MEMORY, TIMEOUT, PREEMPTED, NODE_FAIL, ...) is
`interrupted`, shown with that state and the job's logs, as is a launch stopped by SIGTERM
or SIGINT (its `failed.json` says `interrupted`). Finished runs that shared a GPU
(`hydra.launcher.runs_per_gpu`) are counted by how many ran together.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmark.cli_arguments import report_error
from benchmark.cli_commands import SWEEP_SUMMARY
from benchmark.records.failure import FAILURE_NAME, read_failure, was_interrupted
from benchmark.records.run_collection import record_problem
from benchmark.records.run_record import RECORD_NAME, read_run_record

FINISHED, FAILED, INTERRUPTED, NOT_RUN = "finished", "failed", "interrupted", "not run"
_RUN_MARKERS = (RECORD_NAME, FAILURE_NAME, ".hydra")


@dataclass(frozen=True)
class RunState:
    run_dir: Path
    state: str
    failure: dict | None = None
    finished_at: float | None = None  # mtime of metrics.json
    shared: int | None = None  # runs that shared its GPU (its record's environment)


def run_state(run_dir: Path) -> RunState:
    """Where one run directory stands."""
    run_dir = Path(run_dir)
    failure = read_failure(run_dir)
    if failure is not None:
        return RunState(run_dir, INTERRUPTED if was_interrupted(failure) else FAILED, failure)
    record = run_dir / RECORD_NAME
    if record.is_file() and complete_record(run_dir):
        shared = read_run_record(run_dir).get("environment", {}).get("runs_per_gpu")
        return RunState(run_dir, FINISHED, finished_at=record.stat().st_mtime, shared=shared)
    return RunState(run_dir, INTERRUPTED if run_dir.is_dir() else NOT_RUN)


def complete_record(run_dir: Path) -> bool:
    """Whether `metrics.json` parses and holds a finished run's figures (a truncated or
    foreign file does not make a run finished)."""
    try:
        return record_problem(read_run_record(run_dir)) is None
    except (ValueError, OSError):
        return False


def find_run_dirs(runs_dir: Path) -> list[Path]:
    """Every run directory under `runs_dir` (it holds a record, a failure or `.hydra/`)."""
    runs_dir = Path(runs_dir)
    found = {  # hidden folders (.submitit, a rerun's .rerun) are no run directories
        path.parent
        for marker in _RUN_MARKERS
        for path in runs_dir.rglob(marker)
        if not any(part.startswith(".") for part in path.parent.relative_to(runs_dir).parts)
    }
    return sorted(found)


def format_summary(states: list[RunState], since: float | None = None) -> str:
    """A few lines: counts per state, then every run that did not finish and why.
    With `since` (a time stamp), also how many finished runs were written after it."""
    counts = Counter(state.state for state in states)
    finished = f"{counts[FINISHED]} finished"
    if since is not None:
        fresh = sum(s.finished_at is not None and s.finished_at >= since for s in states)
        finished += f" ({fresh} in this sweep, {counts[FINISHED] - fresh} before)"
    parts = [finished] + [f"{counts[s]} {s}" for s in (FAILED, INTERRUPTED, NOT_RUN) if counts[s]]
    lines = [f"Sweep summary: {len(states)} runs: " + ", ".join(parts)]
    together = Counter(state.shared for state in states if state.shared)
    if together:  # hydra.launcher.runs_per_gpu (benchmark.sweep.gpu_sharing)
        lines.append("GPU sharing: " + ", ".join(
            f"{count} run(s) ran {shared} to a GPU" for shared, count in sorted(together.items())
        ))  # fmt: skip
    for state in states:
        if state.state in (FAILED, INTERRUPTED, NOT_RUN):
            lines.append(f"  {state.state.upper()}  {state.run_dir}")
        if state.state != FINISHED and state.failure is not None:
            lines.append(f"      {state.failure['error']}")
            lines.append(f"      logs: {', '.join(state.failure['logs']) or '-'}")
    if counts[FINISHED] < len(states):
        lines.append("Relaunch the same command to run what did not finish (finished runs are "
                     "skipped, interrupted ones resume from their newest intact checkpoint; "
                     "a failed one fails again until its error above is fixed).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return SWEEP_SUMMARY.run(argv, _summarise)


def _summarise(args: dict) -> int:
    runs = Path(args["runs"])
    if not runs.is_dir():
        return report_error(SWEEP_SUMMARY.prog, f"{runs}: no such runs directory")
    states = [run_state(run_dir) for run_dir in find_run_dirs(runs)]
    print(format_summary(states))
    return 0 if all(state.state == FINISHED for state in states) else 1


if __name__ == "__main__":
    sys.exit(main())
