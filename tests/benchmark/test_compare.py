"""`python -m benchmark.compare` and `benchmark.stats.paired` on fabricated run directories."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from fixtures_runs import write_record, write_run
from repo_root import ROOT
from scipy.stats import wilcoxon

from benchmark.compare import DOCUMENTS_ONLY, SEEDS_AND_DOCUMENTS, compare_runs, main
from benchmark.metrics.corpus import score_documents, score_records
from benchmark.records.predictions_jsonl import write_predictions
from benchmark.records.run_record import PREDICTIONS_NAME
from benchmark.score import score_file
from benchmark.stats.bootstrap import bootstrap_ci
from benchmark.stats.paired import PairingError, align_records, paired_test

REPO = ROOT
METRICS = ["tau", "acc", "pmr", "head", "tail", "lcs", "coherence_L", "acc_pooled", "lcs_pooled",
           "pm_f"]


def system_records(count, skill, seed, noisy=False):
    """Records of a fabricated system on `count` fixed documents (gold does not depend on
    the system): each adjacent swap of the gold order is undone with probability `skill`."""
    sizes = np.random.default_rng(0).integers(1, 12, size=count)
    rng = np.random.default_rng(seed)
    records = []
    for index, n in enumerate(sizes):
        pred = list(range(n))
        for k in range(n - 1):
            if rng.random() > skill:
                pred[k], pred[k + 1] = pred[k + 1], pred[k]
        record = {"id": f"doc-{index:03d}", "gold": list(range(n)), "pred": pred}
        if noisy:
            if rng.random() > skill:
                record["pred"] = [*pred[1:], -1]
            record["noise"] = [-1]
        records.append(record)
    return records


def make_run(root: Path, model: str, records) -> Path:
    run_dir = root / model
    write_predictions(run_dir / PREDICTIONS_NAME, records)
    write_record(run_dir, {"model": model, "dataset": "fab", "variant": "base", "seed": 0})
    return run_dir


@pytest.fixture
def runs(tmp_path):
    good = make_run(tmp_path, "good", system_records(150, skill=0.8, seed=1))
    poor = make_run(tmp_path, "poor", system_records(150, skill=0.3, seed=2))
    return good, poor


def run_compare(capsys, *args):
    """(exit status, stdout, stderr) of the CLI, run in this process."""
    status = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_better_run_wins_with_a_paired_result(runs):
    good, poor = runs
    result = compare_runs(good, poor, n_resamples=2000)
    assert result["a"]["model"] == "good" and result["b"]["model"] == "poor"
    assert list(result["metrics"]) == METRICS
    assert result["n_docs"] == score_file(good / PREDICTIONS_NAME)["n_docs"]
    scores_a, scores_b = score_file(good / PREDICTIONS_NAME), score_file(poor / PREDICTIONS_NAME)
    for key, row in result["metrics"].items():
        assert row["a"] == pytest.approx(scores_a[key]), key
        assert row["b"] == pytest.approx(scores_b[key]), key
        assert row["diff"] == pytest.approx(scores_a[key] - scores_b[key]), key
        assert row["ci_low"] <= row["diff"] <= row["ci_high"], key
    tau = result["metrics"]["tau"]
    assert tau["ci_low"] > 0
    assert tau["p_permutation"] == pytest.approx(1 / 2001)  # no flip reaches the observed
    assert tau["p_wilcoxon"] < 1e-6
    assert result["metrics"]["coherence_L"]["diff"] < 0  # lower is better


def test_run_against_itself_shows_no_difference(runs):
    good, _ = runs
    for row in compare_runs(good, good, n_resamples=500)["metrics"].values():
        assert row["diff"] == row["ci_low"] == row["ci_high"] == 0.0
        assert row["p_permutation"] == row["p_wilcoxon"] == 1.0


def test_cli_prints_a_table(runs):
    good, poor = runs
    done = subprocess.run(
        [sys.executable, "-m", "benchmark.compare", str(good), str(poor), "resamples=500"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"A = {good} (good, fab, base, 0)" in done.stdout
    assert "p Wilcoxon" in done.stdout and "* lower is better" in done.stdout
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line}
    assert {"tau", "pmr", "coherence_L*", "pm_f"} <= set(rows)


def test_cli_json(runs, capsys):
    good, _ = runs
    status, out, err = run_compare(capsys, good, good, "resamples=300", "json=true")
    assert status == 0, err
    result = json.loads(out)
    assert result["metrics"]["tau"]["diff"] == 0.0
    assert result["metrics"]["tau"]["p_permutation"] == 1.0
    assert (result["n_resamples"], result["alpha"], result["seed"]) == (300, 0.05, 0)


def test_predictions_files_can_be_compared_directly(runs):
    good, poor = runs
    result = compare_runs(good / PREDICTIONS_NAME, poor, n_resamples=200)
    assert result["a"] == {"path": str(good / PREDICTIONS_NAME)}
    assert result["metrics"]["tau"]["diff"] > 0


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r[:-1], "1 only in run A ('doc-149')"),
        (lambda r: [*r, {"id": "new", "gold": [0, 1], "pred": [1, 0]}], "1 only in run B ('new')"),
        (
            lambda r: [{**r[3], "gold": [0], "pred": [0]}, *r[:3], *r[4:]],
            "different gold orders for 1 document(s) ('doc-003')",
        ),
        (
            lambda r: [{**r[5], "noise": [-1]}, *r[:5], *r[6:]],
            "different distractors for 1 document(s) ('doc-005')",
        ),
    ],
)
def test_different_documents_are_refused_naming_the_difference(tmp_path, capsys, change, reason):
    records = system_records(150, skill=0.5, seed=3)
    run_a = make_run(tmp_path, "a", records)
    run_b = make_run(tmp_path, "b", change(records))
    status, out, err = run_compare(capsys, run_a, run_b)
    assert (status, out) == (2, "")
    assert err.startswith("orderbench compare: error: ") and len(err.splitlines()) == 1
    assert reason in err, err


def test_pairing_names_at_most_five_documents():
    a = [{"id": f"x{i}", "gold": [0], "pred": [0]} for i in range(8)]
    with pytest.raises(PairingError, match=r"8 only in run A \('x0', .*'x4' and 3 more\)"):
        align_records(a, [])
    with pytest.raises(PairingError, match="run B lists document 'x0' twice"):
        align_records(a[:1], a[:1] * 2)


def test_unfinished_run_and_bad_predictions_are_refused(tmp_path, capsys, runs):
    good, _ = runs
    unfinished = tmp_path / "unfinished"
    write_predictions(unfinished / PREDICTIONS_NAME, system_records(5, 0.5, 0))
    status, _, err = run_compare(capsys, good, unfinished)
    assert status == 2 and "no run record (the run did not finish)" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "doc-000", "gold": [0, 1], "pred": [0, 0]}\n', encoding="utf-8")
    status, _, err = run_compare(capsys, good, bad)
    assert status == 2 and "bad.jsonl:1: document 'doc-000': pred repeats id 0" in err


def test_alignment_reorders_b_to_a():
    a = system_records(20, 0.5, seed=1)
    b = system_records(20, 0.5, seed=2)[::-1]
    aligned_a, aligned_b = align_records(a, b)
    assert [r["id"] for r in aligned_a] == [r["id"] for r in aligned_b] == [r["id"] for r in a]


def test_sign_flip_p_value_matches_exact_enumeration():
    # Ten documents: with 2^10 sign patterns the exact two-sided p-value of the mean tau
    # difference can be enumerated; the Monte Carlo estimate must be close to it.
    a = system_records(10, 0.7, seed=11)
    b = system_records(10, 0.4, seed=12)
    scored_a, scored_b = score_records(a), score_records(b)
    taus_a = np.array([doc["tau"] for doc in scored_a.counted])
    taus_b = np.array([doc["tau"] for doc in scored_b.counted])
    differences = taus_a - taus_b
    observed = abs(differences.mean())
    flips = [
        abs((np.array(signs) * differences).mean()) >= observed - 1e-12
        for signs in product([1, -1], repeat=len(differences))
    ]
    exact = sum(flips) / len(flips)
    result = paired_test(scored_a, scored_b, n_resamples=20_000, seed=5)["tau"]
    assert 0.01 < exact < 0.9
    assert result["p_permutation"] == pytest.approx(exact, abs=0.015)
    assert result["p_wilcoxon"] == pytest.approx(wilcoxon(differences).pvalue)


def test_paired_bootstrap_of_a_mean_is_the_bootstrap_of_differences():
    scored_a = score_records(system_records(120, 0.7, seed=21))
    scored_b = score_records(system_records(120, 0.5, seed=22))
    differences = np.array(
        [x["tau"] - y["tau"] for x, y in zip(scored_a.counted, scored_b.counted, strict=True)]
    )
    low, high = bootstrap_ci(differences, n_resamples=1000, seed=4)
    row = paired_test(scored_a, scored_b, n_resamples=1000, seed=4)["tau"]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    assert row["n_docs"] == len(differences)


def test_noisy_runs_compare_noise_metrics_too(tmp_path):
    good = make_run(tmp_path, "good", system_records(120, 0.85, seed=31, noisy=True))
    poor = make_run(tmp_path, "poor", system_records(120, 0.4, seed=32, noisy=True))
    metrics = compare_runs(good, poor, n_resamples=1000)["metrics"]
    assert list(metrics) == [*METRICS, "noise_acc"]
    assert metrics["noise_acc"]["diff"] > 0 and metrics["noise_acc"]["p_permutation"] < 0.01
    # Order metrics: over the documents where both runs kept exactly the gold sentences.
    assert metrics["tau"]["n_docs"] < metrics["pm_f"]["n_docs"] == 120  # none trivial


def test_paired_test_input_checks():
    scored = score_documents([([0, 1], [1, 0])])
    with pytest.raises(PairingError, match="no document to compare"):
        paired_test(score_documents([([0], [0])]), score_documents([([0], [0])]))
    with pytest.raises(PairingError, match="not hold the same documents"):
        paired_test(scored, score_documents([([0, 1], [1, 0]), ([0, 1], [0, 1])]))
    with pytest.raises(ValueError, match="n_resamples"):
        paired_test(scored, scored, n_resamples=0)
    assert math.isclose(paired_test(scored, scored, n_resamples=10)["tau"]["p_permutation"], 1.0)


def test_row_directories_are_compared_counting_seeds(tmp_path, capsys):
    """Row directories of 3 seeds each: the leaderboard's comparison (seeds + documents)."""
    for seed in range(3):
        write_run(tmp_path, "attordernet", seed, quality=0.9)
        write_run(tmp_path, "cnn_ptrnet", seed, quality=0.3)
    good, poor = tmp_path / "brown/attordernet/base", tmp_path / "brown/cnn_ptrnet/base"
    result = compare_runs(good, poor, n_resamples=500)
    assert result["method"] == SEEDS_AND_DOCUMENTS and result["a"]["seeds"] == [0, 1, 2]
    tau = result["metrics"]["tau"]
    assert tau["diff"] > 0 and tau["ci_low"] > 0 and tau["p"] < 0.05 and tau["se_seeds"] > 0
    assert main([str(good), str(poor), "resamples=200"]) == 0
    assert "counting seed and document variation" in capsys.readouterr().out
    single = compare_runs(good / "seed_0", poor / "seed_0", n_resamples=100)
    assert single["method"] == DOCUMENTS_ONLY
