"""The harness in the noise setting (docs/design.md, section 4; Wang & Wan 2019): prediction records
with distractors, run directories and records of noisy runs, re-scoring, skipped order
discrimination, and configs stored before `dataset.noise` existed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from fixtures_sweep import run_dir_of
from fixtures_train import run_cli, train

from benchmark.config.compose import compose_config
from benchmark.config.identity import comparable_config, config_differences
from benchmark.records.predictions_jsonl import read_predictions
from benchmark.records.records_from_batches import records_from_batch
from benchmark.run.finished_run import load_finished_run
from benchmark.score import score_file
from models.noise.noise_wrapper import NoiseWrapper
from tests.model_batches import random_batch

NOISY_OVERRIDES = ("model=lstm_ptrnet", "+experiment=tiny", "logger=csv", "cpu_threads=1")


def test_records_map_kept_sentences_and_list_distractors():
    batch = random_batch(0, [3, 2])
    batch["sentence_ids"] = [[2, -1, 0, 1][:3], [1, 0]]  # document 0: presented 2, -1, 0
    batch["gold_order"] = torch.tensor([[2, 0, -1], [1, 0, -1]])
    orders = torch.tensor([[2, 0, -1], [0, -1, -1]])  # doc 0 drops the distractor
    records = records_from_batch(batch, orders, noisy=True)
    assert records == [
        {"id": "doc-0", "gold": [0, 2], "pred": [0, 2], "noise": [-1]},
        {"id": "doc-1", "gold": [0, 1], "pred": [1], "noise": []},  # 0/1: no distractor drawn
    ]
    plain = records_from_batch(batch, orders)
    assert plain[0]["noise"] == [-1] and "noise" not in plain[1]


def test_configs_without_the_noise_key_compare_as_noise_zero():
    """Runs finished before `dataset.noise` existed are skipped, not refused, on relaunch."""
    current = comparable_config(compose_config(["dataset=synthetic"]))
    old = json.loads(json.dumps(current))
    del old["dataset"]["noise"]
    assert config_differences(comparable_config(old), current) == []
    noisy = comparable_config(compose_config(["dataset=synthetic", "dataset.noise=1"]))
    assert config_differences(current, noisy) != []


@pytest.fixture(scope="module")
def noisy_run(tmp_path_factory) -> Path:
    """A tiny LSTM+PtrNet run on synthetic with one distractor per document."""
    runs = tmp_path_factory.mktemp("runs")
    train(runs, *NOISY_OVERRIDES, "dataset.noise=1")
    return run_dir_of(runs, "synthetic_noise1/lstm_ptrnet/base")


@pytest.mark.slow
def test_noisy_run_writes_noise_predictions_and_figures(noisy_run: Path):
    record = json.loads((noisy_run / "metrics.json").read_text())
    assert record["dataset"] == "synthetic_noise1"
    test = record["split"]["test"]
    for key in ("noise_acc", "pm_f", "pmr", "n_docs_order"):
        assert key in test and key in record["split"]["valid"]
    assert {"noise_acc", "pm_f", "pmr"} <= set(record["ci"]["test"])
    assert "disc_acc" not in test and "skipped" in record["protocol"]["discrimination"]
    assert record["protocol"]["noise"]["setting"] == "1"
    assert record["protocol"]["selection"].startswith("val/pm_f")
    predictions = read_predictions(noisy_run / "predictions.jsonl")
    assert len(predictions) == test["n_docs"]
    assert all(p.noise == (-1,) and -1 not in p.gold for p in predictions)


@pytest.mark.slow
def test_synthetic_noise_is_learned(noisy_run: Path):
    """The model learns to leave distractors out (a random order never does: noise_acc 0);
    on synthetic a distractor often repeats a rank word of the document, so some remain
    ambiguous."""
    test = json.loads((noisy_run / "metrics.json").read_text())["split"]["test"]
    assert test["noise_acc"] >= 0.3 and test["pm_f"] >= 0.7


@pytest.mark.slow
def test_score_cli_agrees_with_the_noisy_record(noisy_run: Path):
    test = json.loads((noisy_run / "metrics.json").read_text())["split"]["test"]
    assert score_file(noisy_run / "predictions.jsonl") == test
    result = run_cli("benchmark.score", str(noisy_run / "predictions.jsonl"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == test


@pytest.mark.slow
def test_discrimination_is_refused_for_a_noisy_run(noisy_run: Path):
    result = run_cli("benchmark.evaluate", f"run={noisy_run}", "task=discrimination")
    assert result.returncode == 2 and "distractors" in result.stderr


@pytest.mark.slow
def test_a_noisy_model_may_leave_sentences_out_when_ordering_text(noisy_run: Path):
    run = load_finished_run(noisy_run)
    assert isinstance(run.net, NoiseWrapper)  # rebuilt with its END candidate
    sentences = ["the third river.", "a first cat.", "the second dog."]
    order = run.order(sentences)
    assert len(set(order)) == len(order) and set(order) <= {0, 1, 2}


@pytest.mark.slow
def test_random_baseline_under_zero_one_noise(tmp_path: Path):
    """Keeps every sentence: noise_acc is the share of documents without a distractor;
    a relaunch of the same command is skipped."""
    train(tmp_path, "model=random", "logger=csv", "dataset.noise=0/1")
    run_dir = run_dir_of(tmp_path, "synthetic_noise0-1/random/base")
    test = json.loads((run_dir / "metrics.json").read_text())["split"]["test"]
    predictions = read_predictions(run_dir / "predictions.jsonl")
    clean = [p for p in predictions if not p.noise]
    assert 0 < len(clean) < len(predictions)
    assert test["noise_acc"] == pytest.approx(len(clean) / len(predictions))
    assert all(sorted(p.pred) == sorted(p.gold + p.noise) for p in predictions)
    again = train(tmp_path, "model=random", "logger=csv", "dataset.noise=0/1")
    assert "skipped" in again.stdout + again.stderr


@pytest.mark.slow
def test_evaluate_order_decodes_the_test_split_again_as_the_run_did(noisy_run: Path, tmp_path):
    out = tmp_path / "again.jsonl"
    result = run_cli("benchmark.evaluate", f"run={noisy_run}", "task=order", f"predictions={out}")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    test = json.loads((noisy_run / "metrics.json").read_text())["split"]["test"]
    for key in ("pm_f", "noise_acc", "pmr"):
        assert figures[key] == pytest.approx(test[key]), key
    assert out.read_bytes() == (noisy_run / "predictions.jsonl").read_bytes()  # meta too
