"""Paired comparison of two systems on the same documents (docs/design.md, section 5).

Both systems were scored on the same test documents under the same fixed permutations,
so their difference is judged document by document:

- `align_records` pairs two runs' prediction records by document id and refuses (with
  `PairingError`, naming the difference) unless both hold the same documents with the
  same gold order and the same distractors.
- `paired_test` reports, for every corpus metric, A's and B's value, the difference
  A - B, its paired percentile-bootstrap interval (the same resampled documents for A
  and B; Efron & Tibshirani 1993, ch. 13) and two p-values for "no difference":
  - `p_permutation`: a paired permutation test (sign flip): each resample swaps the two
    systems' outputs on a random half of the documents (independent fair coins) and
    recomputes the difference; p = (1 + #{|resampled| >= |observed|}) / (1 + resamples)
    (Good 2005, "Permutation, Parametric and Bootstrap Tests of Hypotheses"; the +1 makes
    it a valid p-value, Phipson & Smyth 2010). Every figure is recomputed as the ratio of
    sums it is (`ScoredCorpus.terms`), so `acc_pooled` and the order metrics of a noisy
    split are tested as reported.
  - `p_wilcoxon`: Wilcoxon's signed-rank test (`scipy.stats.wilcoxon`, zero differences
    dropped) on the per-document values, as a cross-check; for `acc_pooled` these are
    the per-document accuracies. 1.0 when no document differs.
  Identical systems give a difference of 0, the interval [0, 0] and p = 1.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.stats import wilcoxon

from benchmark.metrics.corpus import ScoredCorpus, ratio
from benchmark.stats.bootstrap import CI_ALPHA, check_settings, percentile_interval, resampled

_FLIP_STREAM = 0xF11B  # separates the sign flips from the bootstrap resamples of `seed`
_TIE = 1e-12  # resampled differences this close to the observed one count as "as extreme"
_SHOWN = 5  # document ids named in a pairing error


class PairingError(ValueError):
    """The two runs were not scored on the same documents."""


def _listed(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_SHOWN])
    return shown + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else "")


def _by_id(records: Sequence[Mapping], name: str) -> dict[str, Mapping]:
    by_id: dict[str, Mapping] = {}
    for record in records:
        if record["id"] in by_id:
            raise PairingError(f"run {name} lists document {record['id']!r} twice")
        by_id[record["id"]] = record
    return by_id


def _ids(value) -> list | None:
    return None if value is None else list(value)


def align_records(
    records_a: Sequence[Mapping], records_b: Sequence[Mapping]
) -> tuple[list[Mapping], list[Mapping]]:
    """The two runs' records paired by document id, in A's order.

    Raises `PairingError` naming the documents only one run has, or those whose gold
    order or distractors differ between the runs.
    """
    a, b = _by_id(records_a, "A"), _by_id(records_b, "B")
    only_a = [doc_id for doc_id in a if doc_id not in b]
    only_b = [doc_id for doc_id in b if doc_id not in a]
    if only_a or only_b:
        parts = [
            f"{len(ids)} only in run {name} ({_listed(ids)})"
            for name, ids in (("A", only_a), ("B", only_b))
            if ids
        ]
        raise PairingError("the runs have different test documents: " + "; ".join(parts))
    for key, what in (("gold", "gold orders"), ("noise", "distractors")):
        differ = [doc_id for doc_id in a if _ids(a[doc_id].get(key)) != _ids(b[doc_id].get(key))]
        if differ:
            raise PairingError(
                f"the runs have different {what} for {len(differ)} document(s) "
                f"({_listed(differ)}): they were not made from the same test data"
            )
    return list(a.values()), [b[doc_id] for doc_id in a]


def _wilcoxon_p(values_a: np.ndarray, values_b: np.ndarray) -> float:
    """Signed-rank p-value of the per-document differences where both are defined."""
    both = ~np.isnan(values_a) & ~np.isnan(values_b)
    differences = values_a[both] - values_b[both]
    if not np.any(differences != 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(wilcoxon(differences, zero_method="wilcox").pvalue)


def _sign_flips(rng: np.random.Generator, rows: int, n_docs: int) -> np.ndarray:
    """(rows, n_docs) of 0/1: 1 swaps the two systems' outputs on that document."""
    return rng.integers(0, 2, size=(rows, n_docs))


def paired_test(
    scored_a: ScoredCorpus,
    scored_b: ScoredCorpus,
    n_resamples: int = 10_000,
    alpha: float = CI_ALPHA,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """`{metric: {a, b, diff, ci_low, ci_high, p_permutation, p_wilcoxon, n_docs}}`.

    `scored_a` and `scored_b` score the same documents in the same order (see
    `align_records`). `n_docs` counts the documents where both systems have the metric.
    The bootstrap uses `seed` (the resamples of `benchmark.stats.bootstrap` under that seed);
    the sign flips a stream derived from it.
    """
    check_settings(n_resamples, alpha)
    keys, numer_a, denom_a = scored_a.terms()  # (D, K) each
    keys_b, numer_b, denom_b = scored_b.terms()
    if keys != keys_b or numer_a.shape != numer_b.shape:
        raise PairingError("the two scored corpora do not hold the same documents")
    n_docs = numer_a.shape[0]
    if n_docs == 0:
        raise PairingError("no document to compare (all excluded by the trivial policy?)")

    mean_a = ratio(numer_a.sum(axis=0), denom_a.sum(axis=0))  # (K,)
    mean_b = ratio(numer_b.sum(axis=0), denom_b.sum(axis=0))  # (K,)
    observed = mean_a - mean_b  # (K,)

    def bootstrap(counts: np.ndarray) -> np.ndarray:  # (R, D) -> (R, K)
        return ratio(counts @ numer_a, counts @ denom_a) - ratio(counts @ numer_b, counts @ denom_b)

    low, high = percentile_interval(resampled(n_docs, n_resamples, seed, bootstrap), alpha)

    swap_numer, swap_denom = numer_b - numer_a, denom_b - denom_a  # (D, K): A -> B on a swap

    def flipped(flips: np.ndarray) -> np.ndarray:  # (R, D) -> (R, K)
        moved_numer, moved_denom = flips @ swap_numer, flips @ swap_denom  # (R, K)
        new_a = ratio(numer_a.sum(axis=0) + moved_numer, denom_a.sum(axis=0) + moved_denom)
        new_b = ratio(numer_b.sum(axis=0) - moved_numer, denom_b.sum(axis=0) - moved_denom)
        return new_a - new_b

    flips = resampled(n_docs, n_resamples, [_FLIP_STREAM, seed], flipped, _sign_flips)
    valid = ~np.isnan(flips)  # (R, K): resamples where both figures exist
    extreme = valid & (np.abs(flips) >= np.abs(observed) - _TIE)
    p_permutation = (1 + extreme.sum(axis=0)) / (1 + valid.sum(axis=0))  # (K,)

    per_doc_a, per_doc_b = ratio(numer_a, denom_a), ratio(numer_b, denom_b)  # (D, K)
    both = (denom_a > 0) & (denom_b > 0)  # (D, K)
    result = {}
    for k, key in enumerate(keys):
        undefined = np.isnan(observed[k])
        result[key] = {
            "a": float(mean_a[k]),
            "b": float(mean_b[k]),
            "diff": float(observed[k]),
            "ci_low": float(low[k]),
            "ci_high": float(high[k]),
            "p_permutation": np.nan if undefined else float(p_permutation[k]),
            "p_wilcoxon": np.nan if undefined else _wilcoxon_p(per_doc_a[:, k], per_doc_b[:, k]),
            "n_docs": int(both[:, k].sum()),
        }
    return result
