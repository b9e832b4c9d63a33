"""Running `python -m benchmark.train` (single runs and multiruns) in a subprocess, with
tiny settings, for the sweep, DDP and resume tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from repo_root import ROOT

# LSTM+PtrNet on a small synthetic dataset; odd split sizes exercise the DDP padding
TINY_LSTM = (
    "dataset=synthetic",
    "model=lstm_ptrnet",
    "+experiment=tiny",
    "logger=csv",
    "trainer.max_epochs=2",
    "+dataset.reader.n_train=64",
    "+dataset.reader.n_valid=37",
    "+dataset.reader.n_test=41",
)


def train_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "benchmark.train", *args]


def cli_env(runs: Path) -> dict:
    return {**os.environ, "WANDB_MODE": "offline", "WANDB_DIR": str(runs), "PYTHONHASHSEED": "0"}


def run_train(runs: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m benchmark.train ARGS... paths.runs=RUNS` from the repository root."""
    return subprocess.run(
        train_command(*args, f"paths.runs={runs}"),
        cwd=ROOT,
        env=cli_env(runs),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_dir_of(runs: Path, row: str, seed: int = 0) -> Path:
    """The run directory of `row` (`<dataset label>/<model>/<variant>`) and `seed` under
    `runs`, inside its config-id folder; the row must hold exactly one config."""
    found = sorted((Path(runs) / row).glob(f"*/seed_{seed}"))
    assert len(found) == 1, f"expected one config of {row} under {runs}, found {found}"
    return found[0]


def run_dir_for(runs: Path, *args: str) -> Path:
    """The run directory `python -m benchmark.train ARGS paths.runs=RUNS` works in (its
    config-id folder computed as the launch computes it)."""
    from omegaconf import OmegaConf

    from benchmark.config.compose import compose_config

    cfg = compose_config([*args, f"paths.runs={runs}"], return_hydra_config=True)
    return Path(OmegaConf.select(cfg, "hydra.run.dir"))


def error_lines(stderr: str) -> list[str]:
    """The `error:` lines of a launch's stderr; fails on a traceback."""
    assert "Traceback" not in stderr, stderr[-3000:]
    return [line for line in stderr.splitlines() if line.startswith("error:")]
