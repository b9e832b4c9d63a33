"""Length-aware batching: documents of similar size share a batch to cut padding.

Training (``shuffle=True``): the documents are shuffled, cut into pools of
``pool_batches`` batches, each pool is sorted by (number of sentences, longest sentence),
cut into batches, and the batches are shuffled — all seeded by (seed, epoch). Evaluation
(``shuffle=False``): one deterministic pass sorted by size (stable). No batch is dropped;
every document appears exactly once per pass. Each yielded key is (document index, epoch),
so the epoch travels with the index into worker processes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from torch.utils.data import Sampler

_BATCH_STREAM = 0xBA7  # separates batch shuffling from other seeded streams

Key = tuple[int, int]  # (document index, epoch)


class BucketBatchSampler(Sampler[list[Key]]):
    def __init__(
        self,
        sizes: list[tuple[int, int]],
        batch_size: int,
        shuffle: bool,
        seed: int = 0,
        epoch: int = 0,
        pool_batches: int = 50,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.sizes = sizes
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = epoch
        self.pool = batch_size * pool_batches

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return math.ceil(len(self.sizes) / self.batch_size)

    def _cut(self, indices: list[int]) -> list[list[int]]:
        indices = sorted(indices, key=self.sizes.__getitem__)
        return [indices[i : i + self.batch_size] for i in range(0, len(indices), self.batch_size)]

    def __iter__(self) -> Iterator[list[Key]]:
        if self.shuffle:
            rng = np.random.default_rng([_BATCH_STREAM, self.seed, self.epoch])
            order = rng.permutation(len(self.sizes)).tolist()
            batches = [
                batch
                for start in range(0, len(order), self.pool)
                for batch in self._cut(order[start : start + self.pool])
            ]
            batches = [batches[i] for i in rng.permutation(len(batches))]
        else:
            batches = self._cut(list(range(len(self.sizes))))
        for batch in batches:
            yield [(index, self.epoch) for index in batch]
