"""`orderbench bench cli` (benchmark/bench/cli_startup.py): the commands it times, its table
with and without a reference tree, and one command timed for real (no figure asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.bench.cli_startup import ROOT, commands, table, timed


def test_the_commands_that_read_a_run_are_left_out_without_one(tmp_path: Path):
    without = commands(None, tmp_path / "s.txt", tmp_path / "runs")
    assert without["score"] is None and without["predict (4 sentences)"] is None
    assert without["sweep list smoke"] == ["sweep", "list", "smoke"]
    run = tmp_path / "run"
    assert commands(run, tmp_path / "s.txt", tmp_path / "runs")["compare"][:3] == [
        "compare", str(run), str(run)]


def test_the_table_has_a_row_per_command_and_the_ratio_with_a_reference():
    figures = {"presets": {"this": (1.0, 0.5), "reference": (4.0, 2.0)}, "score": None}
    rows = table(figures, with_reference=True).splitlines()
    assert rows[2] == "| presets | 1.00 | 0.50 | 4.00 | 2.00 | 0.25 |"
    assert rows[3].startswith("| score | left out: needs run=RUN_DIR |")
    assert len(rows[3].split("|")) == len(rows[0].split("|"))
    assert table({"presets": {"this": (1.0, 0.5)}}, with_reference=False).splitlines()[2] == (
        "| presets | 1.00 | 0.50 |")


def test_a_command_is_timed_and_a_failing_one_is_named():
    wall, cpu = timed(ROOT, ["--help"])
    assert wall > 0 and cpu >= 0
    with pytest.raises(RuntimeError, match="orderbench no-such-command ended with status 2"):
        timed(ROOT, ["no-such-command"])


def test_bad_input_to_train_is_timed_to_its_first_error_line(tmp_path: Path):
    [argv] = [argv for label, argv in commands(None, tmp_path / "s.txt", tmp_path / "runs").items()
              if label == "train model.optimizer.weight_decay=-1"]
    assert argv[-2:] == [f"paths.runs={tmp_path / 'runs'}", "model.optimizer.weight_decay=-1"]
    wall, cpu = timed(ROOT, argv)
    assert wall > 0 and cpu >= 0 and not (tmp_path / "runs").exists()
    with pytest.raises(RuntimeError, match="orderbench train --help ended with status 0"):
        timed(ROOT, ["train", "--help"])
