"""Order discrimination's corpus figures and their bootstrap intervals, and their place in
the run record (docs/design.md, section 4): the per-document counts of
`benchmark.evaluation.discrimination.score_batch` pooled over documents, each rate's 95%
interval a percentile bootstrap over documents."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from benchmark.metrics.corpus import ratio
from benchmark.metrics.discrimination import (
    CI_KEYS,
    MAX_PERMUTATIONS,
    PERMUTATION_STREAM,
    PublishedPermutations,
)
from benchmark.stats.bootstrap import CI_ALPHA, check_settings, percentile_interval, resampled


def summarise_discrimination(
    records: Sequence[dict],
    n_resamples: int = 1000,
    alpha: float = CI_ALPHA,
    seed: int = 0,
) -> tuple[dict, dict]:
    """(figures, intervals) of per-document counts (`score_batch` records).

    figures: the FIGURES (NaN rates with no pair). intervals: `{key: {"mean", "ci_low",
    "ci_high"}}` for CI_KEYS, a percentile bootstrap over documents
    (`benchmark.stats.bootstrap`) recomputing each rate as pooled pairs of the resampled
    documents. Documents are taken in id order, so over the same documents and seed the
    resamples are those of the run's other intervals.
    """
    check_settings(n_resamples, alpha)
    ordered = sorted(records, key=lambda record: record["id"])
    rows = [[r["wins"], r["ties"], r["n_pairs"]] for r in ordered]
    terms = np.array(rows, dtype=float).reshape(-1, 3)  # (D, 3)
    numer, pairs = terms[:, :2], terms[:, 2:]  # (D, 2) wins and ties, (D, 1) pairs
    rates = ratio(numer.sum(axis=0), pairs.sum(axis=0))  # (2,) acc, ties_frac
    figures = {  # the FIGURES
        "disc_acc": float(rates[0]),
        "disc_ties": int(terms[:, 1].sum()),
        "disc_ties_frac": float(rates[1]),
        "disc_n_pairs": int(pairs.sum()),
        "disc_n_docs": len(ordered),
    }
    if ordered:
        stats = resampled(
            len(ordered), n_resamples, seed, lambda counts: ratio(counts @ numer, counts @ pairs)
        )  # (n_resamples, 2)
        low, high = percentile_interval(stats, alpha)
    else:
        low = high = np.full(2, math.nan)
    intervals = {
        key: {"mean": figures[key], "ci_low": float(lo), "ci_high": float(hi)}
        for key, lo, hi in zip(CI_KEYS, low, high, strict=True)
    }
    return figures, intervals


def add_to_record(
    record: dict,
    split: str,
    records: Sequence[dict],
    n_resamples: int,
    seed: int,
    max_permutations: int = MAX_PERMUTATIONS,
    published: PublishedPermutations | None = None,  # the permutations used, if published
) -> dict:
    """Merge the discrimination figures of `split` into a run record (in place): the
    figures into `split.<split>`, their intervals into `ci.<split>`, the settings into
    `protocol.discrimination`. Returns the figures with `ci`."""
    figures, intervals = summarise_discrimination(records, n_resamples, CI_ALPHA, seed)
    record.setdefault("split", {}).setdefault(split, {}).update(figures)
    record.setdefault("ci", {}).setdefault(split, {}).update(intervals)
    seed_rule = f"sha256({PERMUTATION_STREAM}, dataset, split, document id, protocol_seed)"
    own = {
        "source": "own",
        "max_permutations": max_permutations,
        "permutation_seed": seed_rule,
    }
    record.setdefault("protocol", {})["discrimination"] = {
        "permutations": own if published is None else published.describe(),
        "max_permutations": max_permutations,
        "permutation_seed": seed_rule,
        "input": "the split's fixed presented permutation",
        "ties": "exact equality, not a win",
    }
    return {**figures, "ci": intervals}
