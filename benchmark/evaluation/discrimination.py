"""Order discrimination with a trained model (docs/design.md, section 4; the figures and
the permutations are `benchmark.metrics.discrimination`): every (document, order) pair of an
evaluation split scored by `log P(order | sentences)`.

All orders of a batch are scored together: the batch is expanded to one row per
(document, order) and scored in forward passes of bounded size. For an `OrderingModel`
the documents are encoded once and only the decoder runs per order (its encoders do not
depend on the scored order): the same log-probabilities as `log_prob` on the expanded
batch, an encoder pass per document instead of per pair. A `PairwiseOrderer` likewise
classifies each document's sentence pairs once and sums them for every order.
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
from models.batch import to_device
from models.orderers.pairwise_orderer import PairwiseOrderer
from models.ordering_model import OrderingModel
from models.search.candidates import order_log_prob

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
    """log P(orders[r] | sentences of document doc_of_row[r]) for every row (R,): the
    batch encoded once (an `OrderingModel`, a `PairwiseOrderer`), or the expanded batch
    scored in passes of bounded size (`rows_per_pass`)."""
    rows = rows_per_pass(*batch["tokens"].shape[1:])
    device = batch["tokens"].device
    if isinstance(model, OrderingModel):
        return _decoder_log_probs(model, batch, doc_of_row, orders, rows)
    if isinstance(model, PairwiseOrderer):
        index = doc_of_row.to(device)
        return model.log_prob_of_rows(batch, index, orders.to(device)).float().cpu()  # (R,)
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
