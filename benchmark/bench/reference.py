"""Batched decoding against the one-document-at-a-time reference (`models.search.reference_search`).

Two checks per beam width: on synthetic paragraphs of one length, the orders must be
identical and the reference's time per document gives the batched search's speed-up; on
documents of the real test sample, decoded in padded batches of mixed lengths, the orders
must be identical too. Any mismatch is counted; `python -m benchmark.bench.suite` fails on one.
"""

from __future__ import annotations

import torch
from torch import Tensor

from benchmark.bench.timing import autocast, timed
from models.batch import to_device
from models.search.reference_search import one_document, reference_search


def speedup(
    net,
    batch: dict,
    batched: dict[int, tuple[float, Tensor, Tensor]],
    docs: int,
    device: torch.device,
    precision: str,
) -> dict:
    """For each beam of `batched` (milliseconds per document, orders and scores of
    `net.search` on `batch`): the reference's time per document on the first `docs`
    documents, the speed-up, mismatched orders and the largest score difference."""
    head = {key: value[:docs] for key, value in batch.items()}
    docs = len(head["n_sentences"])
    figures = {}
    for beam in sorted(batched):
        batched_ms, orders, scores = batched[beam]
        with autocast(device, precision):
            time, (found, found_scores) = timed(
                lambda beam=beam: reference_search(net, head, beam), device
            )
        time = 1000 * time / docs
        figures[str(beam)] = {
            "reference_ms_per_doc": round(time, 3),
            "batched_ms_per_doc": round(batched_ms, 3),
            "speedup": round(time / batched_ms, 1),
            "mismatches": int((found != orders[:docs]).any(dim=1).sum()),
            "max_score_diff": float((found_scores - scores[:docs]).abs().max()),
        }
    return {"docs": docs, "by_beam": figures}


def sample_mismatches(
    net, batches: list[dict], orders: dict[int, list[Tensor]], docs: int, device, precision
) -> dict:
    """Documents of `batches` (evenly spaced, `docs` of them) whose reference order at each
    beam differs from the batched one in `orders` (beam -> (B, N) per batch)."""
    rows = [(b, r) for b, batch in enumerate(batches) for r in range(len(batch["n_sentences"]))]
    chosen = [rows[i * len(rows) // docs] for i in range(min(docs, len(rows)))]
    mismatches = {}
    for beam, predicted in orders.items():
        count = 0
        for b, r in chosen:
            document = to_device(one_document(batches[b], r), device)  # the sample: on the CPU
            with autocast(device, precision):
                reference, _ = reference_search(net, document, beam)  # (1, n)
            n = reference.shape[1]
            count += not torch.equal(reference[0], predicted[b][r, :n].to(reference.device))
        mismatches[str(beam)] = count
    return {"docs": len(chosen), "mismatches": mismatches}
