"""The random baseline beside a run's test figures, measured rather than assumed.

Kendall's tau of a random order is 0 in expectation, but the figure a reader compares a run
with is the one of *these* test documents under *this* presentation, with its own interval.
`random_baseline` decodes the run's test split with the `random` preset
(`models.orderers.random_orderer.RandomOrderer`, seeded by the run's `seed`) and scores it with the
run's metrics and bootstrap, so its figures are those `model=random` at the same seed would
record on the same data (docs/design.md, section 5: paired, same permutations). It takes a
second or two: no model is built or trained.
"""

from __future__ import annotations

from torch.utils.data import DataLoader

from benchmark.metrics.corpus import score_records, summarise
from benchmark.records.records_from_batches import records_from_batch
from benchmark.stats.bootstrap import bootstrap_summary
from data.collate import collate
from data.sampler import BucketBatchSampler
from models.orderers.random_orderer import RandomOrderer


def random_records(datamodule, seed: int, split: str = "test") -> list[dict]:
    """Prediction records of a uniform random order of every document of `split` as the
    run presents it, sorted by id like a run's own records."""
    dataset = datamodule.datasets[split]
    sampler = BucketBatchSampler(dataset.sizes(), datamodule.eval_batch_size, shuffle=False)
    model = RandomOrderer(seed=seed)
    records = []
    for batch in DataLoader(dataset, batch_sampler=sampler, collate_fn=collate):
        records.extend(records_from_batch(batch, model.decode(batch)))
    unique = {record["id"]: record for record in records}
    return [unique[doc_id] for doc_id in sorted(unique)]


def random_baseline(
    datamodule, seed: int, include_trivial: bool, n_resamples: int, protocol_seed: int
) -> dict:
    """`{"model": "random", "seed", "split": "test", "figures", "ci"}`: the figures and
    bootstrap intervals (as the run record's `ci`) of a random order of the test split."""
    records = random_records(datamodule, seed)
    return {
        "model": "random",
        "seed": seed,
        "split": "test",
        "figures": summarise(score_records(records, include_trivial=include_trivial)),
        "ci": bootstrap_summary(
            records, include_trivial=include_trivial, n_resamples=n_resamples, seed=protocol_seed
        ),
    }
