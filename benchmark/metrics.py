"""Sentence-ordering metrics, exactly as defined in DESIGN section 4.

Every per-document metric is a pure function of `(gold, pred)`: `gold` lists sentence ids
in the correct order, `pred` the same ids in the predicted order. Internally both are
reduced to `ranks`, where `ranks[k]` is the gold position of the sentence `pred` puts at
position k; a perfect prediction has `ranks == [0, 1, ..., n-1]`.

- `tau`: Kendall's tau, 1 - 2 I / C(n, 2) with I the pairs in the opposite order to gold
  (Lapata 2003, "Probabilistic text structuring: experiments with sentence ordering").
- `acc`, `pmr`, `head`, `tail`: position accuracy, perfect match, first/last sentence right
  (Chen et al. 2016; Gong et al. 2016; Cui et al. 2018).
- `lcs`: longest common subsequence of pred and gold over n (Gong et al. 2016).
- `coherence_L`: the displacement penalty of Li et al., lower is better:
  2 / (n (n - 1)) * sum_{i<j} |(j - i) - (pos_g(p[j]) - pos_g(p[i]))|.

One-sentence documents (n = 1) have no sentence pairs. Each metric then takes its value
for a perfect order: `tau` = 1 and `coherence_L` = 0 by convention (no pair is
discordant or displaced), the others are 1 because the only permutation is the gold one.
So "counting trivial documents as perfect" is the same as scoring them normally.

The order metrics need `pred` to hold exactly the gold sentences. The noise metrics of
DESIGN section 4 (`pm_f`, `noise_acc`) take the predicted-noise set into account and will
get their own registry beside `ORDER_METRICS`.
"""

from __future__ import annotations

import math
import warnings
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

Ids = Sequence[int]

# Key of the per-document record holding the number of sentences (a count, not a metric).
N_SENTENCES = "n_sentences"

TRIVIAL_EXCLUDED = "excluded"
TRIVIAL_COUNTED_PERFECT = "counted_perfect"


class NoScorableDocumentsWarning(RuntimeWarning):
    """The corpus has no document to score; its metrics are NaN."""


def _as_list(ids: Ids) -> list:
    """Plain Python list of ids (accepts lists, tuples, numpy arrays, 1-D tensors)."""
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)


def _plural(word: str, ids: list) -> str:
    """`"id 3"` or `"ids 3, 5"`."""
    return f"{word}{'s' if len(ids) > 1 else ''} {', '.join(str(i) for i in ids)}"


def repeated_ids(ids: Ids) -> list:
    """Ids occurring more than once, in order of first occurrence."""
    counts = Counter(_as_list(ids))
    return [i for i, c in counts.items() if c > 1]


def pred_problems(allowed: Ids, pred: Ids, complete: bool = True) -> list[str]:
    """Why `pred` is not a valid prediction over the ids `allowed` (empty list if it is).

    With `complete`, pred must be a permutation of `allowed`; otherwise any subset of it
    without repeats (the noise setting of DESIGN section 3).
    """
    allowed, pred = _as_list(allowed), _as_list(pred)
    allowed_set, pred_set = set(allowed), set(pred)
    problems = []
    if repeats := repeated_ids(pred):
        problems.append(f"pred repeats {_plural('id', repeats)}")
    if unknown := [i for i in dict.fromkeys(pred) if i not in allowed_set]:
        problems.append(f"pred has unknown {_plural('id', unknown)}")
    if complete and (missing := [i for i in allowed if i not in pred_set]):
        problems.append(f"pred lacks {_plural('id', missing)}")
    return problems


def _ranks(gold: Ids, pred: Ids) -> list[int]:
    """Gold position of each predicted sentence; ValueError unless pred permutes gold."""
    gold, pred = _as_list(gold), _as_list(pred)
    position = {sentence: k for k, sentence in enumerate(gold)}
    ranks = [position.get(sentence, -1) for sentence in pred]  # -1: not in gold
    n = len(gold)
    if 0 < n == len(position) == len(ranks) == len(set(ranks)) and -1 not in ranks:
        return ranks
    if not gold:
        raise ValueError("gold is empty: a document needs at least one sentence")
    if repeats := repeated_ids(gold):
        raise ValueError(f"gold repeats {_plural('id', repeats)}")
    raise ValueError("pred is not a permutation of gold: " + "; ".join(pred_problems(gold, pred)))


def _inversions(ranks: list[int]) -> int:
    """Number of pairs i < j with ranks[i] > ranks[j] (Fenwick tree, O(n log n))."""
    n = len(ranks)
    tree = [0] * (n + 1)
    inversions = 0
    for seen, rank in enumerate(ranks):
        i, not_greater = rank + 1, 0
        while i > 0:  # how many earlier ranks are <= rank
            not_greater += tree[i]
            i -= i & -i
        inversions += seen - not_greater
        i = rank + 1
        while i <= n:
            tree[i] += 1
            i += i & -i
    return inversions


def kendall_tau(gold: Ids, pred: Ids) -> float:
    """1 - 2 I / C(n, 2); 1.0 for a one-sentence document (no pairs)."""
    ranks = _ranks(gold, pred)
    pairs = len(ranks) * (len(ranks) - 1) // 2
    if pairs == 0:
        return 1.0
    return (pairs - 2 * _inversions(ranks)) / pairs


def position_accuracy(gold: Ids, pred: Ids) -> float:
    """Fraction of positions k with pred[k] == gold[k]."""
    ranks = _ranks(gold, pred)
    return sum(rank == k for k, rank in enumerate(ranks)) / len(ranks)


def perfect_match(gold: Ids, pred: Ids) -> float:
    """1.0 if pred is the gold order, else 0.0."""
    ranks = _ranks(gold, pred)
    return float(ranks == list(range(len(ranks))))


def head_match(gold: Ids, pred: Ids) -> float:
    """1.0 if pred starts with the gold first sentence."""
    return float(_ranks(gold, pred)[0] == 0)


def tail_match(gold: Ids, pred: Ids) -> float:
    """1.0 if pred ends with the gold last sentence."""
    ranks = _ranks(gold, pred)
    return float(ranks[-1] == len(ranks) - 1)


def lcs_ratio(gold: Ids, pred: Ids) -> float:
    """Longest common subsequence of pred and gold, over n.

    Both are orders of the same distinct sentences, so the LCS is the longest increasing
    subsequence of `ranks` (patience sorting, O(n log n)).
    """
    ranks = _ranks(gold, pred)
    tails: list[int] = []  # tails[k] = smallest last rank of an increasing run of length k+1
    for rank in ranks:
        k = bisect_left(tails, rank)
        if k == len(tails):
            tails.append(rank)
        else:
            tails[k] = rank
    return len(tails) / len(ranks)


def coherence_l(gold: Ids, pred: Ids) -> float:
    """Li et al.'s displacement penalty; 0.0 for the gold order and for n = 1.

    With d[k] = k - ranks[k], each pair term is |(j - i) - (ranks[j] - ranks[i])| =
    |d[j] - d[i]|, so the sum over pairs is the sum of pairwise absolute differences of d:
    for d sorted ascending, sum_k (2k - n + 1) d[k].
    """
    ranks = _ranks(gold, pred)
    n = len(ranks)
    if n == 1:
        return 0.0
    shifts = sorted(k - rank for k, rank in enumerate(ranks))
    total = sum((2 * k - n + 1) * shift for k, shift in enumerate(shifts))
    return 2 * total / (n * (n - 1))


# Metric key -> per-document function of (gold, pred); corpus values are their means.
ORDER_METRICS: dict[str, Callable[[Ids, Ids], float]] = {
    "tau": kendall_tau,
    "acc": position_accuracy,
    "pmr": perfect_match,
    "head": head_match,
    "tail": tail_match,
    "lcs": lcs_ratio,
    "coherence_L": coherence_l,
}
LOWER_IS_BETTER = frozenset({"coherence_L"})


def document_metrics(gold: Ids, pred: Ids) -> dict[str, float]:
    """Every order metric of one document, plus its sentence count under `N_SENTENCES`."""
    n = len(_ranks(gold, pred))  # a bad pred fails here, before any metric
    return {N_SENTENCES: n, **{key: metric(gold, pred) for key, metric in ORDER_METRICS.items()}}


def score_documents(
    pairs: Iterable[tuple[Ids, Ids]], include_trivial: bool = False
) -> tuple[list[dict[str, float]], int]:
    """Per-document metric dicts of the scored documents, and the number of trivial ones.

    Trivial documents (n = 1) are validated and counted; with `include_trivial` they are
    scored too (which gives them perfect values), otherwise they are left out.
    """
    per_doc, n_trivial = [], 0
    for index, (gold, pred) in enumerate(pairs):
        try:
            values = document_metrics(gold, pred)
        except ValueError as error:
            raise ValueError(f"document #{index}: {error}") from error
        trivial = values[N_SENTENCES] == 1
        n_trivial += trivial
        if include_trivial or not trivial:
            per_doc.append(values)
    return per_doc, n_trivial


def pooled_accuracy(per_doc: Sequence[Mapping[str, float]]) -> float:
    """Total correct positions / total sentences over the documents (NaN if none)."""
    sentences = sum(values[N_SENTENCES] for values in per_doc)
    if sentences == 0:
        return math.nan
    correct = sum(round(values["acc"] * values[N_SENTENCES]) for values in per_doc)
    return correct / sentences


def metric_keys(per_doc: Sequence[Mapping[str, float]]) -> list[str]:
    """The metric keys of per-document dicts (`ORDER_METRICS` keys when there are none)."""
    if not per_doc:
        return list(ORDER_METRICS)
    return [key for key in per_doc[0] if key != N_SENTENCES]


def metric_means(per_doc: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean over documents of every metric key, and `acc_pooled`; NaN when there are none."""
    count = len(per_doc)
    means = {
        key: math.fsum(values[key] for values in per_doc) / count if count else math.nan
        for key in metric_keys(per_doc)
    }
    return {**means, "acc_pooled": pooled_accuracy(per_doc)}


def summarise(
    per_doc: Sequence[Mapping[str, float]], n_trivial: int, include_trivial: bool
) -> dict:
    """Corpus figures from per-document dicts (see `corpus_metrics` for the keys)."""
    if not per_doc:
        warnings.warn(
            "no scorable documents (the corpus is empty or only has one-sentence documents "
            "excluded by the trivial policy): every metric is NaN",
            NoScorableDocumentsWarning,
            stacklevel=2,
        )
    return {
        **metric_means(per_doc),
        "n_docs": len(per_doc),
        "n_trivial": n_trivial,
        "trivial_policy": TRIVIAL_COUNTED_PERFECT if include_trivial else TRIVIAL_EXCLUDED,
    }


def corpus_metrics(pairs: Iterable[tuple[Ids, Ids]], include_trivial: bool = False) -> dict:
    """Corpus metrics of (gold, pred) pairs, per DESIGN section 4.

    Returns the mean over scored documents of every key of `ORDER_METRICS`, `acc_pooled`,
    `n_docs` (documents scored), `n_trivial` (one-sentence documents seen, scored or not)
    and `trivial_policy` ("excluded" or "counted_perfect"). With no document to score,
    every metric is NaN, `n_docs` is 0 and a `NoScorableDocumentsWarning` is issued.
    Raises ValueError if some pred is not a permutation of its gold.
    """
    per_doc, n_trivial = score_documents(pairs, include_trivial)
    return summarise(per_doc, n_trivial, include_trivial)
