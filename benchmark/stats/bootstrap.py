"""Percentile bootstrap confidence intervals over documents (docs/design.md, section 5).

Documents are resampled with replacement (Efron & Tibshirani 1993, "An Introduction to
the Bootstrap", ch. 13); a corpus statistic is recomputed on each resample and the
interval is its alpha/2 and 1 - alpha/2 quantiles. A resample is held as counts (how
often each document was drawn), so every statistic is a matrix product. All metrics of
one call share the same resamples, and the resamples depend only on (number of
documents, n_resamples, seed): the same seed gives the same interval everywhere.

Every corpus figure is a ratio of sums (`ScoredCorpus.terms`), recomputed as a ratio on
each resample: a mean over documents, `acc_pooled` as pooled positions, and under noise
the order metrics over the resampled documents whose kept set equals gold. A resample
where a figure has no document (possible only for those conditional figures) is left out
of its quantiles.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from benchmark.metrics.corpus import ScoredCorpus, metric_means, ratio, score_records

CI_ALPHA = 0.05  # 95% intervals (docs/design.md, section 5)
_MAX_CELLS = 1 << 22  # resample cells (resamples x documents) held at once: 32 MiB of int64

# draw(rng, rows, n_docs) -> (rows, n_docs) weights of the documents in each resample
Draw = Callable[[np.random.Generator, int, int], np.ndarray]


def check_settings(n_resamples: int, alpha: float) -> None:
    """ValueError unless n_resamples >= 1 and 0 < alpha < 1."""
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")


def resample_counts(rng: np.random.Generator, rows: int, n_docs: int) -> np.ndarray:
    """(rows, n_docs) counts: how often each document is drawn; each row sums to n_docs."""
    draws = rng.integers(0, n_docs, size=(rows, n_docs))  # (R, n_docs) document indices
    flat = draws + n_docs * np.arange(rows)[:, None]  # (R, n_docs) index into R*n_docs
    counts = np.bincount(flat.ravel(), minlength=rows * n_docs)  # (R * n_docs,)
    return counts.reshape(rows, n_docs)


def resampled(
    n_docs: int,
    n_resamples: int,
    seed: int | Sequence[int],
    statistic: Callable[[np.ndarray], np.ndarray],
    draw: Draw = resample_counts,
) -> np.ndarray:
    """`statistic(draw(...))` over all resamples, shape (n_resamples, K).

    `draw` gives the (R, n_docs) document weights of R resamples (bootstrap counts by
    default); `statistic` maps them to (R, K). Drawn in chunks to bound memory, from one
    generator seeded with `seed` (an int, or a sequence of ints naming a stream).
    """
    rng = np.random.default_rng(seed)
    rows = max(1, _MAX_CELLS // n_docs)
    chunks = []
    for start in range(0, n_resamples, rows):
        size = min(rows, n_resamples - start)
        chunks.append(statistic(draw(rng, size, n_docs)))  # (R, K)
    return np.concatenate(chunks)  # (n_resamples, K)


def percentile_interval(stats: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of stats (n_resamples, K), NaN rows ignored.

    Two arrays (K,); NaN for a column with no finite value.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column -> NaN
        low, high = np.nanquantile(stats, [alpha / 2, 1 - alpha / 2], axis=0)  # (2, K)
    return low, high


def bootstrap_ci(
    per_doc_values: np.ndarray, n_resamples: int = 1000, alpha: float = CI_ALPHA, seed: int = 0
) -> tuple[float, float]:
    """Percentile-bootstrap (1 - alpha) interval of the mean of per-document values.

    (NaN, NaN) for no documents.
    """
    check_settings(n_resamples, alpha)
    values = np.asarray(per_doc_values, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"per_doc_values must be 1-D, got shape {values.shape}")
    if values.size == 0:
        return math.nan, math.nan
    column = values[:, None]  # (D, 1)
    stats = resampled(values.size, n_resamples, seed, lambda counts: counts @ column / values.size)
    low, high = percentile_interval(stats, alpha)
    return float(low[0]), float(high[0])


def bootstrap_metrics(
    scored: ScoredCorpus, n_resamples: int = 1000, alpha: float = CI_ALPHA, seed: int = 0
) -> dict[str, dict[str, float]]:
    """`{metric: {"mean", "ci_low", "ci_high"}}` for every corpus metric of `scored`.

    `mean` is the corpus value (as in `benchmark.metrics.corpus.summarise`); the intervals of all
    metrics come from the same resamples. NaN intervals for no documents.
    """
    check_settings(n_resamples, alpha)
    means = metric_means(scored)
    keys, numer, denom = scored.terms()  # (D, K) each
    if numer.shape[0] == 0:
        return {key: {"mean": means[key], "ci_low": math.nan, "ci_high": math.nan} for key in keys}

    def statistic(counts: np.ndarray) -> np.ndarray:  # counts (R, D) -> (R, K)
        return ratio(counts @ numer, counts @ denom)

    low, high = percentile_interval(resampled(len(numer), n_resamples, seed, statistic), alpha)
    return {
        key: {"mean": means[key], "ci_low": float(lo), "ci_high": float(hi)}
        for key, lo, hi in zip(keys, low, high, strict=True)
    }


def bootstrap_summary(
    records: Iterable[Mapping],
    include_trivial: bool = False,
    n_resamples: int = 1000,
    alpha: float = CI_ALPHA,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """`bootstrap_metrics` of prediction records (`id`, `gold`, `pred`, optional `noise`).

    Documents are scored under the same trivial policy as the run record, so each `mean`
    equals the corpus value of `metrics.json`.
    """
    return bootstrap_metrics(score_records(records, include_trivial), n_resamples, alpha, seed)
