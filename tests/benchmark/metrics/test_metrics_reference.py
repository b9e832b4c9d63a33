"""Metrics against scipy, against brute-force implementations written here, and identities.

The brute-force versions follow docs/design.md, section 4 literally (pair counting, the LCS dynamic
programme over the two sequences, the double sum of coherence_L; for noise the pm_f pair
count with P, R and F, and noise_acc as a comparison of the predicted and true noise
sets), independently of the O(n log n) shortcuts in `benchmark.metrics.order` and the
set shortcut in `benchmark.metrics.noise`. The corpus figures are re-aggregated here from
the brute-force values.
"""

from __future__ import annotations

import math
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from benchmark.metrics.corpus import ORDER_METRICS, corpus_metrics, document_metrics
from benchmark.metrics.noise import exact_match, noise_accuracy, pm_f
from benchmark.metrics.order import (
    coherence_l,
    head_match,
    kendall_tau,
    lcs_ratio,
    perfect_match,
    position_accuracy,
    tail_match,
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


def brute_pm_f(gold, pred):
    """P = c / C(|p'|, 2), R = c / C(n, 2), F = 2PR / (P + R); 0 when c = 0.

    With no gold pair (n = 1) the suite's convention: 1 if p' = g, else 0.
    """
    n = len(gold)
    if n < 2:
        return float(list(pred) == list(gold))
    where = {s: k for k, s in enumerate(pred)}
    c = sum(a in where and b in where and where[a] < where[b] for a, b in combinations(gold, 2))
    if c == 0:
        return 0.0
    precision, recall = c / comb(len(pred), 2), c / comb(n, 2)
    return 2 * precision * recall / (precision + recall)


def brute_noise_acc(gold, pred, noise):
    """1 if the sentences of gold + noise left out of pred are exactly the noise."""
    predicted_noise = (set(gold) | set(noise)) - set(pred)
    return float(predicted_noise == set(noise))


BRUTE_ORDER = {
    "tau": brute_tau,
    "acc": brute_acc,
    "pmr": lambda gold, pred: float(list(pred) == list(gold)),
    "head": lambda gold, pred: float(pred[0] == gold[0]),
    "tail": lambda gold, pred: float(pred[-1] == gold[-1]),
    "lcs": brute_lcs,
    "coherence_L": brute_coherence,
}


def random_cases(count, low, high, seed):
    """`count` (gold, pred) pairs: gold distinct arbitrary ids, pred a random permutation."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        n = int(rng.integers(low, high + 1))
        gold = rng.choice(1000, size=n, replace=False).tolist()
        cases.append((gold, rng.permutation(gold).tolist()))
    return cases


def random_noise_cases(count, seed):
    """(gold, pred, noise) triples: 0-3 distractors; pred a permutation of gold (a third of
    the cases), gold with one sentence swapped for a distractor, or any random subset of
    gold + noise (possibly empty), in random order."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        n = int(rng.integers(1, 16))
        gold = rng.choice(1000, size=n, replace=False).tolist()
        noise = [-k for k in range(1, int(rng.integers(0, 4)) + 1)]
        kind = rng.integers(3)
        if kind == 0:
            kept = gold
        elif kind == 1 and noise:
            kept = [s for s in gold if s != gold[int(rng.integers(n))]] + noise[:1]
        else:
            pool = gold + noise
            kept = [s for s in pool if rng.random() < 0.7]
        cases.append((gold, rng.permutation(kept).tolist() if kept else [], noise))
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
    for gold, pred in random_cases(2000, 1, 30, seed=2):
        assert metric(gold, pred) == pytest.approx(brute(gold, pred), abs=1e-12), (gold, pred)


def test_matches_brute_force_on_every_permutation_of_five():
    gold = [0, 1, 2, 3, 4]
    for pred in permutations(gold):
        assert kendall_tau(gold, pred) == pytest.approx(brute_tau(gold, pred))
        assert lcs_ratio(gold, pred) == pytest.approx(brute_lcs(gold, pred))
        assert coherence_l(gold, pred) == pytest.approx(brute_coherence(gold, pred))
        assert pm_f(gold, pred) == pytest.approx(brute_pm_f(gold, pred))
        for metric, brute in ((head_match, BRUTE_ORDER["head"]), (tail_match, BRUTE_ORDER["tail"])):
            assert metric(gold, pred) == brute(gold, pred)


def test_noise_metrics_match_brute_force_on_random_cases():
    for gold, pred, noise in random_noise_cases(3000, seed=3):
        case = (gold, pred, noise)
        assert pm_f(gold, pred) == pytest.approx(brute_pm_f(gold, pred), abs=1e-12), case
        assert noise_accuracy(gold, pred) == brute_noise_acc(gold, pred, noise), case
        assert exact_match(gold, pred) == float(pred == gold), case
        values = document_metrics(gold, pred, noise)
        ordered = sorted(pred) == sorted(gold)  # the kept set is the gold set
        assert ("tau" in values) == ordered, case
        for key, brute in BRUTE_ORDER.items() if ordered else ():
            assert values[key] == pytest.approx(brute(gold, pred), abs=1e-12), (key, case)


def test_pm_f_without_noise_matches_brute_force_on_random_permutations():
    for gold, pred in random_cases(2000, 1, 30, seed=4):
        assert pm_f(gold, pred) == pytest.approx(brute_pm_f(gold, pred), abs=1e-12), (gold, pred)


def brute_corpus(docs, include_trivial=False):
    """Corpus figures (docs/design.md, section 4) of (gold, pred, noise) docs, by brute force."""
    counted = [d for d in docs if include_trivial or len(d[0]) > 1 or d[2] is not None]
    ordered = [d for d in counted if sorted(d[1]) == sorted(d[0])]

    def mean(values):
        values = list(values)
        return sum(values) / len(values) if values else math.nan

    figures = {
        key: mean(brute(g, p) for g, p, _ in ordered)
        for key, brute in BRUTE_ORDER.items()
        if key != "pmr"
    }
    figures["pmr"] = mean(float(p == g) for g, p, _ in counted)
    correct = sum(sum(a == b for a, b in zip(g, p, strict=True)) for g, p, _ in ordered)
    sentences = sum(len(g) for g, _, _ in ordered)
    figures["acc_pooled"] = correct / sentences if ordered else math.nan
    longest = sum(brute_lcs(g, p) * len(g) for g, p, _ in ordered)  # LCS lengths (B-TSort's)
    figures["lcs_pooled"] = longest / sentences if ordered else math.nan
    figures["pm_f"] = mean(brute_pm_f(g, p) for g, p, _ in counted)
    figures["noise_acc"] = mean(brute_noise_acc(g, p, n or []) for g, p, n in counted)
    figures["n_docs"], figures["n_docs_order"] = len(counted), len(ordered)
    return figures


@pytest.mark.parametrize("include_trivial", [False, True])
def test_noisy_corpus_figures_match_brute_force(include_trivial):
    for seed in range(20):
        docs = random_noise_cases(60, seed=100 + seed)
        docs += [([0, 1, 2], [1, 2, 0], None), ([5], [5], None)]  # a file may mix both kinds
        result = corpus_metrics(docs, include_trivial)
        expected = brute_corpus(docs, include_trivial)
        assert result["n_trivial"] == 1
        for key, value in expected.items():
            assert result[key] == pytest.approx(value, abs=1e-12, nan_ok=True), (seed, key)


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
    assert perfect_match(gold, gold) == kendall_tau(gold, gold) == pm_f(gold, gold) == 1.0
    assert coherence_l(gold, gold) == 0.0
    # Without noise P = R = the fraction of pairs in gold order, so pm_f = (1 + tau) / 2.
    assert pm_f(gold, pred) == pytest.approx((1 + values["tau"]) / 2)
    assert noise_accuracy(gold, pred) == 1.0
    assert exact_match(gold, pred) == values["pmr"]


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
