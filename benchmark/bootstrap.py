"""Percentile bootstrap confidence intervals over documents (DESIGN section 5).

Documents are resampled with replacement (Efron & Tibshirani 1993, "An Introduction to
the Bootstrap", ch. 13); a corpus statistic is recomputed on each resample and the
interval is its alpha/2 and 1 - alpha/2 quantiles. A resample is held as counts (how
often each document was drawn), so every statistic is a matrix product. All metrics of
one call share the same resamples, and the resamples depend only on (number of
documents, n_resamples, seed): the same seed gives the same interval everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from benchmark.metrics import N_SENTENCES, metric_keys, metric_means, score_documents

_MAX_CELLS = 1 << 22  # resample-count cells held at once (32 MiB of int64)


def _check_settings(n_resamples: int, alpha: float) -> None:
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")


def _resampled(
    n_docs: int, n_resamples: int, seed: int, statistic: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """`statistic(counts)` over all resamples, shape (n_resamples, K).

    counts (R, n_docs): counts[r, d] = times document d is drawn in resample r (rows sum
    to n_docs); statistic maps it to (R, K). Drawn in chunks to bound memory.
    """
    rng = np.random.default_rng(seed)
    rows = max(1, _MAX_CELLS // n_docs)
    chunks = []
    for start in range(0, n_resamples, rows):
        size = min(rows, n_resamples - start)
        draws = rng.integers(0, n_docs, size=(size, n_docs))  # (R, n_docs) document indices
        flat = draws + n_docs * np.arange(size)[:, None]  # (R, n_docs) index into R*n_docs
        counts = np.bincount(flat.ravel(), minlength=size * n_docs)  # (R * n_docs,)
        chunks.append(statistic(counts.reshape(size, n_docs)))  # (R, K)
    return np.concatenate(chunks)  # (n_resamples, K)


def _interval(stats: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of stats (n_resamples, K): two arrays (K,)."""
    low, high = np.quantile(stats, [alpha / 2, 1 - alpha / 2], axis=0)  # (2, K)
    return low, high


def bootstrap_ci(
    per_doc_values: np.ndarray, n_resamples: int = 1000, alpha: float = 0.05, seed: int = 0
) -> tuple[float, float]:
    """Percentile-bootstrap (1 - alpha) interval of the mean of per-document values.

    (NaN, NaN) for no documents.
    """
    _check_settings(n_resamples, alpha)
    values = np.asarray(per_doc_values, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"per_doc_values must be 1-D, got shape {values.shape}")
    if values.size == 0:
        return math.nan, math.nan
    column = values[:, None]  # (D, 1)
    stats = _resampled(values.size, n_resamples, seed, lambda counts: counts @ column / values.size)
    low, high = _interval(stats, alpha)
    return float(low[0]), float(high[0])


def bootstrap_metrics(
    per_doc: Sequence[Mapping[str, float]],
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """`{metric: {"mean", "ci_low", "ci_high"}}` for every per-document metric and acc_pooled.

    `per_doc` are the dicts of `benchmark.metrics.document_metrics`; `mean` is the corpus
    value (as in `corpus_metrics`), the interval comes from the same resamples for every
    metric. acc_pooled is recomputed as a pooled ratio on each resample. NaN throughout
    for no documents.
    """
    _check_settings(n_resamples, alpha)
    means = metric_means(per_doc)
    if not per_doc:
        return {
            key: {"mean": mean, "ci_low": math.nan, "ci_high": math.nan}
            for key, mean in means.items()
        }
    keys = metric_keys(per_doc)
    values = np.array([[doc[key] for key in keys] for doc in per_doc], dtype=float)  # (D, K)
    sizes = np.array([doc[N_SENTENCES] for doc in per_doc], dtype=float)  # (D,)
    correct = np.rint(values[:, keys.index("acc")] * sizes)  # (D,) correct positions

    def statistic(counts: np.ndarray) -> np.ndarray:  # counts (R, D) -> (R, K + 1)
        doc_means = counts @ values / len(per_doc)  # (R, K)
        pooled = (counts @ correct) / (counts @ sizes)  # (R,)
        return np.column_stack([doc_means, pooled])

    low, high = _interval(_resampled(len(per_doc), n_resamples, seed, statistic), alpha)
    return {
        key: {"mean": means[key], "ci_low": float(lo), "ci_high": float(hi)}
        for key, lo, hi in zip([*keys, "acc_pooled"], low, high, strict=True)
    }


def bootstrap_summary(
    records: Iterable[Mapping],
    include_trivial: bool = False,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """`bootstrap_metrics` of prediction records (mappings with `gold` and `pred`).

    Documents are scored under the same trivial policy as `corpus_metrics`, so each `mean`
    equals the corpus value of the run record.
    """
    per_doc, _ = score_documents(((r["gold"], r["pred"]) for r in records), include_trivial)
    return bootstrap_metrics(per_doc, n_resamples, alpha, seed)
