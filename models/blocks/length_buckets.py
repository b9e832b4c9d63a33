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

The grouping is read on the host (a loop over the distinct lengths), so it is planned there,
before the batch goes to its device (`bucket_plan`, called by the model's `host_inputs`,
`models.batch.prepare_batch`): the step then reads no length back (a GPU would wait for
it). A step with no plan (on a GPU, or compiled: shapes the compiler can keep) runs every
sentence of the batch in one call, padding sentences at length 1 and their vectors zeroed
(`encode_rows`). An encoder called with `AUTO` plans its buckets itself where its tensors
are on the CPU and nothing is being compiled (tests, a model used outside the harness).
"""

from collections.abc import Callable
from typing import NamedTuple

import torch
from torch import Tensor

AUTO = "auto"  # `plan` of an encoder's call: planned there if on the CPU (module docstring)


class BucketPlan(NamedTuple):
    """Length buckets of the S sentences (rows) of a batch, planned on the host."""

    rows: Tensor  # (S',) the rows with >= 1 token, bucket after bucket, by increasing length
    positions: Tensor  # (S',) each one's position among the rows with >= 1 token
    sizes: tuple[int, ...]  # rows of each bucket
    longest: tuple[int, ...]  # each bucket's longest length

    def buckets(self) -> list[tuple[Tensor, Tensor, int]]:
        """(rows (G,), positions (G,), longest length) of each bucket."""
        out, start = [], 0
        for size, longest in zip(self.sizes, self.longest, strict=True):
            out.append((self.rows[start : start + size], self.positions[start : start + size],
                        longest))  # fmt: skip
            start += size
        return out


def bucket_plan(lengths: Tensor, call_cost: float) -> BucketPlan:
    """lengths (S,) of a batch's sentences (0: a padding sentence), on the host -> the
    plan of `length_buckets` over those with >= 1 token."""
    nonempty = (lengths > 0).nonzero().squeeze(1)  # (S',)
    if not len(nonempty):
        empty = lengths.new_zeros(0)
        return BucketPlan(empty, empty, (), ())
    groups = length_buckets(lengths.index_select(0, nonempty), call_cost)
    positions = torch.cat([group for group, _ in groups])  # (S',)
    return BucketPlan(nonempty.index_select(0, positions), positions,
                      tuple(len(group) for group, _ in groups),
                      tuple(longest for _, longest in groups))  # fmt: skip


def plan_for(plan: BucketPlan | None | str, lengths: Tensor, call_cost: float):
    """The plan an encoder runs with: `plan` as given, or for `AUTO` one planned now where
    `lengths` (S,) are on the CPU and nothing is being compiled (else None: one call)."""
    if not isinstance(plan, str):
        return plan
    if lengths.device.type == "cpu" and not torch.compiler.is_compiling():
        return bucket_plan(lengths, call_cost)
    return None


def encode_rows(
    encode: Callable[[Tensor, Tensor], Tensor], words: Tensor, lengths: Tensor,
    output_dim: int, plan: BucketPlan | None,
) -> Tensor:  # fmt: skip
    """`encode` (words (G, L, e), lengths (G,) >= 1 -> (G, D)) on the sentences words
    (S, T, e) of lengths (S,): once per bucket of `plan`, each cut to its longest length,
    or with no plan once on all S rows (padding sentences read at length 1) -> (S, D),
    zeros for padding sentences."""
    if plan is None:
        vectors = encode(words, lengths.clamp(min=1))  # (S, D)
        return torch.where((lengths > 0).unsqueeze(-1), vectors, torch.zeros_like(vectors))
    out = words.new_zeros(words.shape[0], output_dim)  # (S, D)
    if not plan.sizes:
        return out
    vectors = [encode(words.index_select(0, rows)[:, :longest], lengths.index_select(0, rows))
               for rows, _, longest in plan.buckets()]  # fmt: skip
    return out.index_copy(0, plan.rows, torch.cat(vectors).to(out.dtype))


def encode_sentences(
    reference: Callable[[Tensor, Tensor], Tensor],
    bucketed: Callable[[Tensor, Tensor, BucketPlan | None], Tensor],
    words: Tensor,
    lengths: Tensor,
    output_dim: int,
    plan: BucketPlan | None | str,
    call_cost: float,
) -> Tensor:
    """A bucketed sentence encoder's forward: its `reference` encoding (the non-empty rows in
    one call, `models.blocks.masked_ops.encode_nonempty`) on the reference paths
    (`models.compute_paths`), else `bucketed(words, lengths, plan)` with the plan `plan_for`
    gives (None: one call)."""
    from models.blocks.masked_ops import encode_nonempty
    from models.compute_paths import use_reference

    if use_reference():
        return encode_nonempty(reference, words, lengths, output_dim)
    return bucketed(words, lengths, plan_for(plan, lengths, call_cost))


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
