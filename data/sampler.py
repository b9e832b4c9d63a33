"""Length-aware batching: documents of similar size share a batch to cut padding.

Training (``shuffle=True``): the documents are shuffled, cut into pools of
``pool_batches`` batches, each pool is sorted by (number of sentences, longest sentence),
cut into batches, and the batches are shuffled — all seeded by (seed, epoch). Evaluation
(``shuffle=False``): one deterministic pass sorted by size (stable). No batch is dropped;
every document appears exactly once per pass. With ``drop_last`` (training only, off by
default) the shuffled order is cut to a multiple of ``batch_size`` before pooling, so every
batch is full and a seeded random ``len % batch_size`` documents sit out the epoch: the
batching of the released ATTOrderNet code (hwxcby/ATTOrderNet, ``helper.data_iter``:
``len(data) // batch_size`` batches of a fresh shuffle). Each yielded key is (document
index, epoch), so the epoch travels with the index into worker processes. The sizes are one
int array (documents, 2) read from the columns' offsets (``data.dataset.OrderingDataset.sizes``)
and a pass is numpy arrays: a few bytes per document, sorted as the (sentences, longest)
pairs sort (stable).

Distributed (``num_replicas > 1``): every process builds the same batches, the list is
padded by repeating it from the start to a multiple of ``num_replicas``, and process
``rank`` takes every ``num_replicas``-th batch from position ``rank``. All processes get
the same number of batches; over all processes every document appears at least once, and a
repeated document is de-duplicated by id when predictions are gathered
(``benchmark.records.records_from_batches.gather_records``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
from torch.utils.data import Sampler

_BATCH_STREAM = 0xBA7  # separates batch shuffling from other seeded streams

Key = tuple[int, int]  # (document index, epoch)


class BucketBatchSampler(Sampler[list[Key]]):
    def __init__(
        self,
        sizes: np.ndarray | Sequence[tuple[int, int]],  # (documents, 2) sentences, longest
        batch_size: int,
        shuffle: bool,
        seed: int = 0,
        epoch: int = 0,
        pool_batches: int = 50,
        num_replicas: int = 1,  # processes sharing the pass (DDP world size)
        rank: int = 0,  # this process, 0 <= rank < num_replicas
        drop_last: bool = False,  # training: only full batches (see the module docstring)
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"need 0 <= rank < num_replicas, got rank {rank} of {num_replicas}")
        if drop_last and not shuffle:
            raise ValueError("drop_last is for training passes: an evaluation pass keeps every "
                             "document")
        if drop_last and len(sizes) < batch_size:
            raise ValueError(f"drop_last with {len(sizes)} documents and batch_size "
                             f"{batch_size} leaves no batch")
        sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
        self.n_docs = len(sizes)
        # one sort key per document, ordered as the (sentences, longest) pairs are
        self.keys = (sizes[:, 0] << 32) | sizes[:, 1]
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = epoch
        self.pool = batch_size * pool_batches
        self.num_replicas = num_replicas
        self.rank = rank
        self.drop_last = drop_last

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        if self.drop_last:
            batches = self.n_docs // self.batch_size
        else:
            batches = math.ceil(self.n_docs / self.batch_size)
        return math.ceil(batches / self.num_replicas)

    def _cut(self, indices: np.ndarray) -> list[np.ndarray]:
        """``indices`` sorted by size (stable), cut into batches."""
        indices = indices[np.argsort(self.keys[indices], kind="stable")]
        return [indices[i : i + self.batch_size] for i in range(0, len(indices), self.batch_size)]

    def _all_batches(self) -> list[np.ndarray]:
        """The batches of the whole pass, identical on every process."""
        if not self.shuffle:
            return self._cut(np.arange(self.n_docs))
        rng = np.random.default_rng([_BATCH_STREAM, self.seed, self.epoch])
        order = rng.permutation(self.n_docs)
        if self.drop_last:  # pools are multiples of batch_size: every batch is full
            order = order[: len(order) - len(order) % self.batch_size]
        batches = [
            batch
            for start in range(0, len(order), self.pool)
            for batch in self._cut(order[start : start + self.pool])
        ]
        return [batches[i] for i in rng.permutation(len(batches))]

    def __iter__(self) -> Iterator[list[Key]]:
        batches = self._all_batches()
        padding = len(self) * self.num_replicas - len(batches)
        batches = batches + [batches[i % len(batches)] for i in range(padding)]
        for batch in batches[self.rank :: self.num_replicas]:
            yield [(index, self.epoch) for index in batch.tolist()]
