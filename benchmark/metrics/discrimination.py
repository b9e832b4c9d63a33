"""Order discrimination (DESIGN section 4): does the model prefer a document's original
order to permutations of it?

The protocol of Barzilay & Lapata 2008 ("Modeling Local Coherence: An Entity-Based
Approach", Computational Linguistics 34(1)), used for neural orderers by Cui et al. 2018
("Deep Attentive Sentence Ordering Network", EMNLP): for every evaluation document of n >= 2
sentences, up to `max_permutations` distinct permutations other than the original (all
n! - 1 of them when there are no more), drawn from a generator seeded with the SHA-256 of
(dataset, split, document id, protocol seed) as in `data.shuffle`, on a stream of its own.
The model scores log P(order | sentences) (`log_prob`, DESIGN section 6) of the original
order and of every permutation, always on the split's fixed presented (shuffled) input
(DESIGN section 5), so only the scored order differs.

- `disc_acc`: (original, permutation) pairs where the original scores strictly higher,
  / all pairs (a fraction of pairs, pooled over documents);
- `disc_ties`, `disc_ties_frac`: pairs with exactly equal scores, and their fraction. A tie
  is not a win: a model that scores every order alike (the `random` baseline, log P =
  -log n!) gets `disc_acc` 0 with every pair tied;
- `disc_n_pairs`, `disc_n_docs`: the pairs and the documents (n >= 2) behind the figures.

`PublishedPermutations` replaces the seeded permutations by a dataset's published ones (the
pairs of the published tables, e.g. the 1,986 Accidents test pairs of Cui et al. 2018,
Table 5); the run record says which were used (`protocol.discrimination.permutations`).

All orders of a batch are scored together: the batch is expanded to one row per
(document, order) and scored in forward passes of bounded size. For an `OrderingModel`
the documents are encoded once and only the decoder runs per order (its encoders do not
depend on the scored order): the same log-probabilities as `log_prob` on the expanded
batch, an encoder pass per document instead of per pair.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice, permutations

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.batch import to_device
from models.ordering_model import OrderingModel
from models.search.candidates import order_log_prob

MAX_PERMUTATIONS = 20  # per document (Barzilay & Lapata 2008; DESIGN section 4)
TOKENS_PER_PASS = 1 << 19  # rows x sentences x tokens scored in one forward pass
PAIRS_PER_PASS = 1 << 18  # rows x output steps x candidates: teacher-forced pointer scores
PERMUTATION_STREAM = "discrimination"  # separates these permutations from the presentation order
# the keys added to a split of the run record
FIGURES = ("disc_acc", "disc_ties", "disc_ties_frac", "disc_n_pairs", "disc_n_docs")
COUNTS = ("disc_ties", "disc_n_pairs", "disc_n_docs")  # counts, not metrics to average
CI_KEYS = ("disc_acc", "disc_ties_frac")  # figures that get a bootstrap interval


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


def select_rows(batch: dict, index: Tensor) -> dict:
    """The batch of rows `index` (R,) of `batch`: every per-document tensor and list."""
    size = len(batch["n_sentences"])
    picked = index.tolist()
    selected = {}
    for key, value in batch.items():
        if isinstance(value, Tensor) and value.dim() > 0 and len(value) == size:
            selected[key] = value.index_select(0, index.to(value.device))
        elif isinstance(value, list) and len(value) == size:
            selected[key] = [value[i] for i in picked]
        else:
            selected[key] = value
    return selected


Sampler = PermutationSampler | PublishedPermutations


def _candidate_orders(batch: dict, sampler: Sampler) -> tuple[Tensor, Tensor]:
    """Per document of n >= 2: the original order, then its permutations, as rows.

    Returns doc_of_row (R,), the batch row of each order, and orders (R, N) in presented
    indices, -1 padded; the rows of one document are contiguous, its original first.
    """
    gold = batch["gold_order"].cpu()  # (B, N) presented index of each gold position
    n_sentences = batch["n_sentences"].cpu()  # (B,)
    noisy = ((gold >= 0).sum(dim=1) != n_sentences).nonzero().flatten().tolist()
    if noisy:
        raise ValueError(
            "order discrimination needs documents without distractors; "
            f"{batch['doc_ids'][noisy[0]]} has some"
        )
    num = gold.shape[1]
    doc_rows, id_blocks = [], []
    for b, (doc_id, n) in enumerate(zip(batch["doc_ids"], n_sentences.tolist(), strict=True)):
        if n < 2:
            continue
        ids = torch.tensor([list(range(n)), *sampler(doc_id, n)])  # (1 + K, n) gold ids
        id_blocks.append(F.pad(ids, (0, num - n), value=-1))  # (1 + K, N)
        doc_rows.append(torch.full((len(ids),), b))
    if not id_blocks:
        empty = torch.empty(0, dtype=torch.long)
        return empty, empty.view(0, num)
    doc_of_row = torch.cat(doc_rows)  # (R,)
    ids = torch.cat(id_blocks)  # (R, N) gold ids in scored order
    presented = gold[doc_of_row].gather(1, ids.clamp(min=0))  # (R, N)
    return doc_of_row, torch.where(ids >= 0, presented, -1)


@torch.no_grad()
def _log_probs(model: nn.Module, batch: dict, doc_of_row: Tensor, orders: Tensor) -> Tensor:
    """log P(orders[r] | sentences of document doc_of_row[r]) for every row (R,), in
    passes of bounded size (`rows_per_pass`)."""
    rows = rows_per_pass(*batch["tokens"].shape[1:])
    device = batch["tokens"].device
    if isinstance(model, OrderingModel):
        return _decoder_log_probs(model, batch, doc_of_row, orders, rows)
    scores = []
    for start in range(0, len(doc_of_row), rows):
        part = slice(start, start + rows)
        expanded = select_rows(batch, doc_of_row[part])  # (r, N, T) tokens, ...
        scores.append(model.log_prob(expanded, orders[part].to(device)))  # (r,)
    return torch.cat(scores).float().cpu()  # (R,)


def rows_per_pass(num: int, length: int) -> int:
    """(document, order) rows scored in one pass over N = `num` sentences of T = `length`
    tokens: at most TOKENS_PER_PASS tokens and PAIRS_PER_PASS pointer scores (N x N per
    row, times the decoder width inside the model), at least one row. The second bound
    keeps long documents in memory: one 500-sentence document scored 21 orders at once."""
    return max(1, min(TOKENS_PER_PASS // (num * length), PAIRS_PER_PASS // (num * num)))


def _decoder_log_probs(
    model: OrderingModel, batch: dict, doc_of_row: Tensor, orders: Tensor, rows_per_pass: int
) -> Tensor:
    """`_log_probs` of an `OrderingModel`: the batch encoded once (`start`), the decoder
    teacher-forced on every row's order from its document's memory and state."""
    memory, state, candidates = model.start(batch)  # per document
    decoder = model.pointer_decoder
    device = candidates.device
    scores = []
    for start in range(0, len(doc_of_row), rows_per_pass):
        index = doc_of_row[start : start + rows_per_pass].to(device)  # (r,)
        rows = orders[start : start + rows_per_pass].to(device)  # (r, N)
        logits = decoder.teacher_forced(  # (r, N, N)
            decoder.reindex(memory, index), decoder.reindex(state, index), rows,
            candidates.index_select(0, index),
        )  # fmt: skip
        scores.append(order_log_prob(logits, rows))  # (r,)
    return torch.cat(scores).float().cpu()  # (R,)


def score_batch(model: nn.Module, batch: dict, sampler: Sampler) -> list[dict]:
    """`{"id", "n_pairs", "wins", "ties"}` for every document of `batch` with n >= 2."""
    doc_of_row, orders = _candidate_orders(batch, sampler)
    if not len(doc_of_row):
        return []
    scores = _log_probs(model, batch, doc_of_row, orders)  # (R,)
    is_first = torch.ones_like(doc_of_row, dtype=torch.bool)  # (R,) the original of a document
    is_first[1:] = doc_of_row[1:] != doc_of_row[:-1]
    doc_index = torch.cumsum(is_first, 0) - 1  # (R,) which document (0..D-1) each row is of
    original = scores[is_first][doc_index]  # (R,) the original's score beside every row
    pair = ~is_first  # (R,) rows that are permutations
    n_docs = int(is_first.sum())
    n_pairs = torch.bincount(doc_index[pair], minlength=n_docs)  # (D,)
    wins = torch.bincount(doc_index[pair & (original > scores)], minlength=n_docs)  # (D,)
    ties = torch.bincount(doc_index[pair & (original == scores)], minlength=n_docs)  # (D,)
    doc_ids = [batch["doc_ids"][b] for b in doc_of_row[is_first].tolist()]
    return [
        {"id": doc_id, "n_pairs": k, "wins": w, "ties": t}
        for doc_id, k, w, t in zip(
            doc_ids, n_pairs.tolist(), wins.tolist(), ties.tolist(), strict=True
        )
    ]


def score_loader(
    model: nn.Module,
    batches: Iterable[dict],
    sampler: Sampler,
    device: torch.device | str | None = None,
) -> list[dict]:
    """`score_batch` over every batch, with `model` in eval mode (its mode is restored);
    `model` and the batches are moved to `device` (None: left where they are)."""
    if device is not None:
        model.to(device)
    was_training = model.training
    model.eval()
    try:
        return [
            document
            for batch in batches
            for document in score_batch(model, to_device(batch, device), sampler)
        ]
    finally:
        model.train(was_training)


def discrimination_records(
    model: nn.Module,
    datamodule,
    split: str = "test",
    max_permutations: int = MAX_PERMUTATIONS,
    device: torch.device | str | None = None,
    published: PublishedPermutations | None = None,  # None: our seeded permutations
) -> list[dict]:
    """Per-document discrimination counts of `split` of a set-up `OrderingDataModule`, on
    its fixed presented input and with its dataset name and protocol seed (or against
    `published` permutations). Under a distributed Trainer, this process's share only
    (gather with `gather_records`)."""
    sampler = published or PermutationSampler(
        datamodule.name, split, datamodule.protocol_seed, max_permutations
    )
    return score_loader(model, datamodule.eval_dataloader(split), sampler, device)
