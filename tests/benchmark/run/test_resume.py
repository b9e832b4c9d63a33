"""A run killed mid-training resumes from `checkpoints/last.ckpt` when launched again: it
trains only the missing epochs, keeps its training time and the cost of every epoch (with
the threads it ran with, also when the second launch has other threads), and continues the
same W&B run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from fixtures_sweep import ROOT, TINY_LSTM, cli_env, run_dir_for, run_train, train_command

EPOCHS = 6
ARGS = (*TINY_LSTM, f"trainer.max_epochs={EPOCHS}", "logger=wandb", "cpu_threads=1")


def kill_after_first_checkpoint(runs: Path, run_dir: Path) -> None:
    """Start the run and kill it (and its W&B process) once `last.ckpt` exists."""
    process = subprocess.Popen(
        train_command(*ARGS, f"paths.runs={runs}"),
        cwd=ROOT, env=cli_env(runs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not (run_dir / "checkpoints" / "last.ckpt").exists():
            assert process.poll() is None, "the run ended before its first checkpoint"
            assert time.monotonic() < deadline, "no checkpoint after 300 s"
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path: Path):
    run_dir = run_dir_for(tmp_path, *ARGS)
    kill_after_first_checkpoint(tmp_path, run_dir)
    assert not (run_dir / "metrics.json").exists()
    wandb_id = json.loads((run_dir / "checkpoints/resume.json").read_text())["wandb_id"]

    result = run_train(tmp_path, *ARGS, "cpu_threads=2")  # not part of the run's identity
    assert result.returncode == 0, result.stderr[-4000:]
    assert f"resuming from {run_dir / 'checkpoints/last.ckpt'}" in result.stdout
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["epochs"] == EPOCHS and record["train_seconds"] > 0
    # the CPU seconds of the epochs before the kill came back with the checkpoint
    assert len(record["resources"]["cpu_seconds_per_epoch"]) == EPOCHS
    threads = record["resources"]["threads_per_epoch"]
    assert threads[0] == 1 and threads[-1] == 2 and set(threads) == {1, 2}, threads
    assert record["environment"]["threads"] == 2  # the last launch's
    assert record["resources"]["precision_per_epoch"] == ["32-true"] * EPOCHS
    # both sessions logged to the same W&B run
    sessions = sorted((run_dir / "wandb").glob("offline-run-*"))
    assert len(sessions) == 2 and all(s.name.endswith(f"-{wandb_id}") for s in sessions)
