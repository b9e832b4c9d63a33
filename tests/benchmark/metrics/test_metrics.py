"""Hand-worked cases for every order metric, input validation and corpus aggregation.

The noise metrics and noisy corpora are in `test_metrics_noise.py`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmark.metrics.corpus import (
    N_SENTENCES,
    NOISE_METRICS,
    ORDER_METRICS,
    NoScorableDocumentsWarning,
    corpus_metrics,
    document_metrics,
)
from benchmark.metrics.order import (
    coherence_l,
    kendall_tau,
)
from benchmark.metrics.sentence_ids import document_problems, pred_problems

# Each case: gold, pred, expected {metric: value}, worked out by hand.
# r = ranks = gold position of each predicted sentence.
HAND_CASES = [
    # gold [0,1,2,3], pred [1,0,2,3]; r = [1,0,2,3].
    # tau: one discordant pair (0,1) of C(4,2) = 6 -> 1 - 2/6 = 2/3.
    # acc: positions 2 and 3 right -> 2/4. pmr 0, head 0 (1 != 0), tail 1 (3 == 3).
    # lcs: [0,2,3] -> 3/4.
    # coherence_L: |(j-i) - (r[j]-r[i])| over pairs (i,j):
    #   (0,1) |1-(-1)|=2, (0,2) |2-1|=1, (0,3) |3-2|=1, (1,2) |1-2|=1, (1,3) |2-3|=1,
    #   (2,3) |1-1|=0; sum 6; times 2/(4*3) -> 1.
    (
        [0, 1, 2, 3],
        [1, 0, 2, 3],
        {"tau": 2 / 3, "acc": 0.5, "pmr": 0, "head": 0, "tail": 1, "lcs": 0.75, "coherence_L": 1.0},
    ),
    # Reverse of 3: r = [2,1,0]. tau: all 3 pairs discordant -> 1 - 6/3 = -1.
    # acc: middle only -> 1/3. head 0, tail 0. lcs 1/3.
    # coherence_L: (0,1) |1-(-1)|=2, (0,2) |2-(-2)|=4, (1,2) |1-(-1)|=2; 8 * 2/(3*2) = 8/3.
    (
        [0, 1, 2],
        [2, 1, 0],
        {
            "tau": -1.0,
            "acc": 1 / 3,
            "pmr": 0,
            "head": 0,
            "tail": 0,
            "lcs": 1 / 3,
            "coherence_L": 8 / 3,
        },
    ),
    # Gold ids need not be 0..n-1: gold [3,0,2], pred [0,3,2]; r = [1,0,2].
    # tau: one discordant pair of 3 -> 1/3. acc 1/3 (last). head 0, tail 1. lcs 2/3.
    # coherence_L: (0,1) |1-(-1)|=2, (0,2) |2-1|=1, (1,2) |1-2|=1; 4 * 2/6 = 4/3.
    (
        [3, 0, 2],
        [0, 3, 2],
        {
            "tau": 1 / 3,
            "acc": 1 / 3,
            "pmr": 0,
            "head": 0,
            "tail": 1,
            "lcs": 2 / 3,
            "coherence_L": 4 / 3,
        },
    ),
    # Rotation: gold [0..4], pred [1,2,3,4,0]; r = [1,2,3,4,0].
    # tau: sentence 0 is after the 4 others -> I = 4 of 10 -> 1 - 8/10 = 0.2.
    # acc 0, pmr 0, head 0, tail 0. lcs [1,2,3,4] -> 4/5.
    # coherence_L: pairs among the first four: |(j-i)-(j-i)| = 0; pair (i,4):
    #   |(4-i) - (0-(i+1))| = 5, four of them -> 20 * 2/(5*4) = 2.
    (
        [0, 1, 2, 3, 4],
        [1, 2, 3, 4, 0],
        {"tau": 0.2, "acc": 0.0, "pmr": 0, "head": 0, "tail": 0, "lcs": 0.8, "coherence_L": 2.0},
    ),
    # Two sentences swapped: tau -1, acc 0, lcs 1/2, coherence_L |1-(-1)| * 2/2 = 2.
    (
        [0, 1],
        [1, 0],
        {"tau": -1.0, "acc": 0.0, "pmr": 0, "head": 0, "tail": 0, "lcs": 0.5, "coherence_L": 2.0},
    ),
    # Perfect order: everything 1, coherence_L 0.
    (
        [0, 1, 2, 3],
        [0, 1, 2, 3],
        {"tau": 1.0, "acc": 1.0, "pmr": 1, "head": 1, "tail": 1, "lcs": 1.0, "coherence_L": 0.0},
    ),
    # One sentence (trivial): the perfect values by convention (tau 1, coherence_L 0).
    (
        [7],
        [7],
        {"tau": 1.0, "acc": 1.0, "pmr": 1, "head": 1, "tail": 1, "lcs": 1.0, "coherence_L": 0.0},
    ),
]


@pytest.mark.parametrize(("gold", "pred", "expected"), HAND_CASES)
def test_hand_worked_values(gold, pred, expected):
    assert set(expected) == set(ORDER_METRICS)
    for key, metric in ORDER_METRICS.items():
        assert metric(gold, pred) == pytest.approx(expected[key], abs=1e-12), key


def test_document_metrics_has_every_metric_and_size():
    values = document_metrics([0, 1, 2, 3], [1, 0, 2, 3])
    assert values[N_SENTENCES] == 4
    assert set(values) == {N_SENTENCES, *ORDER_METRICS, *NOISE_METRICS}
    assert values["tau"] == pytest.approx(2 / 3)
    assert values["pm_f"] == pytest.approx(5 / 6)  # 5 of 6 pairs in order: P = R = 5/6
    assert values["noise_acc"] == 1.0


def test_accepts_tuples_and_numpy_arrays():
    gold, pred = np.array([0, 1, 2, 3]), np.array([1, 0, 2, 3])
    assert kendall_tau(gold, pred) == pytest.approx(2 / 3)
    assert coherence_l(tuple(gold), tuple(pred)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("gold", "pred", "message"),
    [
        ([0, 1, 2], [0, 1, 1], "pred repeats id 1"),
        ([0, 1, 2], [0, 1], "pred lacks id 2"),
        ([0, 1, 2], [0, 1, 2, 7], "pred has unknown id 7"),
        ([0, 1, 2], [0, 1, 7], "pred has unknown id 7; pred lacks id 2"),
        ([0, 1, 1], [0, 1, 1], "gold repeats id 1"),
        ([], [], "gold is empty"),
    ],
)
@pytest.mark.parametrize("metric", list(ORDER_METRICS.values()))
def test_rejects_non_permutations(metric, gold, pred, message):
    with pytest.raises(ValueError, match=message):
        metric(gold, pred)


def test_pred_problems_lists_every_reason():
    assert pred_problems([0, 1, 2, 3], [3, 3, 9, 0]) == [
        "pred repeats id 3",
        "pred has unknown id 9",
        "pred lacks ids 1, 2",
    ]
    assert pred_problems([0, 1, -1], [1, -1], complete=False) == []
    assert pred_problems([0, 1], [1, 0]) == []


@pytest.mark.parametrize(
    ("gold", "pred", "noise", "expected"),
    [
        ([0, 1, 2], [2, 0, 1], None, []),
        ([0, 1, 2], [2, -1, 0], [-1], []),
        ([0, 1], [], [], []),
        ([], [], None, ["gold is empty: a document needs at least one sentence"]),
        ([0, 0], [0, 0], None, ["gold repeats id 0"]),
        ([0, -1], [0, -1], None, ["gold has negative id -1 (negative ids are reserved for noise)"]),
        (
            [0, 1],
            [0, -1],
            None,
            [
                "pred has unknown id -1",
                "pred lacks id 1",
                "distractor ids (< 0) need the document's 'noise' list",
            ],
        ),
        ([0, 1], [0, 1], [2], ["noise id 2 is not negative (distractors are -1, -2, ...)"]),
        ([0, 1], [0, -2], [-1, -1], ["noise repeats id -1", "pred has unknown id -2"]),
        ([0, 1], [0, 0, -1], [-1], ["pred repeats id 0"]),
    ],
)
def test_document_problems(gold, pred, noise, expected):
    assert document_problems(gold, pred, noise) == expected


# Corpus of hand cases: A = ([0,1,2,3],[1,0,2,3]), B = ([0,1,2],[2,1,0]), trivial ([0],[0]).
CORPUS = [([0, 1, 2, 3], [1, 0, 2, 3]), ([0, 1, 2], [2, 1, 0]), ([0], [0])]


def test_corpus_excludes_trivial_by_default():
    result = corpus_metrics(CORPUS)
    assert result["n_docs"] == 2
    assert result["n_trivial"] == 1
    assert result["trivial_policy"] == "excluded"
    assert result["tau"] == pytest.approx((2 / 3 - 1) / 2)  # -1/6
    assert result["acc"] == pytest.approx((1 / 2 + 1 / 3) / 2)  # 5/12
    assert result["acc_pooled"] == pytest.approx(3 / 7)  # (2 + 1) correct of (4 + 3)
    assert result["lcs_pooled"] == pytest.approx(4 / 7)  # LCS lengths (3 + 1) of (4 + 3)
    assert result["pmr"] == 0.0
    assert result["tail"] == pytest.approx(0.5)
    assert result["lcs"] == pytest.approx((3 / 4 + 1 / 3) / 2)
    assert result["coherence_L"] == pytest.approx((1 + 8 / 3) / 2)


def test_corpus_counts_trivial_as_perfect_when_asked():
    result = corpus_metrics(CORPUS, include_trivial=True)
    assert result["n_docs"] == 3
    assert result["n_trivial"] == 1
    assert result["trivial_policy"] == "counted_perfect"
    assert result["tau"] == pytest.approx((2 / 3 - 1 + 1) / 3)  # 2/9
    assert result["acc"] == pytest.approx((1 / 2 + 1 / 3 + 1) / 3)  # 11/18
    assert result["acc_pooled"] == pytest.approx(4 / 8)  # (2 + 1 + 1) of (4 + 3 + 1)
    assert result["lcs_pooled"] == pytest.approx(5 / 8)  # (3 + 1 + 1) of (4 + 3 + 1)
    assert result["pmr"] == pytest.approx(1 / 3)
    assert result["head"] == pytest.approx(1 / 3)
    assert result["tail"] == pytest.approx(2 / 3)
    assert result["coherence_L"] == pytest.approx((1 + 8 / 3 + 0) / 3)


def test_corpus_key_set():
    assert list(corpus_metrics(CORPUS)) == [
        *ORDER_METRICS,
        "acc_pooled",
        "lcs_pooled",
        "pm_f",
        "n_docs",
        "n_trivial",
        "trivial_policy",
    ]


def test_corpus_pm_f_without_noise():
    # A: 5 of 6 pairs in order -> 5/6; B: reversed -> c = 0 -> 0.
    assert corpus_metrics(CORPUS)["pm_f"] == pytest.approx((5 / 6 + 0) / 2)
    assert corpus_metrics(CORPUS, include_trivial=True)["pm_f"] == pytest.approx((5 / 6 + 1) / 3)


@pytest.mark.parametrize("pairs", [[], [([0], [0]), ([5], [5])]])
def test_degenerate_corpus_gives_nan_and_warns(pairs):
    with pytest.warns(NoScorableDocumentsWarning, match="no scorable documents"):
        result = corpus_metrics(pairs)
    assert result["n_docs"] == 0
    assert result["n_trivial"] == len(pairs)
    for key in [*ORDER_METRICS, "acc_pooled", "lcs_pooled", "pm_f"]:
        assert math.isnan(result[key]), key


def test_all_trivial_corpus_counted_is_perfect():
    result = corpus_metrics([([0], [0]), ([5], [5])], include_trivial=True)
    assert result["n_docs"] == 2
    assert result["tau"] == result["acc"] == result["acc_pooled"] == result["pmr"] == 1.0
    assert result["lcs_pooled"] == 1.0
    assert result["coherence_L"] == 0.0


def test_corpus_error_names_the_document():
    with pytest.raises(ValueError, match=r"document #1: .*pred lacks id 2"):
        corpus_metrics([([0, 1], [1, 0]), ([0, 1, 2], [0, 1])])


def test_trivial_document_is_still_validated():
    with pytest.raises(ValueError, match="pred has unknown id 1"):
        corpus_metrics([([0], [1])])
