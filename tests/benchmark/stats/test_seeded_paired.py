"""The leaderboard's comparison (seeds and documents) and Holm's correction, on fabricated
per-document figures whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmark.metrics.corpus import ScoredCorpus
from benchmark.stats.bootstrap import bootstrap_metrics
from benchmark.stats.multiple_testing import holm
from benchmark.stats.paired import PairingError
from benchmark.stats.seeded_paired import (
    SeededRow,
    compare_seeded,
    seed_mean_interval,
    seeded_interval,
    seeded_row,
)

N_DOCS = 150


def row(values: np.ndarray, ids: list[str] | None = None) -> SeededRow:
    """A row from per-document tau values (S, D): every document counts once per seed."""
    n_seeds, n_docs = values.shape
    ids = ids or [f"doc-{d}" for d in range(n_docs)]
    records = [{"id": doc_id, "gold": [0, 1, 2]} for doc_id in ids]
    return SeededRow(records, ["tau"], values[:, :, None].copy(), np.ones((n_seeds, n_docs, 1)))


def system(rng, difficulty, shift=0.0, seed_sd=0.0, noise_sd=0.3, seeds=3) -> np.ndarray:
    """(seeds, D) per-document tau: shared document difficulty + the system's shift + a
    per-seed offset (training randomness) + per-document noise of each seed."""
    return np.stack([
        difficulty + shift + rng.normal(0, seed_sd) + rng.normal(0, noise_sd, difficulty.size)
        for _ in range(seeds)
    ])


def rejection_rate(shift: float, seed_sd: float, trials: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for trial in range(trials):
        difficulty = rng.normal(0.2, 0.4, N_DOCS)
        a = system(rng, difficulty, shift, seed_sd)
        b = system(rng, difficulty, 0.0, seed_sd)
        tau = compare_seeded(row(a), row(b), n_resamples=300, seed=trial)["tau"]
        rejected += tau["p"] < 0.05
    return rejected / trials


@pytest.mark.parametrize("seed_sd", [0.0, 0.03])
def test_identical_systems_are_rejected_at_most_at_the_nominal_rate(seed_sd: float):
    """150 pairs of systems that differ only by chance: about 5% or fewer rejections
    (binomial sd at 5% over 150 is 1.8 points; the bound allows 2.5 sd)."""
    assert rejection_rate(0.0, seed_sd, trials=150, seed=1) <= 0.05 + 0.045


def test_a_real_shift_is_found():
    """A shift of 0.15 tau (3 seeds of 150 documents, per-document noise sd 0.3, seed sd
    0.01; standard error about 0.03 on 4 degrees of freedom): found nearly always."""
    assert rejection_rate(0.15, 0.01, trials=40, seed=2) >= 0.9


def test_the_difference_and_interval_of_a_known_shift():
    rng = np.random.default_rng(3)
    difficulty = rng.normal(0.2, 0.4, N_DOCS)
    a, b = system(rng, difficulty, 0.1, 0.01), system(rng, difficulty, 0.0, 0.01)
    tau = compare_seeded(row(a), row(b), n_resamples=2000)["tau"]
    assert tau["diff"] == pytest.approx(a.mean() - b.mean())
    assert tau["ci_low"] < 0.1 < tau["ci_high"] and tau["ci_low"] > 0 and tau["p"] < 0.01
    assert tau["se"] == pytest.approx(math.hypot(tau["se_docs"], tau["se_seeds"]))
    assert tau["n_docs"] == N_DOCS and tau["seeds_counted"]


def test_seed_variance_widens_the_interval_over_the_document_bootstrap():
    """Seeds that disagree (sd 0.05): the interval counts it, the documents-only one does
    not, and only the latter calls two identical systems different."""
    rng = np.random.default_rng(4)
    difficulty = rng.normal(0.2, 0.4, N_DOCS)
    a = system(rng, difficulty, 0.0, seed_sd=0.05, noise_sd=0.05)
    b = system(rng, difficulty, 0.0, seed_sd=0.05, noise_sd=0.05)
    tau = compare_seeded(row(a), row(b), n_resamples=2000)["tau"]
    width = tau["ci_high"] - tau["ci_low"]
    docs_width = tau["docs_ci_high"] - tau["docs_ci_low"]
    assert tau["se_seeds"] > tau["se_docs"] and width > 2 * docs_width
    # the per-seed offsets: seed-to-seed sd of A - B's figures estimates sqrt(2) * 0.05
    expected_se = math.sqrt(np.var(a.mean(1), ddof=1) / 3 + np.var(b.mean(1), ddof=1) / 3)
    assert tau["se_seeds"] == pytest.approx(expected_se)
    assert tau["df"] < 10  # few seeds: Welch's degrees of freedom, not the normal


def test_identical_rows_show_no_difference():
    rng = np.random.default_rng(5)
    values = system(rng, rng.normal(0.2, 0.4, N_DOCS), seed_sd=0.02)
    tau = compare_seeded(row(values), row(values), n_resamples=200)["tau"]
    assert tau["diff"] == pytest.approx(0, abs=1e-12) and tau["p"] == pytest.approx(1.0)
    assert tau["ci_low"] < 0 < tau["ci_high"]  # the seed variance remains


def test_one_seed_is_refused_unless_documents_only_is_asked_for():
    rng = np.random.default_rng(6)
    difficulty = rng.normal(0.2, 0.4, N_DOCS)
    a, b = system(rng, difficulty, seeds=1), system(rng, difficulty, seeds=3)
    with pytest.raises(ValueError, match="two seeds or more per row, got 1 and 3"):
        compare_seeded(row(a), row(b), n_resamples=100)
    tau = compare_seeded(row(a), row(b), n_resamples=100, allow_one_seed=True)["tau"]
    assert not tau["seeds_counted"] and math.isnan(tau["se_seeds"]) and tau["df"] == math.inf


def test_rows_on_different_documents_are_refused():
    values = np.zeros((2, 4))
    other = row(values, ids=["doc-0", "doc-1", "doc-2", "elsewhere"])
    with pytest.raises(PairingError, match="different test documents"):
        compare_seeded(row(values), other, n_resamples=10)


def test_holm_on_a_hand_worked_family():
    """p = (0.01, 0.04, 0.03, 0.2): sorted 0.01, 0.03, 0.04, 0.2 times 4, 3, 2, 1 gives
    0.04, 0.09, 0.08 -> 0.09 (monotone), 0.2; only the first stays below 0.05."""
    adjusted = holm([0.01, 0.04, 0.03, 0.2])
    assert adjusted == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert holm([0.5, math.nan, 0.01]) == pytest.approx([0.5, math.nan, 0.02], nan_ok=True)
    assert holm([0.6, 0.6]) == pytest.approx([1.0, 1.0])  # capped at 1
    assert holm([]).size == 0
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        holm([1.5])


def test_seed_mean_interval_is_the_document_bootstrap_of_the_seed_mean():
    rng = np.random.default_rng(3)
    values = rng.uniform(-1, 1, size=(1, N_DOCS))
    one = seed_mean_interval(row(values), n_resamples=500, seed=4)["tau"]
    scored = ScoredCorpus(tuple({"tau": v} for v in values[0]), (False,) * N_DOCS, False, False)
    expected = bootstrap_metrics(scored, n_resamples=500, seed=4)["tau"]
    assert one == pytest.approx({"mean": values.mean(), "ci_low": expected["ci_low"],
                                 "ci_high": expected["ci_high"]})
    twice = seed_mean_interval(row(np.vstack([values, values])), n_resamples=500, seed=4)
    assert twice["tau"] == pytest.approx(one)
    shifted = seed_mean_interval(row(np.vstack([values, values + 0.2])), 500, seed=4)["tau"]
    assert shifted["mean"] == pytest.approx(values.mean() + 0.1)
    assert shifted["ci_low"] == pytest.approx(one["ci_low"] + 0.1)


def test_rows_with_one_sentence_documents_compare_over_the_counted_ones():
    """One-sentence documents are left out of the figures by default; the rows must pair
    the documents their figures hold (an IndexError before)."""
    def run(shift: int) -> list[dict]:
        records = [{"id": f"t{i}", "gold": [0], "pred": [0]} for i in range(8)]
        for i in range(32):
            gold = list(range(4))
            pred = gold if (i + shift) % 3 else [1, 0, 2, 3]
            records.append({"id": f"d{i}", "gold": gold, "pred": pred})
        return records

    row_a = seeded_row([run(0), run(1)])
    row_b = seeded_row([run(2), run(0)])
    assert len(row_a.records) == 32 and row_a.numer.shape[1] == 32
    tau = compare_seeded(row_a, row_b, 200, 0.05, 0)["tau"]
    assert -1 <= tau["diff"] <= 1


def test_a_rows_interval_counts_seeds_and_documents_and_covers_at_the_nominal_rate():
    """The one-row interval (`seeded_interval`): wider than the documents alone when the
    seeds disagree; one seed gives the documents alone; over 200 simulated rows of 3 seeds
    whose true mean is known, the 95% interval covers it about 95% of the time."""
    rng = np.random.default_rng(5)
    difficulty = rng.normal(0.2, 0.4, N_DOCS)
    values = system(rng, difficulty, seed_sd=0.05)
    three = seeded_interval(row(values), n_resamples=400)["tau"]
    one = seeded_interval(row(values[:1]), n_resamples=400)["tau"]
    assert three["ci_high"] - three["ci_low"] > 2 * 1.96 * three["se_docs"]
    assert math.isnan(one["se_seeds"]) and one["df"] == math.inf
    covered = 0
    for trial in range(200):
        shared = rng.normal(0.2, 0.4, N_DOCS)  # the test set is drawn anew too
        draw = system(rng, shared - shared.mean() + 0.3, seed_sd=0.05)
        tau = seeded_interval(row(draw), n_resamples=200, seed=trial)["tau"]
        covered += tau["ci_low"] <= 0.3 <= tau["ci_high"]
    assert covered / 200 >= 0.9


def test_a_rows_interval_is_clipped_to_the_metrics_range():
    values = np.full((3, N_DOCS), 0.999)
    values[0, :5] = 1.0
    tau = seeded_interval(row(values), n_resamples=100)["tau"]
    assert tau["ci_high"] <= 1.0
