"""End-to-end: `python -m benchmark.train` on the synthetic dataset, in a subprocess."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures_sweep import run_dir_of
from fixtures_train import run_cli, train

from benchmark.config.cpu_memory import BOUNDED_VALUES, MMAP_THRESHOLD
from benchmark.evaluate import evaluate_order
from benchmark.metrics.discrimination import FIGURES as DISC_FIGURES
from benchmark.records.predictions_jsonl import read_predictions
from benchmark.run.finished_run import RunError, load_finished_run
from benchmark.score import score_file


@pytest.fixture(scope="module")
def lstm_run(tmp_path_factory) -> Path:
    """One tiny LSTM+PtrNet run on synthetic with the default loggers (CSV + offline W&B)."""
    runs = tmp_path_factory.mktemp("runs")
    train(runs, "model=lstm_ptrnet", "+experiment=tiny", "seed=0")
    return run_dir_of(runs, "synthetic/lstm_ptrnet/base")


def test_run_directory_holds_record_predictions_checkpoint_and_logs(lstm_run: Path):
    record = json.loads((lstm_run / "metrics.json").read_text())
    for key in (
        "model",
        "dataset",
        "seed",
        "split",
        "n_params",
        "train_seconds",
        "n_docs",
        "n_trivial",
        "config",
        "git_commit",
    ):
        assert key in record, key
    assert record["model"] == "lstm_ptrnet" and record["dataset"] == "synthetic"
    assert record["stopped_by"] in ("early_stopping", "max_epochs")
    assert 1 <= record["best_epoch"] <= record["epochs"] and record["steps"] > 0
    assert record["environment"]["threads"] == 1  # conf/config.yaml pins cpu_threads
    # conf/config.yaml's `cpu_memory: bounded`, where the shell set neither variable itself
    bounded = {name: os.environ.get(name, value) for name, value in BOUNDED_VALUES.items()}
    if platform.libc_ver()[0] != "glibc" and MMAP_THRESHOLD not in os.environ:
        del bounded[MMAP_THRESHOLD]  # mallopt is glibc's
    assert record["environment"]["memory_variables"] == bounded
    assert set(record["split"]) == {"valid", "test"}
    assert record["n_params"] > 0 and record["n_docs"] == len(
        read_predictions(lstm_run / "predictions.jsonl")
    )
    assert (lstm_run / "checkpoints" / "best.ckpt").is_file()
    assert (lstm_run / ".hydra" / "config.yaml").is_file()
    assert list((lstm_run / "csv").glob("metrics.csv"))
    assert list((lstm_run / "wandb").glob("offline-run-*"))


def test_the_record_says_what_the_training_cost(lstm_run: Path):
    """CPU seconds of every epoch (benchmark.training.resources), read before the selected
    checkpoint's evaluation restores that checkpoint's callback state."""
    record = json.loads((lstm_run / "metrics.json").read_text())
    cost = record["resources"]
    assert len(cost["cpu_seconds_per_epoch"]) == record["epochs"]
    assert all(seconds > 0 for seconds in cost["cpu_seconds_per_epoch"])
    selected = sum(cost["cpu_seconds_per_epoch"][: record["best_epoch"]])
    assert cost["cpu_seconds_to_selected"] == round(selected, 2)
    assert cost["train_cpu_seconds"] >= cost["cpu_seconds_to_selected"]
    assert cost["peak_rss_mb"] > 0


def test_synthetic_task_is_learned(lstm_run: Path):
    record = json.loads((lstm_run / "metrics.json").read_text())
    assert record["split"]["test"]["tau"] >= 0.9
    low, high = record["ci"]["test"]["tau"]["ci_low"], record["ci"]["test"]["tau"]["ci_high"]
    assert low <= record["split"]["test"]["tau"] <= high


def test_score_cli_reproduces_the_run_record(lstm_run: Path):
    record = json.loads((lstm_run / "metrics.json").read_text())
    test = {  # the figures of the predictions (discrimination needs the model)
        key: value for key, value in record["split"]["test"].items() if key not in DISC_FIGURES
    }
    assert score_file(lstm_run / "predictions.jsonl") == test
    result = run_cli("benchmark.score", str(lstm_run / "predictions.jsonl"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == test


def test_evaluate_presents_the_test_split_as_another_protocol_seed_would(lstm_run: Path):
    """`protocol_seed=0` is the run's own presentation (the record's figures again); another
    seed shows the same documents in other fixed shuffles."""
    record = json.loads((lstm_run / "metrics.json").read_text())
    own = evaluate_order(lstm_run, "test", protocol_seed=0)
    assert own["protocol_seed"] == 0 and own["tau"] == record["split"]["test"]["tau"]
    other = evaluate_order(lstm_run, "test", protocol_seed=1)
    assert other["protocol_seed"] == 1 and other["n_docs"] == own["n_docs"]
    run = load_finished_run(lstm_run)
    presented = [{doc: ids for batch in run.datamodule(protocol_seed=seed).eval_dataloader("test")
                  for doc, ids in zip(batch["doc_ids"], batch["sentence_ids"], strict=True)}
                 for seed in (0, 1)]  # fmt: skip
    assert presented[0].keys() == presented[1].keys() and presented[0] != presented[1]


def test_evaluate_refuses_max_tokens_for_a_model_without_a_paragraph_encoder(lstm_run: Path):
    with pytest.raises(RunError, match=r"max_tokens: the run's model lstm_ptrnet reads no"):
        evaluate_order(lstm_run, "test", max_tokens=100)


def test_random_baseline_runs_without_training(tmp_path: Path):
    train(tmp_path, "model=random", "logger=csv")
    run_dir = run_dir_of(tmp_path, "synthetic/random/base")
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["n_params"] == 0 and record["epochs"] == 0
    assert record["stopped_by"] == "untrained" and record["best_epoch"] is None
    assert -0.5 < record["split"]["test"]["tau"] < 0.5


def test_the_same_seed_gives_the_same_figures_under_load(lstm_run: Path, tmp_path: Path):
    """The reproducibility statement of README.md: the run again, into another runs folder,
    while two processes keep the cores busy, predicts the same orders and records the same
    test figures to the last digit; and with the libraries' own memory settings
    (`cpu_memory=default`, the first run `bounded`), which change the memory, never a figure."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        train(tmp_path, "model=lstm_ptrnet", "+experiment=tiny", "seed=0", "cpu_memory=default")
    finally:
        for burner in burners:
            burner.kill()
    again = run_dir_of(tmp_path, "synthetic/lstm_ptrnet/base")
    assert "memory_variables" not in json.loads((again / "metrics.json").read_text())[
        "environment"] or any(name in os.environ for name in BOUNDED_VALUES)
    predicted = [(run / "predictions.jsonl").read_bytes() for run in (lstm_run, again)]
    assert predicted[0] == predicted[1]
    figures = [json.loads((run / "metrics.json").read_text())["split"]["test"]
               for run in (lstm_run, again)]  # fmt: skip
    assert figures[0] == figures[1]
