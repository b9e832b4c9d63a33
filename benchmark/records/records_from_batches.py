"""Turn decoded batches into prediction records (docs/design.md, section 3) and gather them.

A record is `{"id", "gold", "pred"}` in sentence ids (a sentence's position in the
original document), so it can be written to `predictions.jsonl` and re-scored by
`python -m benchmark.score` without the model. In the noise setting (docs/design.md, section 4) a
record also lists the document's distractor ids (-1, ...) under `"noise"` (`[]` when it
got none), `gold` holds the real sentences only and `pred` the sentences the model kept.
`with_meta` adds the document's `"meta"` (genre, source ...), which the breakdowns group
by.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.distributed as dist


def records_from_batch(batch: dict, orders: torch.Tensor, noisy: bool = False) -> list[dict]:
    """Map predicted presented indices (B, N), -1 padded, to sentence-id records; `noisy`
    (the noise setting) gives every record its `"noise"` list."""
    gold_order = batch["gold_order"].tolist()  # (B, N) presented indices, -1 padded
    records = []
    documents = zip(batch["doc_ids"], batch["sentence_ids"], strict=True)
    for b, (doc_id, sentence_ids) in enumerate(documents):
        n = len(sentence_ids)
        pred = [sentence_ids[j] for j in orders[b, :n].tolist() if j >= 0]
        gold = [sentence_ids[j] for j in gold_order[b][:n] if j >= 0]
        record = {"id": doc_id, "gold": gold, "pred": pred}
        noise = sorted((i for i in sentence_ids if i < 0), reverse=True)  # -1, -2, ...
        if noisy or noise:
            record["noise"] = noise
        records.append(record)
    return records


def gather_records(records: list[dict]) -> list[dict]:
    """Collect records from every process, keep one per document id, sort by id.

    Distributed samplers pad a split by repeating documents; de-duplicating here means
    every document is scored exactly once whatever the number of processes.
    """
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        shards: list[list[dict]] = [None] * dist.get_world_size()  # type: ignore[list-item]
        dist.all_gather_object(shards, records)
        records = [record for shard in shards for record in shard]
    unique = {record["id"]: record for record in records}
    return [unique[doc_id] for doc_id in sorted(unique)]


def with_meta(records: list[dict], documents: Iterable) -> list[dict]:
    """Records with `"meta"`: the `.meta` of the document (`data.document.Document`) of
    the same id."""
    meta = {document.id: document.meta for document in documents}
    return [{**record, "meta": meta[record["id"]]} for record in records]
