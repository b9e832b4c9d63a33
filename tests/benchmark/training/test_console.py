"""What a run prints (benchmark/training/console.py) and how it counts epochs: a few lines a
researcher reads (one per epoch, a closing summary with intervals and the random baseline of
the same test presentation), the libraries' chatter only with `verbose=true`, epochs counted
from 1 in the console, the CSV log, what the loggers (W&B) receive and the run record, and a
warning for epochs of fewer than 10 optimiser steps."""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path

import pytest
from fixtures_logger import spied
from fixtures_sweep import ROOT, cli_env, run_dir_of, train_command

from benchmark.training.console import is_verbose
from benchmark.training.progress import few_steps_warning, steps_per_epoch

EPOCHS = 4
TINY = ("dataset=synthetic", "model=lstm_ptrnet", "+experiment=tiny",
        f"trainer.max_epochs={EPOCHS}", "early_stopping.patience=1",
        "+dataset.reader.n_train=320", "+dataset.reader.n_valid=40",
        "+dataset.reader.n_test=40", "bootstrap_resamples=100")  # fmt: skip
CHATTER = ("wandb:", "GPU available", "TPU available", "Tip:", "Params", "━", "Seed set",
           "LeafSpec", "deprecated", "Restoring states", "Loaded model weights",
           "][INFO]")  # fmt: skip


def train(runs: Path, *args: str, verbose: str = "") -> subprocess.CompletedProcess:
    env = cli_env(runs) | {"ORDERBENCH_VERBOSE": verbose,
                           "PYTHONPATH": str(ROOT / "tests")}  # fmt: skip
    result = subprocess.run(train_command(*args, f"paths.runs={runs}"), cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=900)  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def spied_loggers(folder: Path) -> tuple[str, ...]:
    """Overrides for the default loggers (conf/logger/wandb.yaml: CSV and offline W&B) with
    a `SpyLogger` beside them, from a config folder of their own."""
    loggers = folder / "logger"
    loggers.mkdir(parents=True)
    default = (ROOT / "conf" / "logger" / "wandb.yaml").read_text()
    spy = "spy:\n  _target_: fixtures_logger.SpyLogger\n  save_dir: null\n"
    (loggers / "spied.yaml").write_text(default + spy)
    return ("logger=spied", f"hydra.searchpath=[file://{folder}]")


@pytest.fixture(scope="module")
def quiet(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """A tiny run with the default loggers (CSV and offline W&B) and a spy beside them."""
    runs = tmp_path_factory.mktemp("runs")
    loggers = spied_loggers(tmp_path_factory.mktemp("conf"))
    result = train(runs, *TINY, *loggers, "trainer.enable_progress_bar=true")
    return result, run_dir_of(runs, "synthetic/lstm_ptrnet/base")


def record_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "metrics.json").read_text())


@pytest.mark.slow
def test_the_console_is_a_few_lines_without_the_libraries_chatter(quiet):
    result, run_dir = quiet
    lines = (result.stdout + result.stderr).splitlines()
    assert len(lines) < 30, lines
    assert [line for line in lines if any(marker in line for marker in CHATTER)] == []
    assert lines[0].startswith("data synthetic: 320 / 40 / 40 documents (train / valid / test)")
    assert lines[1].startswith(f"model lstm_ptrnet: 0.1M parameters, up to {EPOCHS} epochs")


@pytest.mark.slow
def test_one_line_per_epoch_counted_from_one_with_loss_valid_tau_and_time(quiet):
    result, run_dir = quiet
    record = record_of(run_dir)
    epochs = [line for line in result.stdout.splitlines() if line.startswith("epoch ")]
    assert len(epochs) == record["epochs"] >= 2
    pattern = (rf"epoch (\d+)/{EPOCHS}  train loss \d+\.\d{{4}}  "
               r"valid tau (-?\d\.\d{4})( \(best\))?  \d+ s")  # fmt: skip
    numbers = []
    for line in epochs:
        match = re.fullmatch(pattern, line)
        assert match, line
        numbers.append(int(match.group(1)))
    assert numbers == list(range(1, record["epochs"] + 1))
    best = epochs[record["best_epoch"] - 1]
    assert best.endswith(" s") and "(best)" in best
    assert f"valid tau {record['split']['valid']['tau']:.4f}" in best


@pytest.mark.slow
def test_the_summary_gives_intervals_the_random_baseline_and_the_folder(quiet):
    result, run_dir = quiet
    record = record_of(run_dir)
    out = result.stdout.splitlines()
    assert out[-2] == f"run folder: {run_dir}"
    assert json.loads(out[-1]) == {"run_dir": str(run_dir), "test": record["split"]["test"]}
    assert (f"selected epoch {record['best_epoch']} of {record['epochs']} "
            f"({record['stopped_by']})") in result.stdout  # fmt: skip
    tau = next(line.split() for line in out if line.startswith("  tau "))
    ci, baseline = record["ci"]["test"]["tau"], record["random_baseline"]
    assert tau[1:4] == [f"{record['split']['test']['tau']:.4f}", f"[{ci['ci_low']:.4f},",
                        f"{ci['ci_high']:.4f}]"]  # fmt: skip
    random_ci = baseline["ci"]["tau"]
    assert tau[4:] == [f"{baseline['figures']['tau']:.4f}", f"[{random_ci['ci_low']:.4f},",
                       f"{random_ci['ci_high']:.4f}]"]  # fmt: skip
    assert baseline["model"] == "random" and baseline["seed"] == 0
    assert -0.5 < baseline["figures"]["tau"] < 0.5


@pytest.mark.slow
def test_epochs_count_from_one_in_the_csv_the_loggers_and_the_record(quiet):
    """The CSV, what every logger (W&B included) is given and the record agree: training and
    valid rows of epochs 1..epochs, each valid once; the test row at the selected epoch."""
    _, run_dir = quiet
    record = record_of(run_dir)
    with open(run_dir / "csv" / "metrics.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    valid = [int(row["epoch"]) for row in rows if row.get("val/tau")]
    assert valid == list(range(1, record["epochs"] + 1))
    assert {int(row["epoch"]) for row in rows if row.get("train/loss")} <= set(valid)
    assert [int(row["epoch"]) for row in rows if row.get("test/tau")] == [record["best_epoch"]]
    logged = spied(run_dir)
    assert [int(row["epoch"]) for row in logged if "val/tau" in row] == valid
    assert [int(row["epoch"]) for row in logged if "test/tau" in row] == [record["best_epoch"]]
    assert [int(row["epoch"]) for row in logged if "train/loss" in row] == [
        int(row["epoch"]) for row in rows if row.get("train/loss")
    ]


@pytest.mark.slow
def test_the_random_baseline_is_what_the_random_preset_records(quiet, tmp_path):
    _, run_dir = quiet
    train(tmp_path, *TINY, "model=random", "logger=csv")
    random_run = record_of(run_dir_of(tmp_path, "synthetic/random/base"))
    baseline = record_of(run_dir)["random_baseline"]
    figures = {key: value for key, value in random_run["split"]["test"].items()
               if not key.startswith("disc_")}  # fmt: skip
    assert baseline["figures"] == figures
    assert baseline["ci"] == {key: value for key, value in random_run["ci"]["test"].items()
                              if not key.startswith("disc_")}  # fmt: skip
    assert "random_baseline" not in random_run  # the random run is the baseline itself


@pytest.mark.slow
def test_verbose_brings_the_libraries_output_back(tmp_path):
    short = (*TINY, "trainer.max_epochs=1", "logger=csv", "evaluate_discrimination=false")
    for runs, args, env in ((tmp_path / "a", ("verbose=true",), ""), (tmp_path / "b", (), "1")):
        result = train(runs, *short, *args, verbose=env)
        output = result.stdout + result.stderr
        assert "GPU available" in output
        assert "[benchmark.training.console][INFO] - epoch 1/1  train loss" in output


def test_the_verbose_switch(monkeypatch):
    monkeypatch.delenv("ORDERBENCH_VERBOSE", raising=False)
    assert not is_verbose({"verbose": False}) and is_verbose({"verbose": True})
    for value, expected in (("1", True), ("true", True), ("0", False), ("", False)):
        monkeypatch.setenv("ORDERBENCH_VERBOSE", value)
        assert is_verbose({"verbose": False}) is expected


# -- a warning for epochs of fewer than 10 optimiser steps ----------------------------------
def test_steps_per_epoch_and_the_warning_that_says_what_to_change():
    assert steps_per_epoch(40, 64) == 1 and steps_per_epoch(800, 16) == 50
    assert steps_per_epoch(100, 32, drop_last=True) == 3
    assert steps_per_epoch(800, 16, processes=2, accumulate=5) == 5
    assert few_steps_warning("jsonl", 800, 16, 50) is None
    warning = few_steps_warning("jsonl", 40, 64, 1)
    assert warning.startswith("dataset jsonl: 40 training documents at model.batch_size=64 "
                              "give 1 optimiser step per epoch (fewer than 10)")  # fmt: skip
    assert warning.endswith("set model.batch_size=4 or lower, or train on more data")
    assert few_steps_warning("jsonl", 6, 8, 1).endswith("train on more data (even "
                                                       "model.batch_size=1 gives fewer steps)")


@pytest.mark.slow
def test_a_small_dataset_warns_before_training(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for split, n_docs in (("train", 40), ("valid", 8), ("test", 8)):
        lines = [json.dumps({"id": f"{split}-{i}", "sentences": [
            f"The first sentence of {split} text {i}.", f"Then the second one {i}.",
            f"At last the third {i}."]}) for i in range(n_docs)]  # fmt: skip
        (data / f"{split}.jsonl").write_text("\n".join(lines) + "\n")
    result = train(tmp_path / "runs", "dataset=jsonl", f"dataset.path={data}",
                   "model=lstm_ptrnet", "model.embeddings=null", "model.batch_size=64",
                   "trainer.max_epochs=1", "logger=csv", "evaluate_discrimination=false",
                   "bootstrap_resamples=10")  # fmt: skip
    assert ("warning: dataset jsonl: 40 training documents at model.batch_size=64 give 1 "
            "optimiser step per epoch (fewer than 10)") in result.stdout  # fmt: skip
    assert "set model.batch_size=4 or lower, or train on more data" in result.stdout


def test_the_summary_of_older_and_noisy_records():
    from benchmark.training.console import summary_lines

    interval = {"ci_low": 0.1, "ci_high": 0.3}
    older = {"model": "han", "epochs": 3, "best_epoch": 2, "stopped_by": "max_epochs",
             "steps": 30, "train_seconds": 75.4, "split": {"valid": {"tau": 0.25},
             "test": {"tau": 0.2, "pmr": 0.1, "acc": 0.3, "n_docs": 9}},
             "ci": {"test": {"tau": interval}}}  # fmt: skip
    lines = summary_lines(older, "/elsewhere/run")
    assert lines[0] == ("selected epoch 2 of 3 (max_epochs): valid tau 0.2500; trained 1 min "
                        "15 s, 30 steps")  # fmt: skip
    assert lines[2].split() == ["tau", "0.2000", "[0.1000,", "0.3000]"]
    assert "rerun=true measures it" in lines[-2] and lines[-1] == "run folder: /elsewhere/run"
    noisy = {**older, "split": {"valid": {"pm_f": 0.6}, "test": {
        "tau": 0.2, "pmr": 0.1, "acc": 0.3, "pm_f": 0.6, "noise_acc": 0.4, "n_docs": 9}},
        "config": {"early_stopping": {"monitor": "val/pm_f"}}}  # fmt: skip
    lines = summary_lines(noisy, "/elsewhere/run")
    assert "valid pm_f 0.6000" in lines[0]
    assert [line.split()[0] for line in lines[2:-1]] == ["tau", "pmr", "acc", "pm_f", "noise_acc"]


def test_a_figure_rounded_to_zero_has_no_sign_and_one_epoch_is_singular():
    from benchmark.training.console import _figure, model_line

    assert _figure(-0.00001) == "0.0000" and _figure(-0.2) == "-0.2000"
    assert "up to 1 epoch of 5 steps" in model_line("m", 10, 1, "val/tau", 2, 5)
    assert "up to 3 epochs of 1 step," in model_line("m", 10, 3, "val/tau", 2, 1)
