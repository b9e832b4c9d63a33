"""Noise metrics (pmr under noise, pm_f, noise_acc): hand-worked cases, properties, and
the corpus figures of noisy and mixed files (docs/design.md, section 4)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark.metrics.corpus import (
    NOISE_METRICS,
    ORDER_METRICS,
    NoScorableDocumentsWarning,
    corpus_metrics,
    document_metrics,
)
from benchmark.metrics.noise import exact_match, noise_accuracy, pm_f

# Each case: gold, pred, noise, expected (pmr, pm_f, noise_acc), worked out by hand.
# c = gold pairs kept in gold order; P = c / C(|pred|, 2); R = c / C(n, 2).
HAND_CASES = [
    # Sentence 0 dropped, the distractor kept: c = 3 ((1,2), (1,3), (2,3)); P = 3/6,
    # R = 3/6 -> F = 1/2. Predicted noise {0} != {-1}.
    ([0, 1, 2, 3], [1, -1, 2, 3], [-1], (0.0, 0.5, 0.0)),
    # The distractor left out, gold order kept: everything right.
    ([0, 1, 2], [0, 1, 2], [-1], (1.0, 1.0, 1.0)),
    # Sentence 1 dropped: c = 1 ((0,2)); P = 1/1, R = 1/3 -> F = 2(1/3)/(4/3) = 1/2.
    ([0, 1, 2], [0, 2], [-1], (0.0, 0.5, 0.0)),
    # Both distractors found, gold reversed: c = 0 -> F = 0; noise right.
    ([0, 1, 2], [2, 1, 0], [-1, -2], (0.0, 0.0, 1.0)),
    # Distractor kept at the end: c = 6; P = 6/10, R = 1 -> F = 1.2/1.6 = 3/4.
    ([0, 1, 2, 3], [0, 1, 2, 3, -1], [-1], (0.0, 0.75, 0.0)),
    # One gold sentence (no pair): F = exact match of the kept sentences.
    ([0], [-1], [-1], (0.0, 0.0, 0.0)),
    ([0], [0], [-1], (1.0, 1.0, 1.0)),
    # Everything dropped: c = 0; predicted noise {0, 1, -1}.
    ([0, 1], [], [-1], (0.0, 0.0, 0.0)),
    # |pred| < 2 with n >= 2: c = 0 -> F = 0; no distractor given (noise = []).
    ([0, 1, 2, 3], [1], [], (0.0, 0.0, 0.0)),
]


@pytest.mark.parametrize(("gold", "pred", "noise", "expected"), HAND_CASES)
def test_hand_worked_noise_values(gold, pred, noise, expected):
    assert (exact_match(gold, pred), pm_f(gold, pred), noise_accuracy(gold, pred)) == (
        pytest.approx(expected[0]),
        pytest.approx(expected[1]),
        pytest.approx(expected[2]),
    )
    values = document_metrics(gold, pred, noise)
    assert (values["pmr"], values["pm_f"], values["noise_acc"]) == pytest.approx(expected)


def test_order_metrics_only_when_the_kept_set_is_gold():
    assert set(document_metrics([0, 1, 2], [2, 0, 1], [-1])) == {
        "n_sentences",
        *ORDER_METRICS,
        *NOISE_METRICS,
    }
    assert set(document_metrics([0, 1, 2], [2, 0, -1], [-1])) == {"n_sentences", *NOISE_METRICS}


@pytest.mark.parametrize(
    ("gold", "pred", "message"),
    [
        ([0, 1], [0, 0], "pred repeats id 0"),
        ([], [], "gold is empty"),
        ([1, 1], [1], "gold repeats"),
    ],
)
@pytest.mark.parametrize("metric", list(NOISE_METRICS.values()))
def test_noise_metrics_reject_broken_input(metric, gold, pred, message):
    with pytest.raises(ValueError, match=message):
        metric(gold, pred)


# Corpus: two noisy documents, one without a noise key, one trivial (no noise key, n = 1).
#   N1 = ([0,1,2,3], [1,-1,2,3], [-1]): pmr 0, pm_f 1/2, noise_acc 0, no order metrics.
#   N2 = ([0,1,2], [0,1,2], [-1]):      pmr 1, pm_f 1, noise_acc 1, tau 1, acc 1 (3 of 3).
#   P  = ([0,1,2,3], [1,0,2,3]):        pmr 0, pm_f 5/6, noise_acc 1, tau 2/3, acc 1/2 (2 of 4).
#   T  = ([0], [0]):                    trivial: everything perfect.
NOISY_CORPUS = [
    ([0, 1, 2, 3], [1, -1, 2, 3], [-1]),
    ([0, 1, 2], [0, 1, 2], [-1]),
    ([0, 1, 2, 3], [1, 0, 2, 3]),
    ([0], [0]),
]


def test_noisy_corpus_excluding_trivial():
    result = corpus_metrics(NOISY_CORPUS)
    assert list(result) == [
        *ORDER_METRICS,
        "acc_pooled",
        "lcs_pooled",
        "pm_f",
        "noise_acc",
        "n_docs",
        "n_docs_order",
        "n_trivial",
        "trivial_policy",
    ]
    assert (result["n_docs"], result["n_docs_order"], result["n_trivial"]) == (3, 2, 1)
    assert result["pmr"] == pytest.approx(1 / 3)  # over all 3 documents
    assert result["pm_f"] == pytest.approx((1 / 2 + 1 + 5 / 6) / 3)
    assert result["noise_acc"] == pytest.approx(2 / 3)
    assert result["tau"] == pytest.approx((1 + 2 / 3) / 2)  # over N2 and P only
    assert result["acc"] == pytest.approx((1 + 1 / 2) / 2)
    assert result["acc_pooled"] == pytest.approx((3 + 2) / (3 + 4))


def test_noisy_corpus_counting_trivial_as_perfect():
    result = corpus_metrics(NOISY_CORPUS, include_trivial=True)
    assert (result["n_docs"], result["n_docs_order"], result["n_trivial"]) == (4, 3, 1)
    assert result["pmr"] == pytest.approx(2 / 4)
    assert result["pm_f"] == pytest.approx((1 / 2 + 1 + 5 / 6 + 1) / 4)
    assert result["noise_acc"] == pytest.approx(3 / 4)
    assert result["tau"] == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert result["trivial_policy"] == "counted_perfect"


def test_one_sentence_document_with_noise_is_not_trivial():
    result = corpus_metrics([([0], [-1], [-1]), ([0], [0], [])])
    assert (result["n_docs"], result["n_trivial"]) == (2, 0)
    assert result["noise_acc"] == 0.5


def test_noisy_corpus_without_an_exact_kept_set_has_nan_order_metrics():
    result = corpus_metrics([([0, 1, 2], [0, 1], [-1])])
    assert result["n_docs"] == 1 and result["n_docs_order"] == 0
    assert math.isnan(result["tau"]) and math.isnan(result["acc_pooled"])
    assert result["pmr"] == 0.0
    assert result["pm_f"] == pytest.approx(0.5)  # c = 1: P = 1/1, R = 1/3


def test_only_trivial_noise_free_documents_warn():
    with pytest.warns(NoScorableDocumentsWarning):
        corpus_metrics([([0], [0]), ([1], [1], None)])


def test_noisy_corpus_error_names_the_document():
    with pytest.raises(ValueError, match=r"document #1: pred has unknown id -2"):
        corpus_metrics([([0, 1], [1, 0], [-1]), ([0, 1], [0, -2], [-1])])


@st.composite
def noisy_documents(draw):
    """(gold, pred, noise): pred any subset of gold + noise, in any order."""
    gold = draw(st.lists(st.integers(0, 10_000), min_size=1, max_size=25, unique=True))
    noise = [-k for k in range(1, draw(st.integers(0, 3)) + 1)]
    order = draw(st.permutations(gold + noise))
    keep = draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    return gold, [s for s, kept in zip(order, keep, strict=True) if kept], noise


@settings(max_examples=300, deadline=None)
@given(noisy_documents())
def test_noise_bounds_and_identities(doc):
    gold, pred, noise = doc
    values = document_metrics(gold, pred, noise)
    assert 0.0 <= values["pm_f"] <= 1.0
    assert values["pmr"] in (0.0, 1.0) and values["noise_acc"] in (0.0, 1.0)
    assert (values["pm_f"] == 1.0) == (values["pmr"] == 1.0) == (pred == gold)
    assert values["pmr"] <= values["noise_acc"]
    assert values["pmr"] <= values["pm_f"]
    assert ("tau" in values) == (values["noise_acc"] == 1.0)  # order metrics iff kept = gold
    assert pm_f(gold, gold) == exact_match(gold, gold) == noise_accuracy(gold, gold) == 1.0


@settings(max_examples=200, deadline=None)
@given(noisy_documents(), st.integers(0, 30))
def test_keeping_a_distractor_never_raises_pm_f(doc, where):
    gold, pred, _ = doc
    with_distractor = pred[: where % (len(pred) + 1)] + [-99] + pred[where % (len(pred) + 1) :]
    assert pm_f(gold, with_distractor) <= pm_f(gold, pred)
    assert noise_accuracy(gold, with_distractor) == 0.0


@settings(max_examples=100, deadline=None)
@given(noisy_documents(), st.integers(1, 97))
def test_noise_metrics_invariant_under_relabelling(doc, shift):
    gold, pred, noise = doc
    relabel = {s: (s * shift + 3) * 2 if s >= 0 else s for s in gold + noise}
    new_gold, new_pred = [relabel[s] for s in gold], [relabel[s] for s in pred]
    for metric in NOISE_METRICS.values():
        assert metric(new_gold, new_pred) == metric(gold, pred)
