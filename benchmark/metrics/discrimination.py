"""Order discrimination (docs/design.md, section 4): does the model prefer a document's original
order to permutations of it?

The protocol of Barzilay & Lapata 2008 ("Modeling Local Coherence: An Entity-Based
Approach", Computational Linguistics 34(1)), used for neural orderers by Cui et al. 2018
("Deep Attentive Sentence Ordering Network", EMNLP): for every evaluation document of n >= 2
sentences, up to `max_permutations` distinct permutations other than the original (all
n! - 1 of them when there are no more), drawn from a generator seeded with the SHA-256 of
(dataset, split, document id, protocol seed) as in `data.shuffle`, on a stream of its own.
The model scores log P(order | sentences) (`log_prob`, docs/design.md, section 6) of the original
order and of every permutation, always on the split's fixed presented (shuffled) input
(docs/design.md, section 5), so only the scored order differs.

- `disc_acc`: (original, permutation) pairs where the original scores strictly higher,
  / all pairs (a fraction of pairs, pooled over documents);
- `disc_ties`, `disc_ties_frac`: pairs with exactly equal scores, and their fraction. A tie
  is not a win: a model that scores every order alike (the `random` baseline, log P =
  -log n!) gets `disc_acc` 0 with every pair tied;
- `disc_n_pairs`, `disc_n_docs`: the pairs and the documents (n >= 2) behind the figures.

`PublishedPermutations` replaces the seeded permutations by a dataset's published ones (the
pairs of the published tables, e.g. the 1,986 Accidents test pairs of Cui et al. 2018,
Table 5); the run record says which were used (`protocol.discrimination.permutations`).

The model side, scoring every (document, order) pair with a trained model, is
`benchmark.evaluation.discrimination`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import islice, permutations

import numpy as np

from benchmark.metrics.registry import COUNT, METRICS, PAIRS

MAX_PERMUTATIONS = 20  # per document (Barzilay & Lapata 2008; docs/design.md, section 4)
PERMUTATION_STREAM = "discrimination"  # separates these permutations from the presentation order
# the keys added to a split of the run record, as declared in benchmark.metrics.registry:
# the counts (not averaged), and the figures over pairs (each with a bootstrap interval)
FIGURES = tuple(m.key for m in METRICS if m.key.startswith("disc_"))
COUNTS = tuple(m.key for m in METRICS if m.key in FIGURES and m.aggregation == COUNT)
CI_KEYS = tuple(m.key for m in METRICS if m.key in FIGURES and m.aggregation == PAIRS)


@dataclass(frozen=True)
class PermutationSampler:
    """The seeded permutations of the documents of one evaluation split."""

    dataset: str
    split: str
    protocol_seed: int
    max_permutations: int = MAX_PERMUTATIONS

    def __post_init__(self) -> None:
        if self.max_permutations < 1:
            raise ValueError(f"max_permutations must be >= 1, got {self.max_permutations}")

    def __call__(self, doc_id: str, n: int) -> list[list[int]]:
        """Distinct permutations of the gold ids 0..n-1 other than the identity: all of
        them (in lexicographic order) when n! - 1 <= max_permutations, else
        max_permutations of them in the order drawn. `[k]` lists the gold ids of
        permuted document k in their new order."""
        if math.factorial(n) - 1 <= self.max_permutations:
            return [list(p) for p in islice(permutations(range(n)), 1, None)]
        key = json.dumps(
            [PERMUTATION_STREAM, self.dataset, self.split, doc_id, int(self.protocol_seed)]
        )
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(key.encode()).digest(), "big"))
        drawn = {tuple(range(n))}  # the identity is never kept
        chosen = []
        while len(chosen) < self.max_permutations:
            permutation = tuple(rng.permutation(n).tolist())
            if permutation not in drawn:
                drawn.add(permutation)
                chosen.append(list(permutation))
        return chosen


@dataclass(frozen=True)
class PublishedPermutations:
    """A dataset's published permutations of its test documents, used in place of
    `PermutationSampler`: `orders[doc_id]` lists, per published permuted copy, the gold ids
    of its sentences in their order (the convention of `PermutationSampler`). `source`
    says where they came from (a path) for the run record."""

    orders: Mapping[str, Sequence[Sequence[int]]]
    source: str

    def __call__(self, doc_id: str, n: int) -> list[list[int]]:
        if doc_id not in self.orders:
            raise ValueError(f"{self.source}: no published permutations of document {doc_id!r}")
        chosen = [list(order) for order in self.orders[doc_id]]
        for k, order in enumerate(chosen):
            if sorted(order) != list(range(n)):
                raise ValueError(
                    f"{self.source}: published permutation {k} of {doc_id!r} is {order}, "
                    f"not a permutation of its {n} sentences"
                )
        return chosen

    def describe(self) -> dict:
        """The run record's `protocol.discrimination.permutations`."""
        pairs = sum(len(orders) for orders in self.orders.values())
        return {"source": "published", "path": self.source, "n_documents": len(self.orders),
                "n_pairs": pairs}  # fmt: skip
