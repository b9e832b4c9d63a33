"""Paired comparison of two leaderboard rows, each pooled over its seeds.

A leaderboard row (dataset, preset, variant) has one run per seed, all scored on the same
test documents under the same fixed permutations (DESIGN section 5). `pool_seeds` averages
each document's figures over the row's seeds (the seeds must hold the same documents with
the same gold orders: `benchmark.paired.align_records`); `compare_rows` then runs
`benchmark.paired.paired_test` on the two rows' pooled documents, paired by id. The unit
of resampling stays the document; seed-to-seed variation is averaged out per document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmark.bootstrap import CI_ALPHA
from benchmark.compare import load_run
from benchmark.metrics import N_SENTENCES, ScoredCorpus, score_records
from benchmark.paired import align_records, paired_test
from benchmark.run_collection import Run


@dataclass(frozen=True)
class PooledRow:
    """A row's documents (as its first seed recorded them) and their seed-mean figures."""

    records: list[dict]  # prediction records of the first seed: id, gold, noise, ...
    scored: ScoredCorpus  # per-document figures averaged over seeds, in `records` order


def _mean_document(documents: Sequence[dict[str, float]]) -> dict[str, float]:
    """The figures every seed has for one document, averaged over the seeds."""
    keys = [key for key in documents[0] if key != N_SENTENCES]
    means = {
        key: float(np.mean([doc[key] for doc in documents]))
        for key in keys
        if all(key in doc for doc in documents)
    }
    return {N_SENTENCES: documents[0][N_SENTENCES], **means}


def pool_seeds(runs: Sequence[Run]) -> PooledRow:
    """Pool the runs of one row (read from their `predictions.jsonl`).

    All seeds are scored under the first run's trivial policy. Raises
    `benchmark.paired.PairingError` when the seeds' documents differ, and the errors of
    `benchmark.predictions.read_predictions` for a missing or bad predictions file.
    """
    include_trivial = runs[0].include_trivial
    _, reference = load_run(runs[0].path)
    per_seed = []
    for run in runs:
        _, records = load_run(run.path)
        _, aligned = align_records(reference, records)  # in the reference's order
        per_seed.append(score_records(aligned, include_trivial))
    first = per_seed[0]
    documents = tuple(
        _mean_document([scored.documents[i] for scored in per_seed]) for i in range(len(reference))
    )
    pooled = ScoredCorpus(documents, first.trivial, first.include_trivial, first.noisy)
    return PooledRow(reference, pooled)


def compare_rows(
    row_a: PooledRow, row_b: PooledRow, n_resamples: int = 10_000, seed: int = 0
) -> dict[str, dict[str, float]]:
    """`benchmark.paired.paired_test` of row A against row B (difference A - B).

    Raises `benchmark.paired.PairingError` when the rows were not scored on the same
    documents.
    """
    _, records_b = align_records(row_a.records, row_b.records)  # B in A's order
    index_b = {record["id"]: i for i, record in enumerate(row_b.records)}
    scored_b = row_b.scored.subset(index_b[record["id"]] for record in records_b)
    return paired_test(row_a.scored, scored_b, n_resamples, CI_ALPHA, seed)
