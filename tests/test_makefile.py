"""The Makefile's targets as `make -n` prints them (nothing is run): the report targets,
`make help`, and the trainer `make sweep-list` lists."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from repo_root import ROOT

REPO = ROOT
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


@pytest.mark.parametrize("target", ["leaderboard", "plots", "site"])
def test_reports_read_and_write_beside_the_runs_by_default(target: str):
    line = command_of(target)
    assert f"orderbench {target} runs=runs" in line and "results" not in line
    assert "runs=elsewhere" in command_of(target, "RUNS=elsewhere")


def test_the_site_takes_its_runs_folder_from_args_too():
    """A runs folder given in ARGS (as results/README.md makes the committed site) is named
    once."""
    line = command_of("site", "ARGS=runs=results out=results/site")
    assert line.split("orderbench site")[1].split() == ["runs=results", "out=results/site"]


def fake_nvidia_smi(tmp_path: Path, listing: str, status: int) -> str:
    """A PATH whose `nvidia-smi -L` prints `listing` and exits with `status`."""
    tool = tmp_path / "nvidia-smi"
    tool.write_text(f"#!/bin/sh\nprintf '%s' '{listing}'\nexit {status}\n")
    tool.chmod(0o755)
    return f"{tmp_path}{os.pathsep}{os.environ['PATH']}"


def test_sweep_list_lists_the_trainer_this_machine_has(tmp_path: Path):
    no_gpu = fake_nvidia_smi(tmp_path, "No devices were found\n", 6)
    assert command_of("sweep-list", path=no_gpu).split()[-1] == "trainer=cpu"
    gpu = fake_nvidia_smi(tmp_path, "GPU 0: NVIDIA H100 (UUID: GPU-0)\n", 0)
    assert command_of("sweep-list", path=gpu).split()[-1] == "trainer=gpu"
    assert command_of("sweep-list", "TRAINER=ddp", path=gpu).split()[-1] == "trainer=ddp"


def test_help_shows_the_values_of_its_variables():
    text = make("help", "TORCH_SPEC=torch==9.9 --index-url https://example.org/a&b", "EXTRAS=dev")
    assert "$(" not in text
    assert "torch (torch==9.9 --index-url https://example.org/a&b) first" in text
    assert "with [dev]" in text


@pytest.mark.parametrize("target, args", [
    ("nips-report", ()), ("reproduction-report", ()),
    ("reproduction-report", ("COMPARE=repro_e60 repro", "CV_VARIANT=cv")),
    ("leaderboard", ("ARGS=out=results wandb=true",)), ("plots", ()), ("site", ()),
])  # fmt: skip
def test_the_report_targets_call_orderbench_in_its_keys(target: str, args: tuple[str, ...]):
    """Each `orderbench` line of a report target parses with the command's declaration."""
    from benchmark.cli import commands

    table = commands()
    text = make("-n", target, *args).replace("\\\n", " ")
    calls = [line.split("orderbench ", 1)[1].split() for line in text.splitlines()
             if "/orderbench " in line]  # fmt: skip
    assert calls
    for words in calls:
        name = " ".join(words[:2]) if " ".join(words[:2]) in table else words[0]
        parsed = table[name].parse(words[len(name.split()):])
        assert parsed["runs"] in ("runs", "runs/nips")
    if "COMPARE=repro_e60 repro" in args:
        parsed = table["study cui2018"].parse(calls[0][2:])
        assert parsed["compare"] == ["repro_e60", "repro"] and parsed["cv_variant"] == "cv"
