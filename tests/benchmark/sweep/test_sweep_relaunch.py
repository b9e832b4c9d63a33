"""The smoke sweep (`make sweep-local SWEEP=smoke` and its in-process twin): 4 runs;
relaunching runs nothing; after deleting one record, relaunching runs exactly that one;
archived runs copied back into a new runs folder are finished runs a relaunch skips."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixtures_sweep import run_dir_of, run_train

from benchmark.report.archive import main as archive

LAUNCHERS = [
    pytest.param((), id="in-process"),
    pytest.param(  # the command of `make sweep-local SWEEP=smoke`
        ("hydra/launcher=local", "hydra.sweeper.max_batch_size=2"),
        id="submitit-local",
        marks=pytest.mark.slow,
    ),
]


def records(runs: Path) -> dict[Path, int]:
    """Run record -> modification time (ns)."""
    return {path: path.stat().st_mtime_ns for path in sorted(runs.rglob("metrics.json"))}


def sweep(runs: Path, launcher: tuple[str, ...]) -> str:
    result = run_train(runs, "-m", "sweep=smoke", *launcher)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_smoke_sweep_runs_each_job_once_and_only_what_is_missing(tmp_path: Path, launcher):
    out = sweep(tmp_path, launcher)
    first = records(tmp_path)
    assert list(first) == [
        run_dir_of(tmp_path, f"synthetic/{model}/smoke", seed) / "metrics.json"
        for model in ("lstm_ptrnet", "random") for seed in (0, 1)
    ]
    assert "4 runs: 4 finished (4 in this sweep, 0 before)" in out

    out = sweep(tmp_path, launcher)
    assert records(tmp_path) == first
    assert "4 runs: 4 finished (0 in this sweep, 4 before)" in out

    deleted = run_dir_of(tmp_path, "synthetic/lstm_ptrnet/smoke", 1) / "metrics.json"
    deleted.unlink()
    out = sweep(tmp_path, launcher)
    again = records(tmp_path)
    assert {path for path in first if again[path] != first[path]} == {deleted}
    assert "4 runs: 4 finished (1 in this sweep, 3 before)" in out


@pytest.mark.slow
def test_archived_runs_copied_back_are_skipped_by_a_relaunch(tmp_path: Path):
    runs, kept = tmp_path / "runs", tmp_path / "kept"
    sweep(runs, ())
    assert archive([str(runs), str(kept)]) == 0
    shutil.rmtree(runs)  # the machine that ran them is gone
    assert archive([str(kept), str(runs)]) == 0  # on the next one, the archive copied back
    restored = records(runs)
    assert len(restored) == 4 and not list(runs.rglob("*.ckpt"))
    out = sweep(runs, ())
    assert records(runs) == restored
    assert "4 runs: 4 finished (0 in this sweep, 4 before)" in out
