"""The length-aware batch sampler shared across DDP processes: equal batch counts, every
document covered, repeats only as padding."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from data.sampler import BucketBatchSampler


def sizes(n: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(n)
    return [(int(rng.integers(1, 10)), int(rng.integers(1, 30))) for _ in range(n)]


def shards(n: int, batch_size: int, shuffle: bool, replicas: int, epoch: int = 0):
    return [
        list(BucketBatchSampler(sizes(n), batch_size, shuffle, seed=3, epoch=epoch,
                                num_replicas=replicas, rank=rank))
        for rank in range(replicas)
    ]


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize(("n", "replicas"), [(103, 1), (103, 2), (103, 3), (5, 4), (0, 2)])
def test_every_rank_gets_as_many_batches_and_every_document_is_covered(n, replicas, shuffle):
    parts = shards(n, 10, shuffle, replicas)
    sampler = BucketBatchSampler(sizes(n), 10, shuffle, num_replicas=replicas)
    assert {len(part) for part in parts} == {len(sampler)}
    seen = Counter(index for part in parts for batch in part for index, _ in batch)
    assert set(seen) == set(range(n))
    n_batches = -(-n // 10)
    assert sum(len(part) for part in parts) - n_batches < replicas  # padding only


def test_one_process_is_the_undistributed_sampler():
    assert shards(57, 8, True, 1, epoch=2)[0] == list(
        BucketBatchSampler(sizes(57), 8, True, seed=3, epoch=2)
    )


def test_shards_follow_the_epoch_and_stay_disjoint_without_padding():
    first, second = shards(80, 10, True, 2, epoch=0), shards(80, 10, True, 2, epoch=1)
    assert first != second
    indices = [index for part in first for batch in part for index, _ in batch]
    assert sorted(indices) == list(range(80))


def test_rank_must_be_below_num_replicas():
    with pytest.raises(ValueError, match="rank 2 of 2"):
        BucketBatchSampler(sizes(4), 2, False, num_replicas=2, rank=2)
