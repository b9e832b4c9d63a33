"""``OrderingDataModule``: ``data.ordering_data.OrderingData`` as a Lightning DataModule,
with its loaders (docs/design.md, section 5): training batches length-aware and shuffled
afresh each epoch, evaluation batches in a fixed order (``data.sampler``); under DDP each
process takes its share of the batches, and the harness de-duplicates repeated documents
when it gathers predictions.
"""

from __future__ import annotations

import pytorch_lightning as pl
from torch.utils.data import DataLoader

from data.collate import collate
from data.ordering_data import EVAL_SPLITS, OrderingData
from data.sampler import BucketBatchSampler


class OrderingDataModule(OrderingData, pl.LightningDataModule):
    """Sentence-ordering data for one dataset with Lightning's loaders; its arguments are
    ``OrderingData``'s."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.epoch = 0
        self._train_sampler: BucketBatchSampler | None = None

    def set_epoch(self, epoch: int) -> None:
        """Select the training permutations and batch order of ``epoch``."""
        self.epoch = epoch
        if self._train_sampler is not None:
            self._train_sampler.set_epoch(epoch)

    def _loader(self, split: str, sampler: BucketBatchSampler) -> DataLoader:
        return DataLoader(
            self._dataset(split),
            batch_sampler=sampler,
            collate_fn=collate,
            num_workers=self.num_workers,
        )

    def _shard(self) -> dict:
        """This process's share of every pass (``num_replicas``, ``rank``) under a Trainer."""
        if self.trainer is None:
            return {}
        return {"num_replicas": self.trainer.world_size, "rank": self.trainer.global_rank}

    def train_dataloader(self) -> DataLoader:
        dataset = self._dataset("train")
        self._train_sampler = BucketBatchSampler(
            dataset.sizes(self.bucket_by), self.batch_size, shuffle=True, seed=self.seed,
            epoch=self.epoch, drop_last=self.drop_last, **self._shard(),
        )
        return self._loader("train", self._train_sampler)

    def eval_dataloader(self, split: str) -> DataLoader:
        """Deterministic loader over an evaluation split with its fixed permutations."""
        if split not in EVAL_SPLITS:
            raise ValueError(f"evaluation split must be one of {EVAL_SPLITS}, got {split!r}")
        sizes = self._dataset(split).sizes(self.bucket_by)
        sampler = BucketBatchSampler(sizes, self.eval_batch_size, shuffle=False, **self._shard())
        return self._loader(split, sampler)

    def val_dataloader(self) -> DataLoader:
        return self.eval_dataloader("valid")

    def test_dataloader(self) -> DataLoader:
        return self.eval_dataloader("test")
