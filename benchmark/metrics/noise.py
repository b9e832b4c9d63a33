"""Per-document metrics of the kept sentences: the noise setting of docs/design.md, section 4.

In the noise setting a document is shown with distractor sentences (ids -1, -2, ...) and
the model keeps some sentences, in order: `pred` is any subset of gold + noise without
repeats, and p' = pred is "the kept sentences in order". Each metric is a pure function of
`(gold, pred)`; a pred id that is not in gold is a kept distractor. They are defined for
any such pred, so also without noise (pred a permutation of gold).

- `pmr` under noise: 1 if p' = g exactly (nothing dropped, nothing added, gold order).
- `pm_f` (Wang & Wan 2019, "Hierarchical attention networks for sentence ordering"): with
  c = the pairs of gold sentences that p' contains in the gold order, P = c / C(|p'|, 2),
  R = c / C(n, 2) and F = 2PR / (P + R), 0 when c = 0. Kept distractors lower P (their
  pairs are never right), dropped gold sentences lower R. Edge cases: |p'| < 2 with
  n >= 2 gives c = 0, so F = 0; a one-sentence gold (n = 1) has no pair, and F is then
  1 if p' = g and 0 otherwise. In every case F = 1 exactly when p' = g.
- `noise_acc`: 1 if the predicted-noise set (the sentences of gold + noise not in pred)
  equals the true noise set. Since pred only holds gold and noise ids, that is the case
  exactly when pred holds every gold sentence and no distractor, i.e. set(pred) =
  set(gold), which is how it is computed here (order does not matter).

Without noise and with a uniformly random order, pm_f averages about 0.5 (then P = R =
the fraction of concordant pairs), and noise_acc is always 1.
"""

from __future__ import annotations

from benchmark.metrics.order import inversions
from benchmark.metrics.sentence_ids import Ids, as_list, gold_problems, plural, repeated_ids


def kept_sentences(gold: Ids, pred: Ids) -> tuple[list, list]:
    """gold and pred as lists; ValueError for a broken gold or a pred with repeats."""
    gold, pred = as_list(gold), as_list(pred)
    if problems := gold_problems(gold):
        raise ValueError(problems[0])
    if repeats := repeated_ids(pred):
        raise ValueError(f"pred repeats {plural('id', repeats)}")
    return gold, pred


def pairs(count: int) -> int:
    """C(count, 2)."""
    return count * (count - 1) // 2


def exact_match(gold: Ids, pred: Ids) -> float:
    """`pmr` under noise: 1.0 if the kept sentences are exactly gold, in gold order."""
    gold, pred = kept_sentences(gold, pred)
    return float(pred == gold)


def pm_f(gold: Ids, pred: Ids) -> float:
    """F-score of the gold sentence pairs kept in order (see the module docstring)."""
    gold, pred = kept_sentences(gold, pred)
    if len(gold) < 2:  # no gold pair: F is the exact match of the kept sentences
        return float(pred == gold)
    position = {sentence: k for k, sentence in enumerate(gold)}
    kept = [position[sentence] for sentence in pred if sentence in position]  # gold positions
    dense = {rank: k for k, rank in enumerate(sorted(kept))}  # -> 0..len(kept)-1
    concordant = pairs(len(kept)) - inversions([dense[rank] for rank in kept])  # c
    if concordant == 0:
        return 0.0
    precision = concordant / pairs(len(pred))
    recall = concordant / pairs(len(gold))
    return 2 * precision * recall / (precision + recall)


def noise_accuracy(gold: Ids, pred: Ids) -> float:
    """1.0 if the predicted-noise set equals the true one, i.e. set(pred) == set(gold)."""
    gold, pred = kept_sentences(gold, pred)
    return float(set(pred) == set(gold))
