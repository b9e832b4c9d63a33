"""Markers of the suite beyond pyproject's `slow`, the threads of each test process when
several run at once (pytest-xdist, `make test`), and the fixtures every test module may
use: `launch`, `python -m benchmark.train` in this process."""

from __future__ import annotations

import logging
import os
import runpy
import sys
import warnings
from pathlib import Path

import pytest
from hydra.core.global_hydra import GlobalHydra


def pytest_configure(config):
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:  # `make test -n N`: the cores shared out, for this worker and its children
        threads = max(1, (os.cpu_count() or 1) // workers)
        os.environ["OMP_NUM_THREADS"] = str(threads)
        import torch

        torch.set_num_threads(threads)
    config.addinivalue_line(
        "markers", "slurm: needs a SLURM cluster (`make slurm-test` stands one up, as root)"
    )


# -- `benchmark.train` in this process: a refused launch takes a second, not a subprocess --
@pytest.fixture
def launch(tmp_path: Path, monkeypatch, capsys):
    """`launch(*overrides)` -> (exit status, stderr) of `python -m benchmark.train` with
    the runs under tmp_path/runs (its stdout: `launch.stdout`)."""

    def run(*overrides: str) -> tuple[int, str]:
        argv = ["benchmark.train", "logger=csv", *overrides, f"paths.runs={tmp_path / 'runs'}"]
        monkeypatch.setattr(sys, "argv", argv)
        root = logging.getLogger()  # Hydra's handlers write to this test's captured streams
        monkeypatch.setattr(root, "handlers", list(root.handlers))
        monkeypatch.setattr(root, "level", root.level)
        try:
            with warnings.catch_warnings():  # runpy: benchmark.train is imported already
                warnings.simplefilter("ignore", RuntimeWarning)
                runpy.run_module("benchmark.train", run_name="__main__")
            status = 0
        except SystemExit as exit:
            status = exit.code
        finally:
            GlobalHydra.instance().clear()
        captured = capsys.readouterr()
        run.stdout = captured.out
        return status, captured.err

    return run
