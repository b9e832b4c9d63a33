"""The Makefile's targets as `make -n` prints them (nothing is run): the report targets,
`make help`, and the trainer `make sweep-list` lists."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def make(*args: str, path: str | None = None) -> str:
    env = {**os.environ, "PATH": path or os.environ["PATH"]}
    done = subprocess.run(["make", "--no-print-directory", "-C", str(REPO), *args],
                          capture_output=True, text=True, env=env, check=True)
    return done.stdout


def command_of(target: str, *args: str, path: str | None = None) -> str:
    """The orderbench line `make -n TARGET` would run."""
    lines = make("-n", target, *args, path=path).splitlines()
    return next(line for line in lines if "orderbench" in line)


@pytest.mark.parametrize("target", ["leaderboard", "plots"])
def test_reports_read_and_write_beside_the_runs_by_default(target: str):
    line = command_of(target)
    assert f"orderbench {target} --runs runs" in line and "results" not in line
    assert "--runs elsewhere" in command_of(target, "RUNS=elsewhere")
