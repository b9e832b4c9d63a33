"""The one LightningModule: trains any ordering model and scores it on valid/test.

The wrapped network follows the interface of DESIGN section 6 (`loss`, `decode`,
`log_prob`); this module owns optimisation, decoding of whole splits and the metrics.
Valid and test predictions are gathered from every process and de-duplicated by document
id, so distributed samplers that pad a split never count a document twice. In the noise
setting (`noisy`, DESIGN section 4) the records carry each document's distractors and the
figures add `noise_acc` and `n_docs_order` (`benchmark.metrics.corpus`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytorch_lightning as pl
import torch
from torch import nn

from benchmark.harness.compiled_optimizer import compile_update
from benchmark.harness.optimisation import linear_warmup, parameter_groups, warmup_steps
from benchmark.metrics.corpus import score_records, summarise
from benchmark.records.prediction_records import gather_records, records_from_batch

log = logging.getLogger(__name__)
COUNT_KEYS = frozenset({"n_docs", "n_docs_order", "n_trivial"})  # bookkeeping, not curves


class OrderingTask(pl.LightningModule):
    """Optimises `net.loss` and decodes valid/test splits into prediction records."""

    def __init__(
        self,
        net: nn.Module,
        optimizer: Callable[..., torch.optim.Optimizer] | None = None,
        scheduler: Callable[..., torch.optim.lr_scheduler.LRScheduler] | None = None,  # per epoch
        val_beam_size: int = 1,  # cheap greedy decoding for model selection
        test_beam_size: int = 1,  # the preset's published beam width
        include_trivial: bool = False,
        noisy: bool = False,  # documents may hold distractors (dataset.noise 1 or 0/1)
        compile_optimizer: bool = False,  # torch.compile the update (config key `compile`)
    ):
        super().__init__()
        self.net = net
        self.optimizer_factory = optimizer
        self.scheduler_factory = scheduler
        self.val_beam_size = val_beam_size
        self.test_beam_size = test_beam_size
        self.include_trivial = include_trivial
        self.noisy = noisy
        self.compile_optimizer = compile_optimizer
        self._records: list[dict] = []
        self.split_records: dict[str, list[dict]] = {}
        self.split_metrics: dict[str, dict] = {}

    # -- training -------------------------------------------------------------------
    def on_train_epoch_start(self) -> None:
        datamodule = getattr(self.trainer, "datamodule", None)
        if datamodule is not None and hasattr(datamodule, "set_epoch"):
            datamodule.set_epoch(self.current_epoch)

    def training_step(self, batch: dict, batch_idx: int) -> torch.Tensor:
        loss = self.net.loss(batch)
        self.log("train/loss", loss, prog_bar=True, batch_size=len(batch["doc_ids"]))
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer | dict:
        """The optimiser; with `scheduler` (model.scheduler, e.g. ExponentialLR), a learning
        rate stepped once per training epoch."""
        if self.optimizer_factory is None:
            raise ValueError("model.optimizer is not set: a trainable model needs an optimizer")
        # parameter groups with their own rates and a warm-up, where the model asks for them
        optimizer = self.optimizer_factory(parameter_groups(self.net))
        warmup = warmup_steps(self.net)
        if warmup and self.scheduler_factory is not None:
            raise ValueError("model.scheduler cannot be combined with the model's warmup_steps")
        if self.compile_optimizer:
            if warmup or self.scheduler_factory is not None:
                log.warning("compile: the learning rate changes during training; the "
                            "optimiser's update stays eager")  # fmt: skip
            else:
                compile_update(optimizer)
        if warmup:
            scheduler = {"scheduler": linear_warmup(optimizer, warmup), "interval": "step"}
            return {"optimizer": optimizer, "lr_scheduler": scheduler}
        if self.scheduler_factory is None:
            return optimizer
        scheduler = {"scheduler": self.scheduler_factory(optimizer), "interval": "epoch"}
        return {"optimizer": optimizer, "lr_scheduler": scheduler}

    # -- evaluation -----------------------------------------------------------------
    def on_validation_epoch_start(self) -> None:
        self._records = []

    def on_test_epoch_start(self) -> None:
        self._records = []

    def validation_step(self, batch: dict, batch_idx: int) -> None:
        self._decode_batch(batch, self.val_beam_size)

    def test_step(self, batch: dict, batch_idx: int) -> None:
        self._decode_batch(batch, self.test_beam_size)

    def _decode_batch(self, batch: dict, beam_size: int) -> None:
        orders = self.net.decode(batch, beam_size=beam_size)  # (B, N) presented indices
        self._records.extend(records_from_batch(batch, orders, self.noisy))

    def on_validation_epoch_end(self) -> None:
        self._finish_split("valid", "val")

    def on_test_epoch_end(self) -> None:
        self._finish_split("test", "test")

    def _finish_split(self, split: str, log_prefix: str) -> None:
        records = gather_records(self._records)
        self._records = []
        metrics = summarise(score_records(records, include_trivial=self.include_trivial))
        self.split_records[split] = records
        self.split_metrics[split] = metrics
        for key, value in metrics.items():
            if key not in COUNT_KEYS and isinstance(value, (int, float)):
                # the same on every process (gathered records): syncing changes nothing
                # but tells Lightning so under DDP
                self.log(f"{log_prefix}/{key}", float(value), sync_dist=True)
