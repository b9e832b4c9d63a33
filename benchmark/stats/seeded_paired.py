"""Paired comparison of two systems trained with several seeds each, counting both the
seed-to-seed and the document-to-document variation (docs/metrics.md, "Comparing rows").

A row of the leaderboard (dataset, preset, variant) has one run per seed, all scored on
the same test documents under the same fixed permutations (docs/design.md, section 5). Its figure
is the mean over seeds of the runs' corpus figures. The difference of two rows, A - B,
varies for two reasons, and its standard error adds both:

- documents: `se_docs`, the standard deviation of A - B over a paired bootstrap of the
  test documents (the same resampled documents for every seed of A and of B; Efron &
  Tibshirani 1993, ch. 13); each resample recomputes every seed's figure as the ratio of
  sums it is (`ScoredCorpus.terms`) and averages over seeds;
- seeds: `se_seeds` = sqrt(var_A / n_A + var_B / n_B), the sample variances of the runs'
  figures over seeds (on the fixed test set, so they hold training randomness only).

se = sqrt(se_docs^2 + se_seeds^2); t = (A - B) / se is referred to Student's t with the
Welch-Satterthwaite degrees of freedom of the seed terms (the document term has a large
sample behind it and adds none): with 3 seeds and a seed-dominated difference this is
Welch's t-test, with a document-dominated one the paired bootstrap's normal test. The
p-value is two-sided, the interval A - B +- t_{1-alpha/2, df} se. A bootstrap over 3
seeds would have only 10 distinct draws per system and underestimate the seed variance by
a factor 2/3; the t reference with few degrees of freedom does not.

With one seed on a side the seed variance cannot be estimated: `compare_seeded` then
falls back to the documents alone (`seeds_counted` false) when `allow_one_seed` is set,
and refuses otherwise.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchmark.metrics.corpus import ScoredCorpus, ratio, score_records
from benchmark.metrics.directions import metric_range
from benchmark.records.run_collection import Run
from benchmark.stats.bootstrap import CI_ALPHA, check_settings, percentile_interval, resampled
from benchmark.stats.paired import PairingError, align_records

MIN_SEEDS = 2  # per row: the seed variance needs two figures


@dataclass(frozen=True)
class SeededRow:
    """A row's test documents and every seed's per-document terms on them."""

    records: list[dict]  # the counted prediction records of the first seed: id, gold, ...
    keys: list[str]  # the corpus metrics, in report order
    numer: np.ndarray  # (S, D, K): corpus figure of seed s = sum_d numer / sum_d denom
    denom: np.ndarray  # (S, D, K)

    @property
    def n_seeds(self) -> int:
        return self.numer.shape[0]

    def seed_figures(self) -> np.ndarray:
        """(S, K) every seed's corpus figures."""
        return ratio(self.numer.sum(axis=1), self.denom.sum(axis=1))


def _stacked(scored: Sequence[ScoredCorpus]) -> tuple[list[str], np.ndarray, np.ndarray]:
    keys, numers, denoms = None, [], []
    for corpus in scored:
        corpus_keys, numer, denom = corpus.terms()  # (D, K) each
        if keys is not None and corpus_keys != keys:
            raise PairingError("the seeds report different metrics (noise setting differs?)")
        keys = corpus_keys
        numers.append(numer)
        denoms.append(denom)
    return keys, np.stack(numers), np.stack(denoms)


def seeded_row(run_records: Sequence[list[dict]], include_trivial: bool = False) -> SeededRow:
    """A row from its seeds' prediction records (each a list of `id`, `gold`, `pred`, ...).

    Raises `PairingError` when the seeds were not scored on the same documents.
    """
    reference = run_records[0]
    scored = []
    for records in run_records:
        _, aligned = align_records(reference, records)  # in the first seed's order
        scored.append(score_records(aligned, include_trivial))
    keys, numer, denom = _stacked(scored)
    counted = [  # the documents numer and denom hold (one-sentence ones only if included)
        record for record, trivial in zip(reference, scored[0].trivial, strict=True)
        if include_trivial or not trivial
    ]
    return SeededRow(counted, keys, numer, denom)


def load_row(runs: Sequence[Run]) -> SeededRow:
    """The row of `runs` (one per seed), read from their `predictions.jsonl`; scored under
    the first run's trivial policy. Raises `PairingError` or the errors of
    `benchmark.records.predictions_jsonl.read_predictions`."""
    return seeded_row([run.predictions() for run in runs], runs[0].include_trivial)


def _in_order(row: SeededRow, records: Sequence[dict]) -> SeededRow:
    index = {record["id"]: i for i, record in enumerate(row.records)}
    order = [index[record["id"]] for record in records]
    return SeededRow(list(records), row.keys, row.numer[:, order], row.denom[:, order])


def _seed_means(numer: np.ndarray, denom: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(R, K): mean over seeds of each seed's figure on the resampled documents.

    numer, denom (S, D, K); counts (R, D)."""
    counts = counts.astype(float)[None]  # (1, R, D)
    figures = ratio(counts @ numer, counts @ denom)  # (S, R, K)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a figure no resampled doc has
        return np.nanmean(figures, axis=0)  # (R, K)


def _welch_df(terms: Sequence[tuple[float, int]], total: float) -> float:
    """Welch-Satterthwaite degrees of freedom of `total` = sum of var/n terms (+ the
    document term, whose degrees of freedom count as infinite)."""
    denominator = sum((var / n) ** 2 / (n - 1) for var, n in terms)
    return math.inf if denominator <= 0 else total**2 / denominator


def compare_seeded(
    row_a: SeededRow,
    row_b: SeededRow,
    n_resamples: int = 10_000,
    alpha: float = CI_ALPHA,
    seed: int = 0,
    allow_one_seed: bool = False,
) -> dict[str, dict[str, float]]:
    """`{metric: {a, b, diff, ci_low, ci_high, p, se, se_docs, se_seeds, df, docs_ci_low,
    docs_ci_high, n_seeds_a, n_seeds_b, n_docs, seeds_counted}}`, difference A - B.

    `docs_ci_low/high` is the percentile interval of the document bootstrap alone (what a
    test that ignores seeds would report). Raises `PairingError` when the rows were not
    scored on the same documents, ValueError for one seed unless `allow_one_seed`.
    """
    check_settings(n_resamples, alpha)
    seeds_counted = min(row_a.n_seeds, row_b.n_seeds) >= MIN_SEEDS
    if not seeds_counted and not allow_one_seed:
        raise ValueError(
            f"seed variance needs two seeds or more per row, got {row_a.n_seeds} and "
            f"{row_b.n_seeds}"
        )
    records_a, records_b = align_records(row_a.records, row_b.records)
    if row_a.keys != row_b.keys:
        raise PairingError("the two rows report different metrics (noise setting differs?)")
    row_b = _in_order(row_b, records_b)
    n_docs = len(records_a)
    if row_a.numer.shape[1] == 0:
        raise PairingError("no document to compare (all excluded by the trivial policy?)")

    figures_a, figures_b = row_a.seed_figures(), row_b.seed_figures()  # (S_a, K), (S_b, K)
    mean_a, mean_b = np.nanmean(figures_a, axis=0), np.nanmean(figures_b, axis=0)  # (K,)
    observed = mean_a - mean_b  # (K,)

    def bootstrap(counts: np.ndarray) -> np.ndarray:  # (R, D) -> (R, K)
        return (_seed_means(row_a.numer, row_a.denom, counts)
                - _seed_means(row_b.numer, row_b.denom, counts))

    resamples = resampled(n_docs, n_resamples, seed, bootstrap)  # (R, K)
    docs_low, docs_high = percentile_interval(resamples, alpha)
    se_docs = np.nanstd(resamples, axis=0, ddof=1) if n_resamples > 1 else np.zeros_like(observed)

    both = (row_a.denom > 0).all(axis=0) & (row_b.denom > 0).all(axis=0)  # (D, K)
    result = {}
    for k, key in enumerate(row_a.keys):
        seed_terms = []
        if seeds_counted:
            for figures in (figures_a[:, k], figures_b[:, k]):
                values = figures[~np.isnan(figures)]
                seed_terms.append((float(np.var(values, ddof=1)), values.size))
        se_seeds2 = sum(var / n for var, n in seed_terms)
        se = math.sqrt(se_docs[k] ** 2 + se_seeds2)
        df = _welch_df(seed_terms, se**2) if seeds_counted else math.inf
        diff = float(observed[k])
        if math.isnan(diff):
            p = low = high = math.nan
        elif se == 0:
            p, low, high = (1.0 if diff == 0 else 0.0), diff, diff
        else:
            p = float(2 * stats.t.sf(abs(diff) / se, df))
            half = float(stats.t.ppf(1 - alpha / 2, df)) * se
            low, high = diff - half, diff + half
        result[key] = {
            "a": float(mean_a[k]),
            "b": float(mean_b[k]),
            "diff": diff,
            "ci_low": low,
            "ci_high": high,
            "p": p,
            "se": se,
            "se_docs": float(se_docs[k]),
            "se_seeds": math.sqrt(se_seeds2) if seeds_counted else math.nan,
            "df": df,
            "docs_ci_low": float(docs_low[k]),
            "docs_ci_high": float(docs_high[k]),
            "n_seeds_a": row_a.n_seeds,
            "n_seeds_b": row_b.n_seeds,
            "n_docs": int(both[:, k].sum()),
            "seeds_counted": seeds_counted,
        }
    return result


def seed_mean_interval(
    row: SeededRow, n_resamples: int = 1000, alpha: float = CI_ALPHA, seed: int = 0
) -> dict[str, dict[str, float]]:
    """`{metric: {"mean", "ci_low", "ci_high"}}`: the row's mean over seeds and its
    percentile-bootstrap interval over documents (the same resampled documents for every
    seed; seed variation is not counted). With one seed this is `bootstrap_metrics`."""
    check_settings(n_resamples, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a figure no seed has
        means = np.nanmean(row.seed_figures(), axis=0)  # (K,)
    n_docs = row.numer.shape[1]
    if n_docs == 0:
        low = high = np.full(len(row.keys), np.nan)
    else:
        resamples = resampled(
            n_docs, n_resamples, seed, lambda counts: _seed_means(row.numer, row.denom, counts)
        )
        low, high = percentile_interval(resamples, alpha)  # (K,) each
    return {
        key: {"mean": float(means[k]), "ci_low": float(low[k]), "ci_high": float(high[k])}
        for k, key in enumerate(row.keys)
    }


def seeded_interval(
    row: SeededRow, n_resamples: int = 10_000, alpha: float = CI_ALPHA, seed: int = 0
) -> dict[str, dict[str, float]]:
    """`{metric: {mean, ci_low, ci_high, se, se_docs, se_seeds, df}}`: the row's mean over
    seeds and its 95% interval counting both sources of variation, as `compare_seeded` does
    for a difference: se_docs from a bootstrap of the test documents (the same resampled
    documents for every seed), se_seeds from the seeds' sample variance, Student's t with
    the seeds' degrees of freedom; clipped to the metric's range. With one seed, the
    documents alone (df infinite, `se_seeds` NaN)."""
    check_settings(n_resamples, alpha)
    figures = row.seed_figures()  # (S, K)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a figure no seed has
        means = np.nanmean(figures, axis=0)  # (K,)
    resamples = resampled(
        row.numer.shape[1], n_resamples, seed,
        lambda counts: _seed_means(row.numer, row.denom, counts),
    )  # (R, K)
    se_docs = np.nanstd(resamples, axis=0, ddof=1) if n_resamples > 1 else np.zeros_like(means)
    result = {}
    for k, key in enumerate(row.keys):
        values = figures[:, k][~np.isnan(figures[:, k])]
        seeds_counted = values.size >= MIN_SEEDS
        var_seeds = float(np.var(values, ddof=1)) / values.size if seeds_counted else 0.0
        se = math.sqrt(float(se_docs[k]) ** 2 + var_seeds)
        df = _welch_df([(var_seeds * values.size, values.size)], se**2) if seeds_counted \
            else math.inf
        half = float(stats.t.ppf(1 - alpha / 2, df)) * se
        low_bound, high_bound = metric_range(key)
        mean = float(means[k])
        result[key] = {
            "mean": mean,
            "ci_low": max(mean - half, low_bound),
            "ci_high": min(mean + half, high_bound),
            "se": se,
            "se_docs": float(se_docs[k]),
            "se_seeds": math.sqrt(var_seeds) if seeds_counted else math.nan,
            "df": df,
        }
    return result
