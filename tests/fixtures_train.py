"""`python -m benchmark.train` and the other modules of the suite in a subprocess, as a user
runs them, for the tests that train end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from repo_root import ROOT


def run_cli(module: str, *args: str, env_extra: dict | None = None, timeout: int = 900):
    env = {**os.environ, "WANDB_MODE": "offline", "PYTHONHASHSEED": "0", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def train(tmp_path: Path, *overrides: str):
    result = run_cli(
        "benchmark.train",
        "dataset=synthetic",
        f"paths.runs={tmp_path}",
        *overrides,
        env_extra={"WANDB_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return result
