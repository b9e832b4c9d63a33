"""`trainer=ddp_cpu`: two processes (gloo) from the command line give one well-formed run
record, written by rank 0, with every test document scored exactly once. Lightning
re-launches the command line for rank 1, so this runs the CLI in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_sweep import TINY_LSTM, run_dir_of, run_train

from benchmark.metrics.discrimination import FIGURES as DISC_FIGURES
from benchmark.records.predictions_jsonl import read_predictions
from benchmark.score import score_file


@pytest.fixture(scope="module")
def ddp_run(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    result = run_train(runs, *TINY_LSTM, "trainer=ddp_cpu")
    assert result.returncode == 0, result.stderr[-4000:]
    return runs


@pytest.mark.slow
def test_two_processes_leave_one_record_in_one_run_directory(ddp_run: Path):
    run_dir = run_dir_of(ddp_run, "synthetic/lstm_ptrnet/base")
    assert list(ddp_run.rglob("metrics.json")) == [run_dir / "metrics.json"]
    # rank 1 was re-launched by Lightning into the same Hydra run directory
    assert (run_dir / "train_ddp_process_1.log").is_file()
    assert not list(run_dir.glob(".*.tmp")) and not (run_dir / "failed.json").exists()


@pytest.mark.slow
def test_every_document_is_scored_exactly_once(ddp_run: Path):
    run_dir = run_dir_of(ddp_run, "synthetic/lstm_ptrnet/base")
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["config"]["trainer"]["devices"] == 2
    assert record["data"]["n_docs"]["test"] == 41 and record["data"]["n_docs"]["valid"] == 37
    predictions = read_predictions(run_dir / "predictions.jsonl")
    assert len(predictions) == len({p.id for p in predictions}) == record["n_docs"] == 41
    test = {  # the figures of the predictions (discrimination needs the model)
        key: value for key, value in record["split"]["test"].items() if key not in DISC_FIGURES
    }
    assert score_file(run_dir / "predictions.jsonl") == test
    assert record["split"]["test"]["disc_n_docs"] == 41  # gathered from both processes
