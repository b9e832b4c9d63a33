"""The sweep summary: the state of each run directory, failures with their error and logs."""

from __future__ import annotations

from pathlib import Path

from benchmark.records.failure import clear_failure, write_failure
from benchmark.records.run_record import write_run_record
from benchmark.sweep.summary import (
    FAILED,
    FINISHED,
    INTERRUPTED,
    NOT_RUN,
    find_run_dirs,
    format_summary,
    main,
    run_state,
)

# the least a finished run's record holds (benchmark.records.run_collection.record_problem)
RECORD = {"config": {}, "model": "m", "dataset": "synthetic", "seed": 0,
          "split": {"test": {"tau": 0.5}}}


def fail(run_dir: Path, message: str = "Invalid learning rate: -1") -> None:
    try:
        raise ValueError(message)
    except ValueError as error:
        write_failure(run_dir, error, [run_dir / "train.log"])


def runs(tmp_path: Path) -> dict[str, Path]:
    dirs = {name: tmp_path / "synthetic" / name / "base" / "seed_0" for name in
            ("done", "broken", "killed", "never")}
    write_run_record(dirs["done"], RECORD)
    fail(dirs["broken"])
    (dirs["killed"] / ".hydra").mkdir(parents=True)
    (tmp_path / ".submitit" / "1" / ".hydra").mkdir(parents=True)  # not a run directory
    return dirs


def test_each_run_directory_has_one_state(tmp_path: Path):
    dirs = runs(tmp_path)
    assert [run_state(dirs[name]).state for name in ("done", "broken", "killed", "never")] == [
        FINISHED, FAILED, INTERRUPTED, NOT_RUN
    ]
    assert find_run_dirs(tmp_path) == sorted([dirs["broken"], dirs["done"], dirs["killed"]])


def test_a_failed_relaunch_of_a_finished_run_shows_as_failed_until_it_succeeds(tmp_path: Path):
    run_dir = tmp_path / "run"
    write_run_record(run_dir, RECORD)
    fail(run_dir, "RunConflictError: made with another config")
    assert run_state(run_dir).state == FAILED
    clear_failure(run_dir)
    assert run_state(run_dir).state == FINISHED


def test_summary_lists_failures_with_error_and_logs(tmp_path: Path):
    dirs = runs(tmp_path)
    states = [run_state(path) for path in dirs.values()]
    text = format_summary(states, since=0.0)
    assert text.splitlines()[0] == (
        "Sweep summary: 4 runs: 1 finished (1 in this sweep, 0 before), 1 failed, "
        "1 interrupted, 1 not run"
    )
    assert f"FAILED  {dirs['broken']}" in text
    assert "ValueError: Invalid learning rate: -1" in text
    assert f"logs: {dirs['broken'] / 'train.log'}" in text
    assert f"INTERRUPTED  {dirs['killed']}" in text


def test_cli_exit_status_says_whether_every_run_finished(tmp_path: Path, capsys):
    runs(tmp_path)
    assert main([str(tmp_path)]) == 1
    assert "1 failed" in capsys.readouterr().out
    finished = tmp_path / "only"
    write_run_record(finished / "a", RECORD)
    assert main([str(finished)]) == 0


def test_a_truncated_or_incomplete_record_is_not_a_finished_run(tmp_path: Path):
    truncated, incomplete = tmp_path / "a", tmp_path / "b"
    write_run_record(truncated, RECORD)
    text = (truncated / "metrics.json").read_text()
    (truncated / "metrics.json").write_text(text[: len(text) // 2])
    write_run_record(incomplete, {"config": {}})
    assert run_state(truncated).state == run_state(incomplete).state == INTERRUPTED


def test_a_runs_directory_that_does_not_exist_is_an_error(tmp_path: Path, capsys):
    assert main([str(tmp_path / "nope")]) == 2
    assert "nope: no such runs directory" in capsys.readouterr().err
