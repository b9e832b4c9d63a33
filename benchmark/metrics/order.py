"""Per-document order metrics, exactly as defined in docs/design.md, section 4.

Every metric is a pure function of `(gold, pred)`: `gold` lists sentence ids in the
correct order, `pred` the same ids in the predicted order (anything else raises
ValueError with the reasons). Internally both are reduced to `ranks`, where `ranks[k]` is
the gold position of the sentence `pred` puts at position k; a perfect prediction has
`ranks == [0, 1, ..., n-1]`.

- `tau`: Kendall's tau, 1 - 2 I / C(n, 2) with I the pairs in the opposite order to gold
  (Lapata 2003, "Probabilistic text structuring: experiments with sentence ordering").
- `acc`, `pmr`, `head`, `tail`: position accuracy, perfect match, first/last sentence right
  (Chen et al. 2016; Gong et al. 2016; Cui et al. 2018).
- `lcs`: longest common subsequence of pred and gold over n (Gong et al. 2016).
- `coherence_L`: the displacement penalty of Li et al., lower is better
  (`benchmark.metrics.directions`):
  2 / (n (n - 1)) * sum_{i<j} |(j - i) - (pos_g(p[j]) - pos_g(p[i]))|.

One-sentence documents (n = 1) have no sentence pairs. Each metric then takes its value
for a perfect order: `tau` = 1 and `coherence_L` = 0 by convention (no pair is
discordant or displaced), the others are 1 because the only permutation is the gold one.
So "counting trivial documents as perfect" is the same as scoring them normally.

The metrics of the kept sentences (`pm_f`, `noise_acc`, `pmr` under noise) are in
`benchmark.metrics.noise`.
"""

from __future__ import annotations

from bisect import bisect_left

from benchmark.metrics.sentence_ids import Ids, as_list, gold_problems, pred_problems


def gold_ranks(gold: Ids, pred: Ids) -> list[int]:
    """Gold position of each predicted sentence; ValueError unless pred permutes gold."""
    gold, pred = as_list(gold), as_list(pred)
    position = {sentence: k for k, sentence in enumerate(gold)}
    ranks = [position.get(sentence, -1) for sentence in pred]  # -1: not in gold
    n = len(gold)
    if 0 < n == len(position) == len(ranks) == len(set(ranks)) and -1 not in ranks:
        return ranks
    if problems := gold_problems(gold):
        raise ValueError(problems[0])
    raise ValueError("pred is not a permutation of gold: " + "; ".join(pred_problems(gold, pred)))


def inversions(ranks: list[int]) -> int:
    """Number of pairs i < j with ranks[i] > ranks[j], for distinct ranks in 0..len-1.

    Fenwick tree, O(n log n).
    """
    n = len(ranks)
    tree = [0] * (n + 1)
    count = 0
    for seen, rank in enumerate(ranks):
        i, not_greater = rank + 1, 0
        while i > 0:  # how many earlier ranks are <= rank
            not_greater += tree[i]
            i -= i & -i
        count += seen - not_greater
        i = rank + 1
        while i <= n:
            tree[i] += 1
            i += i & -i
    return count


def kendall_tau(gold: Ids, pred: Ids) -> float:
    """1 - 2 I / C(n, 2); 1.0 for a one-sentence document (no pairs)."""
    ranks = gold_ranks(gold, pred)
    pairs = len(ranks) * (len(ranks) - 1) // 2
    if pairs == 0:
        return 1.0
    return (pairs - 2 * inversions(ranks)) / pairs


def position_accuracy(gold: Ids, pred: Ids) -> float:
    """Fraction of positions k with pred[k] == gold[k]."""
    ranks = gold_ranks(gold, pred)
    return sum(rank == k for k, rank in enumerate(ranks)) / len(ranks)


def perfect_match(gold: Ids, pred: Ids) -> float:
    """1.0 if pred is the gold order, else 0.0."""
    ranks = gold_ranks(gold, pred)
    return float(ranks == list(range(len(ranks))))


def head_match(gold: Ids, pred: Ids) -> float:
    """1.0 if pred starts with the gold first sentence."""
    return float(gold_ranks(gold, pred)[0] == 0)


def tail_match(gold: Ids, pred: Ids) -> float:
    """1.0 if pred ends with the gold last sentence."""
    ranks = gold_ranks(gold, pred)
    return float(ranks[-1] == len(ranks) - 1)


def lcs_ratio(gold: Ids, pred: Ids) -> float:
    """Longest common subsequence of pred and gold, over n.

    Both are orders of the same distinct sentences, so the LCS is the longest increasing
    subsequence of `ranks` (patience sorting, O(n log n)).
    """
    ranks = gold_ranks(gold, pred)
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
    ranks = gold_ranks(gold, pred)
    n = len(ranks)
    if n == 1:
        return 0.0
    shifts = sorted(k - rank for k, rank in enumerate(ranks))
    total = sum((2 * k - n + 1) * shift for k, shift in enumerate(shifts))
    return 2 * total / (n * (n - 1))
