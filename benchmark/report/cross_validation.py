"""The cross-validated figure of Accidents/Earthquakes (`dataset.protocol=cross_validation`,
data/readers/barzilay_lapata.py): the runs of folds 0..9 of one (model, corpus, seed)
score every training article once, each by a model trained and selected without it. This
is the second reading of Cui et al. (2018), sec. 3.1 ("10-fold cross validation on the
training data"), the one whose figure is the cross-validated one.

`pool_folds` gives, for one metric:

- `pooled`: the figure over all held-out articles together, each article counted once
  (for a per-document mean such as tau, the mean over the pooled articles; for order
  discrimination, pooled pairs: wins / pairs over every fold);
- the per-fold spread: the figure of each fold alone, their min, max and standard
  deviation (ddof 1), the variation that one fold's run (the other reading's single
  validation fold) would show;
- a 95% interval over articles and folds: a two-stage percentile bootstrap (Davison and
  Hinkley 1997, sec. 3.8, resampling a hierarchical sample at both stages): draw the folds
  with replacement, then, inside each drawn fold, its articles with replacement (a fold
  drawn twice gets two independent draws), and recompute the pooled figure; the 2.5% and
  97.5% quantiles of 2,000 resamples, seeded. Folds are the first stage because they are
  the units that were trained separately: the interval counts the run-to-run variation of
  the fold models as well as the sampling of articles. Discrimination figures have no
  per-article counts in the run directory, so their interval resamples folds only
  (`interval: "folds"`).

Runs are pooled only when they are the folds of one configuration: the same dataset,
preset, seed and resolved config apart from `dataset.fold` and the run label (`variant`),
protocol `cross_validation`, distinct folds, disjoint held-out articles. Anything else is a
`PoolingError` naming the difference (pooling folds of other settings or seeds would mix
models). Fewer folds than `n_folds` are pooled and marked (`complete: False`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from benchmark.config.identity import comparable_config, config_differences
from benchmark.metrics.corpus import score_records
from benchmark.records.run_collection import Run
from benchmark.stats.bootstrap import CI_ALPHA, check_settings, percentile_interval

CROSS_VALIDATION = "cross_validation"
N_RESAMPLES = 2000
# keys that may differ between the folds of one configuration
FOLD_KEYS = ("dataset.fold", "dataset.reader.fold", "variant")
DISCRIMINATION = "disc_acc"
METHOD = ("two-stage percentile bootstrap: folds with replacement, then the articles of each "
          "drawn fold with replacement; pooled figure recomputed")  # fmt: skip


class PoolingError(ValueError):
    """Runs that are not the folds of one configuration; the message names the difference."""


def protocol_of(run: Run) -> str:
    """The run's `dataset.protocol` (`published_test` when the config predates it)."""
    return str(run.config_value("dataset.protocol") or "published_test")


def fold_of(run: Run) -> int:
    """The test fold of a cross-validated run."""
    fold = run.config_value("dataset.fold")
    if not isinstance(fold, int):
        raise PoolingError(f"{run.path}: no dataset.fold in its config")
    return fold


def n_folds_of(run: Run) -> int:
    value = run.config_value("dataset.reader.n_folds")
    return int(value) if isinstance(value, int) else 10


def _without_fold(run: Run) -> dict:
    config = comparable_config(run.record.get("config") or {})
    for dotted in FOLD_KEYS:
        *parents, leaf = dotted.split(".")
        node = config
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(leaf, None)
    return config


def check_poolable(runs: Sequence[Run]) -> None:
    """PoolingError unless `runs` are distinct folds of one cross-validated configuration."""
    if not runs:
        raise PoolingError("no runs to pool")
    first = runs[0]
    for run in runs:
        if protocol_of(run) != CROSS_VALIDATION:
            raise PoolingError(
                f"{run.path}: dataset.protocol is {protocol_of(run)!r}, not {CROSS_VALIDATION!r}:"
                " only the folds of a cross-validated run are pooled"
            )
        for what, mine, theirs in (("dataset", run.dataset, first.dataset),
                                   ("preset", run.preset, first.preset),
                                   ("seed", run.seed, first.seed)):  # fmt: skip
            if mine != theirs:
                raise PoolingError(
                    f"cannot pool folds of different {what}s: {first.path} has {theirs!r}, "
                    f"{run.path} has {mine!r}"
                )
    reference = _without_fold(first)
    for run in runs[1:]:
        differences = config_differences(reference, _without_fold(run))
        if differences:
            shown = "; ".join(differences[:3]) + (" ..." if len(differences) > 3 else "")
            raise PoolingError(
                f"cannot pool {run.path} with {first.path}: their configs differ beyond the "
                f"fold: {shown}"
            )
    folds = [fold_of(run) for run in runs]
    repeated = sorted({fold for fold in folds if folds.count(fold) > 1})
    if repeated:
        raise PoolingError(f"fold {repeated[0]} is given twice ({first.dataset}/{first.preset})")


def fold_documents(run: Run, metric: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(numer (D,), denom (D,), ids) of `metric` over the run's scored test documents: the
    figure of any set of them is sum(numer) / sum(denom) (`ScoredCorpus.terms`)."""
    records = run.predictions()
    scored = score_records(records, include_trivial=run.include_trivial)
    keys, numer, denom = scored.terms()
    if metric not in keys:
        raise PoolingError(f"{run.path}: no per-document {metric!r} in its predictions")
    k = keys.index(metric)
    counted = [r["id"] for r, t in zip(records, scored.trivial, strict=True)
               if run.include_trivial or not t]  # fmt: skip
    return numer[:, k], denom[:, k], counted


def _ratio(numer: float, denom: float) -> float:
    return float(numer / denom) if denom > 0 else math.nan


def _two_stage(parts: list[tuple[np.ndarray, np.ndarray]], n_resamples: int, seed: int,
               alpha: float, within: bool) -> tuple[float, float]:  # fmt: skip
    """Percentile interval of the pooled ratio: folds drawn with replacement, then (when
    `within`) the documents of each drawn fold; a fold drawn c times gets c independent
    draws, i.e. multinomial counts over c * D of its documents."""
    rng = np.random.default_rng([0xC5, seed])
    k = len(parts)
    stats = np.empty((n_resamples, 1))
    for r in range(n_resamples):
        drawn = rng.multinomial(k, np.full(k, 1.0 / k))  # (K,) times each fold is drawn
        numer = denom = 0.0
        for (fold_numer, fold_denom), times in zip(parts, drawn, strict=True):
            if not times:
                continue
            if within:
                size = len(fold_numer)
                counts = rng.multinomial(times * size, np.full(size, 1.0 / size))  # (D,)
            else:
                counts = np.full(len(fold_numer), times)
            numer += float(counts @ fold_numer)
            denom += float(counts @ fold_denom)
        stats[r, 0] = _ratio(numer, denom)
    low, high = percentile_interval(stats, alpha)
    return float(low[0]), float(high[0])


def pool_folds(
    runs: Sequence[Run],
    metric: str = "tau",
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    alpha: float = CI_ALPHA,
) -> dict:
    """The pooled figure of `metric` over the folds `runs` (see the module docstring):
    `pooled`, `fold_means` (by fold), `fold_min` / `fold_max` / `fold_std`, `ci_low` /
    `ci_high`, `n_folds` (pooled) of `n_folds_expected`, `complete`, `n_docs` (articles
    pooled; discrimination: pairs), `folds`, `interval` (what it resamples), `method`."""
    check_settings(n_resamples, alpha)
    runs = sorted(runs, key=fold_of)
    check_poolable(runs)
    if metric == DISCRIMINATION:
        parts = [_discrimination_terms(run) for run in runs]
        within = False
    else:
        parts, seen = [], {}
        for run in runs:
            numer, denom, ids = fold_documents(run, metric)
            for doc_id in ids:
                if doc_id in seen:
                    raise PoolingError(
                        f"article {doc_id!r} is held out by fold {seen[doc_id]} and fold "
                        f"{fold_of(run)}: the folds are not one partition"
                    )
                seen[doc_id] = fold_of(run)
            parts.append((numer, denom))
        within = True
    fold_means = [_ratio(n.sum(), d.sum()) for n, d in parts]
    finite = [v for v in fold_means if not math.isnan(v)]
    expected = n_folds_of(runs[0])
    low, high = _two_stage(parts, n_resamples, seed, alpha, within)
    return {
        "metric": metric,
        "pooled": _ratio(sum(n.sum() for n, _ in parts), sum(d.sum() for _, d in parts)),
        "folds": [fold_of(run) for run in runs],
        "fold_means": fold_means,
        "fold_min": min(finite) if finite else math.nan,
        "fold_max": max(finite) if finite else math.nan,
        "fold_std": float(np.std(finite, ddof=1)) if len(finite) > 1 else math.nan,
        "ci_low": low,
        "ci_high": high,
        "n_folds": len(runs),
        "n_folds_expected": expected,
        "complete": len(runs) == expected,
        "n_docs": int(sum(d.sum() for _, d in parts)),
        "interval": "folds and articles" if within else "folds",
        "method": METHOD if within else "percentile bootstrap over folds; pooled pairs",
        "n_resamples": n_resamples,
    }


def _discrimination_terms(run: Run) -> tuple[np.ndarray, np.ndarray]:
    """(wins, pairs) of the run's order discrimination, as one-element arrays."""
    test = run.test
    acc, pairs = test.get(DISCRIMINATION), test.get("disc_n_pairs")
    if not isinstance(acc, (int, float)) or not isinstance(pairs, int) or math.isnan(acc):
        raise PoolingError(f"{run.path}: no order discrimination figures in its run record")
    return np.array([acc * pairs]), np.array([float(pairs)])


def cross_validated_groups(runs: Sequence[Run]) -> dict[tuple[str, str, str, int], list[Run]]:
    """The cross-validated runs by (dataset, preset, setting, seed): the setting is the run
    label without its fold (`cv_e100_fold3` -> `cv_e100`), so the groups are the candidate
    fold sets; `pool_folds` checks each."""
    groups: dict[tuple[str, str, str, int], list[Run]] = {}
    for run in runs:
        if protocol_of(run) != CROSS_VALIDATION:
            continue
        setting = setting_label(run)
        groups.setdefault((run.dataset, run.preset, setting, run.seed), []).append(run)
    return {key: sorted(groups[key], key=fold_of) for key in sorted(groups)}


def setting_label(run: Run) -> str:
    """The run label without the fold it ends with (`_fold<k>`, the label the sweep gives)."""
    suffix = f"_fold{fold_of(run)}"
    return run.variant.removesuffix(suffix)
