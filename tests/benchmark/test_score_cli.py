"""`python -m benchmark.score`: output, reproduction of corpus_metrics, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from repo_root import ROOT

from benchmark.metrics.corpus import corpus_metrics
from benchmark.records.predictions_jsonl import write_predictions
from benchmark.score import score_file

REPO = ROOT


def run_score(*args):
    return subprocess.run(
        [sys.executable, "-m", "benchmark.score", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def random_records(count, seed=0):
    rng = np.random.default_rng(seed)
    records = []
    for index in range(count):
        n = int(rng.integers(1, 12))
        records.append(
            {"id": f"doc-{index}", "gold": list(range(n)), "pred": rng.permutation(n).tolist()}
        )
    return records


@pytest.fixture
def predictions(tmp_path):
    records = random_records(60)
    return write_predictions(tmp_path / "predictions.jsonl", records), records


@pytest.mark.parametrize("include_trivial", [False, True])
def test_score_file_reproduces_corpus_metrics(predictions, include_trivial):
    path, records = predictions
    expected = corpus_metrics(((r["gold"], r["pred"]) for r in records), include_trivial)
    assert expected["n_trivial"] > 0
    assert score_file(path, include_trivial=include_trivial) == expected


def test_cli_prints_one_json_object(predictions):
    path, records = predictions
    done = run_score(path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout) == corpus_metrics((r["gold"], r["pred"]) for r in records)
    assert len(done.stdout.strip().splitlines()) == 1


def test_cli_include_trivial_and_bootstrap(predictions):
    path, _ = predictions
    done = run_score(path, "include_trivial=true", "bootstrap=200", "seed=3")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["trivial_policy"] == "counted_perfect"
    assert result["bootstrap"] == {"n_resamples": 200, "alpha": 0.05, "seed": 3}
    assert set(result["ci"]) == {
        "tau",
        "acc",
        "acc_pooled",
        "lcs_pooled",
        "pmr",
        "head",
        "tail",
        "lcs",
        "coherence_L",
        "pm_f",
    }
    for key, ci in result["ci"].items():
        assert ci["mean"] == result[key]
        assert ci["ci_low"] <= ci["mean"] <= ci["ci_high"], key
    assert result == score_file(path, include_trivial=True, n_bootstrap=200, seed=3)


def test_cli_degenerate_corpus_prints_nulls_and_warns(tmp_path):
    path = write_predictions(tmp_path / "p.jsonl", [{"id": "a", "gold": [0], "pred": [0]}])
    done = run_score(path)
    assert done.returncode == 0
    result = json.loads(done.stdout)
    assert result["n_docs"] == 0 and result["n_trivial"] == 1
    assert result["tau"] is None and result["acc_pooled"] is None
    assert "warning: no scorable documents" in done.stderr


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"id": "d", "gold": [0, 1, 2], "pred": [0, 2]}\n', ":1: document 'd': pred lacks id 1"),
        ('{"id": "d", "gold": [0, 1], "pred": [1, 0]}\n{"id": "d"\n', ":2: malformed JSON"),
        (
            '{"id": "d", "gold": [0, 1], "pred": [1, -2], "noise": [-1]}\n',
            ":1: document 'd': pred has unknown id -2",
        ),
        ('{"id": "d", "gold": [0, 1], "pred": [1, 0], "meta": [1]}\n', "'meta' must be a JSON"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, content, reason):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    done = run_score(path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert reason in done.stderr
    assert str(path) in done.stderr


def test_cli_missing_file_exits_2(tmp_path):
    done = run_score(tmp_path / "nope.jsonl")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "nope.jsonl" in done.stderr


def test_cli_scores_a_noisy_file_with_intervals(tmp_path):
    records = [
        {"id": "a", "gold": [0, 1, 2], "pred": [0, 1, 2], "noise": [-1]},
        {"id": "b", "gold": [0, 1, 2, 3], "pred": [1, -1, 2, 3], "noise": [-1]},
        {"id": "c", "gold": [0, 1], "pred": [1, 0]},
    ]
    path = write_predictions(tmp_path / "noisy.jsonl", records)
    done = run_score(path, "bootstrap=100")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["n_docs"], result["n_docs_order"]) == (3, 2)
    assert result["noise_acc"] == pytest.approx(2 / 3)
    assert result["pm_f"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert result["tau"] == pytest.approx((1 - 1) / 2)  # over a and c
    assert {"noise_acc", "pm_f", "pmr", "tau"} <= set(result["ci"])


def test_cli_breakdowns(predictions):
    path, records = predictions
    done = run_score(path, "breakdowns=true")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    by_length = result["breakdowns"]["length"]
    assert list(by_length) == ["2-3", "4-5", "6-8", "9-12"]  # n = 1 excluded, n <= 11
    assert sum(bucket["n_docs"] for bucket in by_length.values()) == result["n_docs"]
