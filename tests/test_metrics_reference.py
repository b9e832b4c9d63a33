"""Metrics against scipy, against brute-force implementations written here, and identities.

The brute-force versions follow DESIGN section 4 literally (pair counting, the LCS dynamic
programme over the two sequences, the double sum of coherence_L), independently of the
O(n log n) shortcuts in `benchmark.metrics`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from benchmark.metrics import (
    ORDER_METRICS,
    coherence_l,
    kendall_tau,
    lcs_ratio,
    perfect_match,
    position_accuracy,
)


def brute_tau(gold, pred):
    """1 - 2 I / C(n, 2), counting the gold pairs that pred orders the other way."""
    where = {s: k for k, s in enumerate(pred)}
    pairs = list(combinations(gold, 2))  # (a, b): a before b in gold
    inversions = sum(where[a] > where[b] for a, b in pairs)
    return 1 - 2 * inversions / len(pairs) if pairs else 1.0


def brute_lcs(gold, pred):
    """Textbook O(n^2) longest-common-subsequence table, over n."""
    n = len(gold)
    table = [[0] * (n + 1) for _ in range(n + 1)]
    for i in range(n):
        for j in range(n):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if gold[i] == pred[j] else max(table[i][j + 1], table[i + 1][j])
            )
    return table[n][n] / n


def brute_coherence(gold, pred):
    """2/(n(n-1)) sum_{i<j} |(j - i) - (pos_g(p[j]) - pos_g(p[i]))|."""
    n = len(gold)
    if n == 1:
        return 0.0
    pos_g = {s: k for k, s in enumerate(gold)}
    total = sum(
        abs((j - i) - (pos_g[pred[j]] - pos_g[pred[i]])) for i, j in combinations(range(n), 2)
    )
    return 2 * total / (n * (n - 1))


def brute_acc(gold, pred):
    return sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)


def random_cases(count, low, high, seed):
    """`count` (gold, pred) pairs: gold distinct arbitrary ids, pred a random permutation."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        n = int(rng.integers(low, high + 1))
        gold = rng.choice(1000, size=n, replace=False).tolist()
        cases.append((gold, rng.permutation(gold).tolist()))
    return cases


def test_tau_matches_scipy_on_random_permutations():
    for gold, pred in random_cases(400, 2, 30, seed=1):
        position = {s: k for k, s in enumerate(gold)}
        ranks = [position[s] for s in pred]
        expected = kendalltau(range(len(ranks)), ranks).statistic  # no ties: tau-b = tau-a
        assert kendall_tau(gold, pred) == pytest.approx(expected, abs=1e-12), (gold, pred)


@pytest.mark.parametrize(
    ("metric", "brute"),
    [
        (kendall_tau, brute_tau),
        (lcs_ratio, brute_lcs),
        (coherence_l, brute_coherence),
        (position_accuracy, brute_acc),
    ],
)
def test_matches_brute_force_on_random_permutations(metric, brute):
    for gold, pred in random_cases(300, 1, 40, seed=2):
        assert metric(gold, pred) == pytest.approx(brute(gold, pred), abs=1e-12), (gold, pred)


def test_matches_brute_force_on_every_permutation_of_five():
    from itertools import permutations

    gold = [0, 1, 2, 3, 4]
    for pred in permutations(gold):
        assert kendall_tau(gold, pred) == pytest.approx(brute_tau(gold, pred))
        assert lcs_ratio(gold, pred) == pytest.approx(brute_lcs(gold, pred))
        assert coherence_l(gold, pred) == pytest.approx(brute_coherence(gold, pred))


documents = st.lists(st.integers(0, 10_000), min_size=1, max_size=40, unique=True).flatmap(
    lambda gold: st.tuples(st.just(gold), st.permutations(gold))
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_identities(doc):
    gold, pred = doc
    n = len(gold)
    values = {key: metric(gold, pred) for key, metric in ORDER_METRICS.items()}
    assert -1.0 <= values["tau"] <= 1.0
    assert values["pmr"] <= values["head"]
    assert values["pmr"] <= values["tail"]
    assert (values["acc"] == 1.0) == (values["pmr"] == 1.0)
    assert (values["coherence_L"] == 0.0) == (values["pmr"] == 1.0)
    assert 1 / n <= values["lcs"] <= 1.0
    assert values["lcs"] >= values["acc"]  # the correctly placed sentences are a subsequence
    assert kendall_tau(pred, gold) == pytest.approx(values["tau"])  # symmetric
    assert perfect_match(gold, gold) == kendall_tau(gold, gold) == 1.0
    assert coherence_l(gold, gold) == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=2, max_size=40, unique=True))
def test_reverse_order(gold):
    n = len(gold)
    reverse = gold[::-1]
    assert kendall_tau(gold, reverse) == -1.0
    assert lcs_ratio(gold, reverse) == pytest.approx(1 / n)
    # Reversal: pair term |(j-i) + (j-i)| = 2(j-i); sum 2 C(n+1, 3) -> 2(n+1)/3.
    assert coherence_l(gold, reverse) == pytest.approx(2 * (n + 1) / 3)


@settings(max_examples=100, deadline=None)
@given(documents, st.integers(1, 97))
def test_invariant_under_relabelling_ids(doc, shift):
    gold, pred = doc
    relabel = {s: (s * shift + 3) * 2 for s in gold}  # injective for shift >= 1
    for metric in ORDER_METRICS.values():
        assert metric([relabel[s] for s in gold], [relabel[s] for s in pred]) == metric(gold, pred)
