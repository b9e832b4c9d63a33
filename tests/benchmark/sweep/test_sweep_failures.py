"""A failing job does not stop the others: it leaves `failed.json`, the sweep goes on and
ends with a summary naming the failure and its logs, and exits with status 1. Runs the
smoke sweep with Hydra's in-process launcher, where one failure would otherwise end it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_sweep import run_dir_of, run_train


@pytest.mark.slow
def test_failures_are_recorded_summarised_and_do_not_stop_the_sweep(tmp_path: Path):
    # an invalid learning rate breaks the trainable preset only (refused before training);
    # random has nothing to train
    result = run_train(tmp_path, "-m", "sweep=smoke", "++model.optimizer.lr=-1")
    assert result.returncode == 1, result.stderr[-3000:]
    broken = [run_dir_of(tmp_path, "synthetic/lstm_ptrnet/smoke", seed) for seed in (0, 1)]
    finished = sorted(p.parent for p in tmp_path.rglob("metrics.json"))
    assert finished == [run_dir_of(tmp_path, "synthetic/random/smoke", seed) for seed in (0, 1)]

    for run_dir in broken:
        failure = json.loads((run_dir / "failed.json").read_text())
        assert failure["error"].startswith("ConfigError: model.optimizer.lr: expected a number")
        assert "model.optimizer.lr" in result.stdout + result.stderr  # the sweep's log
        assert sorted(p.name for p in run_dir.iterdir()) == ["failed.json"]  # refused
        assert f"FAILED  {run_dir}" in result.stdout
    assert "4 runs: 2 finished (2 in this sweep, 0 before), 2 failed" in result.stdout
    assert "2 of 4 runs did not finish" in result.stderr
