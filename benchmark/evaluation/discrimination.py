"""Order discrimination with a trained model (docs/design.md, section 4; the figures and
the permutations are `benchmark.metrics.discrimination`): every (document, order) pair of an
evaluation split scored by `log P(order | sentences)`.

All orders of a batch are scored together, one row per (document, order), in passes of
bounded size. A model whose encoding does not depend on the scored order says so by a
`log_prob_of_rows` method (`OrderingModel`: only the decoder runs per order;
`PairwiseOrderer`: each document's pairs classified once): the same log-probabilities as
`log_prob` on the expanded batch, an encoder pass per document instead of per order. Other
models score the expanded batch.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from benchmark.metrics.discrimination import (
    MAX_PERMUTATIONS,
    PermutationSampler,
    PublishedPermutations,
)
from models.batch import row_passes, to_device

TOKENS_PER_PASS = 1 << 19  # rows x sentences x tokens scored in one forward pass
PAIRS_PER_PASS = 1 << 18  # rows x output steps x candidates: teacher-forced pointer scores


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
    """log P(orders[r] | sentences of document doc_of_row[r]) for every row (R,): by the
    model's `log_prob_of_rows` where it has one (each document encoded once), else `log_prob`
    on the expanded batch; in passes of `rows_per_pass` rows either way."""
    rows = rows_per_pass(*batch["tokens"].shape[1:])
    device = batch["tokens"].device
    if hasattr(model, "log_prob_of_rows"):
        scores = model.log_prob_of_rows(batch, doc_of_row.to(device), orders.to(device), rows)
        return scores.float().cpu()  # (R,)
    scores = [
        model.log_prob(select_rows(batch, doc_of_row[part]), orders[part].to(device))  # (r,)
        for part in row_passes(len(doc_of_row), rows)
    ]
    return torch.cat(scores).float().cpu()  # (R,)


def rows_per_pass(num: int, length: int) -> int:
    """(document, order) rows scored in one pass over N = `num` sentences of T = `length`
    tokens: at most TOKENS_PER_PASS tokens and PAIRS_PER_PASS pointer scores (N x N per
    row, times the decoder width inside the model), at least one row. The second bound
    keeps long documents in memory: one 500-sentence document scored 21 orders at once."""
    return max(1, min(TOKENS_PER_PASS // (num * length), PAIRS_PER_PASS // (num * num)))


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
