"""Percentile bootstrap over documents: coverage of the mean, width, determinism, and an
interval for every corpus metric (noise metrics included)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmark.metrics.corpus import corpus_metrics, score_documents, score_records, summarise
from benchmark.stats.bootstrap import bootstrap_ci, bootstrap_metrics, bootstrap_summary

COUNTS = {"n_docs", "n_docs_order", "n_trivial", "trivial_policy"}
METRIC_KEYS = {"tau", "acc", "pmr", "head", "tail", "lcs", "coherence_L", "acc_pooled",
               "lcs_pooled", "pm_f"}


def test_ci_contains_the_mean_and_is_deterministic():
    values = np.random.default_rng(0).uniform(-1, 1, size=200)
    low, high = bootstrap_ci(values, n_resamples=500, seed=7)
    assert low < values.mean() < high
    assert bootstrap_ci(values, n_resamples=500, seed=7) == (low, high)
    assert bootstrap_ci(values, n_resamples=500, seed=8) != (low, high)


def test_ci_shrinks_with_more_documents():
    rng = np.random.default_rng(1)
    small, large = rng.normal(size=50), rng.normal(size=5000)
    width_small = np.subtract(*bootstrap_ci(small)[::-1])
    width_large = np.subtract(*bootstrap_ci(large)[::-1])
    # Width scales as 1/sqrt(n): a tenth here; allow generous slack.
    assert width_large < width_small / 5


def test_ci_width_matches_normal_theory():
    values = np.random.default_rng(2).normal(size=1000)
    low, high = bootstrap_ci(values, n_resamples=2000)
    expected = 2 * 1.96 * values.std() / math.sqrt(values.size)
    assert high - low == pytest.approx(expected, rel=0.1)


def test_wider_interval_for_smaller_alpha():
    values = np.random.default_rng(3).normal(size=300)
    low95, high95 = bootstrap_ci(values, alpha=0.05)
    low80, high80 = bootstrap_ci(values, alpha=0.2)
    assert low95 < low80 < high80 < high95


def test_degenerate_inputs():
    assert all(math.isnan(v) for v in bootstrap_ci(np.array([])))
    assert bootstrap_ci(np.array([0.25])) == (0.25, 0.25)
    with pytest.raises(ValueError, match="1-D"):
        bootstrap_ci(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="alpha"):
        bootstrap_ci(np.zeros(3), alpha=1.5)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_ci(np.zeros(3), n_resamples=0)


def random_pairs(count, seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 15, size=count)
    return [(list(range(n)), rng.permutation(n).tolist()) for n in sizes]


def test_bootstrap_metrics_every_metric_and_pooled():
    pairs = random_pairs(300, seed=4)
    scored = score_documents(pairs)
    result = bootstrap_metrics(scored, n_resamples=400, seed=0)
    corpus = corpus_metrics(pairs)
    assert set(result) == METRIC_KEYS
    for key, ci in result.items():
        assert ci["mean"] == corpus[key], key
        assert ci["ci_low"] <= ci["mean"] <= ci["ci_high"], key
    # Per-document metrics share the resamples of bootstrap_ci under the same seed.
    taus = np.array([doc["tau"] for doc in scored.counted])
    low, high = bootstrap_ci(taus, n_resamples=400, seed=0)
    assert result["tau"]["ci_low"] == pytest.approx(low)
    assert result["tau"]["ci_high"] == pytest.approx(high)
    assert bootstrap_metrics(scored, n_resamples=400, seed=0) == result


def test_pooled_accuracy_is_recomputed_as_a_ratio_per_resample():
    # Two documents: 10 sentences all right, 2 sentences all wrong.
    # acc = (1 + 0)/2 = 0.5 but acc_pooled = 10/12. Resamples draw the two documents with
    # counts (2,0), (1,1), (0,2): pooled ratios 1, 10/12, 0 -- never a mean of accs.
    scored = score_documents([(list(range(10)), list(range(10))), ([0, 1], [1, 0])])
    result = bootstrap_metrics(scored, n_resamples=2000, alpha=0.8, seed=0)  # 40%-60%
    assert result["acc_pooled"]["mean"] == pytest.approx(10 / 12)
    assert result["acc_pooled"]["ci_low"] == pytest.approx(10 / 12)
    assert result["acc_pooled"]["ci_high"] == pytest.approx(10 / 12)
    assert result["acc"]["ci_low"] == pytest.approx(0.5)
    # The outer 2.5% quantiles fall in the (0,2) and (2,0) resamples: pooled 0/4 and 20/20.
    wide = bootstrap_metrics(scored, n_resamples=2000, alpha=0.05, seed=0)["acc_pooled"]
    assert (wide["ci_low"], wide["ci_high"]) == (0.0, 1.0)


def test_bootstrap_metrics_with_no_documents():
    result = bootstrap_metrics(score_documents([]))
    assert set(result) == METRIC_KEYS
    assert all(math.isnan(v) for ci in result.values() for v in ci.values())


def noisy_records(count, seed):
    """Records of a noisy split: one distractor each; about half keep exactly gold."""
    rng = np.random.default_rng(seed)
    records = []
    for index in range(count):
        n = int(rng.integers(2, 10))
        kept = list(range(n)) if rng.random() < 0.5 else [*range(1, n), -1]
        pred = rng.permutation(kept).tolist()
        records.append({"id": f"d{index}", "gold": list(range(n)), "pred": pred, "noise": [-1]})
    return records


def test_every_metric_of_a_noisy_split_has_an_interval():
    records = noisy_records(200, seed=7)
    summary = bootstrap_summary(records, n_resamples=300, seed=2)
    corpus = summarise(score_records(records))
    assert set(summary) == METRIC_KEYS | {"noise_acc"}
    assert set(summary) == {key for key, value in corpus.items() if key not in COUNTS}
    for key, ci in summary.items():
        assert ci["mean"] == corpus[key], key
        assert ci["ci_low"] <= ci["mean"] <= ci["ci_high"], key
    assert 0.0 < summary["noise_acc"]["ci_low"] < summary["noise_acc"]["ci_high"] < 1.0


def test_resamples_without_a_document_behind_a_figure_are_left_out():
    # Only one of 30 documents keeps exactly the gold sentences: about 36% of the resamples
    # lack it, so tau is undefined there; the interval comes from the others.
    records = [
        {"id": f"d{i}", "gold": [0, 1, 2], "pred": [0, 1, -1], "noise": [-1]} for i in range(29)
    ] + [{"id": "exact", "gold": [0, 1, 2], "pred": [2, 1, 0], "noise": [-1]}]
    summary = bootstrap_summary(records, n_resamples=500, seed=0)
    assert summary["tau"] == {"mean": -1.0, "ci_low": -1.0, "ci_high": -1.0}
    assert summary["noise_acc"]["ci_low"] == 0.0


def test_chunked_resampling_for_large_corpora():
    values = np.random.default_rng(5).uniform(size=50_000)  # > one chunk of resamples
    low, high = bootstrap_ci(values, n_resamples=200)
    assert low < values.mean() < high
    assert bootstrap_ci(values, n_resamples=200) == (low, high)


@pytest.mark.parametrize("include_trivial", [False, True])
def test_bootstrap_summary_of_records_follows_the_trivial_policy(include_trivial):
    pairs = random_pairs(100, seed=6) + [([0], [0])] * 20
    records = [{"id": f"d{i}", "gold": g, "pred": p} for i, (g, p) in enumerate(pairs)]
    summary = bootstrap_summary(records, include_trivial, n_resamples=300, seed=1)
    corpus = corpus_metrics(pairs, include_trivial)
    for key, ci in summary.items():
        assert ci["mean"] == corpus[key], key
    scored = score_documents(pairs, include_trivial)
    assert summary == bootstrap_metrics(scored, n_resamples=300, seed=1)
