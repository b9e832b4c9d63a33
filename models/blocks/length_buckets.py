"""Length buckets for sentence encoders: the sentences of a batch sorted by length and cut
into a few groups, each cut to its own longest sentence.

A sentence encoder whose output for a sentence does not depend on the padding after it
(the masked encoders of this package: LSTMs, CNNs and self-attention over the real words)
gives the same vectors whether it runs on all sentences padded to the batch's longest
one, on each group of equal length alone, or on any grouping in between; only the cost
differs. One call on everything computes on padding (on NIPS abstracts at batch 16, 46%
of the token positions of the real sentences), one call per distinct length makes many
small calls (about 30 per batch) whose fixed costs dominate. `length_buckets` chooses the
grouping that minimises the estimated cost

    sum over groups of (call_cost + sentences in the group * its longest length),

in token positions, `call_cost` being what one more call costs in token positions (found
by timing, per encoder; docs/performance.md). The grouping depends on the lengths only.
"""

from collections.abc import Callable

import torch
from torch import Tensor


def length_buckets(lengths: Tensor, call_cost: float) -> list[tuple[Tensor, int]]:
    """lengths (S,) >= 1 -> groups (rows (G,) of `lengths`, longest length) that cover every
    row once, in increasing length, minimising the cost of the module docstring."""
    values, counts = torch.unique(lengths, return_counts=True)  # (D,) ascending, (D,)
    values, counts = values.tolist(), counts.tolist()
    distinct = len(values)
    best = [0.0] + [float("inf")] * distinct  # best[b]: cost of the first b distinct lengths
    cut = [0] * (distinct + 1)
    for end in range(1, distinct + 1):  # the last group holds lengths values[start:end]
        longest, rows = values[end - 1], 0
        for start in range(end - 1, -1, -1):
            rows += counts[start]
            cost = best[start] + call_cost + rows * longest
            if cost < best[end]:
                best[end], cut[end] = cost, start
    bounds, end = [], distinct
    while end > 0:
        bounds.append((values[cut[end]], values[end - 1]))
        end = cut[end]
    order = lengths.argsort(stable=True)  # (S,) rows by increasing length
    sizes = torch.searchsorted(lengths.index_select(0, order), torch.tensor(
        [high for _, high in reversed(bounds)], device=lengths.device), right=True)  # fmt: skip
    groups, start = [], 0
    for (_, high), stop in zip(reversed(bounds), sizes.tolist(), strict=True):
        groups.append((order[start:stop], high))
        start = stop
    return groups


def reversal_index(lengths: Tensor, total: int) -> Tensor:
    """lengths (G,), total >= max length -> index (G, total) that reverses the first
    lengths[g] positions of row g and keeps the padding after them in place; its own
    inverse."""
    steps = torch.arange(total, device=lengths.device)  # (total,)
    last = (lengths - 1).unsqueeze(1)  # (G, 1)
    return torch.where(steps < lengths.unsqueeze(1), last - steps, steps)  # (G, total)


def encode_in_buckets(
    encode: Callable[[Tensor, Tensor], Tensor], words: Tensor, lengths: Tensor, call_cost: float
) -> Tensor:
    """`encode` (words (G, L, e), lengths (G,) >= 1 -> (G, D)) run once per bucket of
    `length_buckets(lengths, call_cost)` on words (S, T, e) cut to the bucket's longest
    length -> (S, D) in input order."""
    rows, vectors = [], []
    for group, longest in length_buckets(lengths, call_cost):
        vectors.append(encode(words.index_select(0, group)[:, :longest], lengths[group]))
        rows.append(group)
    inverse = torch.cat(rows).argsort()  # (S,) position of each sentence in the buckets
    return torch.cat(vectors).index_select(0, inverse)  # (S, D)
