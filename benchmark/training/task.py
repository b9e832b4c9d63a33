"""The one LightningModule: trains any ordering model and scores it on valid/test.

The wrapped network follows the interface of docs/design.md, section 6 (`loss`, `decode`,
`log_prob`); this module owns optimisation, decoding of whole splits and the metrics.
Valid and test predictions are gathered from every process and de-duplicated by document
id, so distributed samplers that pad a split never count a document twice. In the noise
setting (`noisy`, docs/design.md, section 4) the records carry each document's distractors and the
figures add `noise_acc` and `n_docs_order` (`benchmark.metrics.corpus`). With
`test_shuffles` > 1 (off by default) the test split is decoded under that many
presentations and the pass with the best PMR is kept, the released ATTOrderNet code's test
loop: a pick on test (`benchmark.evaluation.best_of_test_shuffles`); the figures then carry
`n_test_shuffles` and the kept pass `n_test_pass`.

Logged figures carry the epoch counted from 1 (docs/design.md, section 8): the training
loss of epoch k and the valid figures after it are logged with `epoch` k. Once training is
over the harness sets `selected_epoch` (the epoch of the checkpoint selected on valid, 0
for a model that is not trained): the test figures are then logged with that epoch, and the
validation of the selected checkpoint, which repeats the figures already logged for its
epoch, is not logged again.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import pytorch_lightning as pl
import torch
from torch import nn

from benchmark.config.resolvers import VALID_PREFIX
from benchmark.evaluation.best_of_test_shuffles import best_pass, reshuffle, shuffle_permutations
from benchmark.metrics.corpus import metric_means, score_records, summarise
from benchmark.records.records_from_batches import gather_records, records_from_batch
from benchmark.training.compiled_optimizer import compile_update
from benchmark.training.cuda_graphs import CompiledLoss
from benchmark.training.optimisation import (
    decay_epochs,
    linear_warmup,
    parameter_groups,
    sync_free,
    warmup_steps,
)
from models.batch import prepare_batch

log = logging.getLogger(__name__)
COUNT_KEYS = frozenset(  # bookkeeping, not curves
    {"n_docs", "n_docs_order", "n_trivial", "n_test_shuffles", "n_test_pass"}
)


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
        test_shuffles: int = 1,  # > 1: best-PMR pass of that many test presentations (a pick
        protocol_seed: int = 0,  # on test, off by default); the seed of their draws
        compile_step: bool = False,  # the loss and the update compiled (config key `compile`)
        cuda_graphs: bool = False,  # bucketed batches, loss captured as CUDA graphs on a GPU
    ):
        super().__init__()
        if int(test_shuffles) < 1:
            raise ValueError(f"test_shuffles must be >= 1, got {test_shuffles}")
        self.net = net
        self.optimizer_factory = optimizer
        self.scheduler_factory = scheduler
        self.val_beam_size = val_beam_size
        self.test_beam_size = test_beam_size
        self.include_trivial = include_trivial
        self.noisy = noisy
        self.test_shuffles = int(test_shuffles)
        self.protocol_seed = int(protocol_seed)
        self.compile_step = compile_step
        self.cuda_graphs = cuda_graphs
        self._compiled: CompiledLoss | None = None  # made at the first batch, on its device
        self._records: list[dict] = []
        self._pass_records: list[list[dict]] = []
        self.split_records: dict[str, list[dict]] = {}
        self.split_metrics: dict[str, dict] = {}
        self.selected_epoch: int | None = None  # set after training (module docstring)

    # -- training -------------------------------------------------------------------
    def on_train_epoch_start(self) -> None:
        datamodule = getattr(self.trainer, "datamodule", None)
        if datamodule is not None and hasattr(datamodule, "set_epoch"):
            datamodule.set_epoch(self.current_epoch)

    def compiled_loss(self) -> CompiledLoss | None:
        """The loss of a compiled or captured training step (`compile`, `cuda_graphs`:
        `benchmark.training.cuda_graphs`), made on the model's device; None: eager."""
        if not (self.compile_step or self.cuda_graphs):
            return None
        if self._compiled is None:
            self._compiled = CompiledLoss(self.net, self.device.type, self.cuda_graphs)
        return self._compiled

    def on_before_batch_transfer(self, batch: dict, dataloader_idx: int) -> dict:
        training = self._trainer is not None and self.trainer.training
        return self.host_side(batch, training)

    def host_side(self, batch: dict, training: bool) -> dict:
        """`batch` prepared on the host before it goes to the device (`models.batch`): its
        values checked and the model's host inputs made, so the step reads nothing back. A
        training batch of a compiled step is padded to its bucket; an eager step on the CPU
        runs its sentence encoder on length buckets."""
        compiled = self.compiled_loss() if training else None
        if compiled is not None:
            return compiled.prepare(batch)
        return prepare_batch(self.net, batch, buckets=self.device.type == "cpu")

    def training_step(self, batch: dict, batch_idx: int) -> torch.Tensor:
        compiled = self.compiled_loss()
        loss = self.net.loss(batch) if compiled is None else compiled(batch)
        # a captured graph's output is overwritten by its next replay: log a copy
        logged = loss.detach().clone() if self.cuda_graphs else loss
        self.log("train/loss", logged, prog_bar=True, batch_size=len(batch["doc_ids"]))
        self.log("epoch", float(self.current_epoch + 1))  # counted from 1, not Lightning's 0
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer | dict:
        """The optimiser; with `scheduler` (model.scheduler, e.g. ExponentialLR), a learning
        rate stepped once per training epoch."""
        if self.optimizer_factory is None:
            raise ValueError("model.optimizer is not set: a trainable model needs an optimizer")
        # parameter groups with their own rates and a warm-up, where the model asks for them;
        # on a GPU, the fused or multi-tensor update where torch has one (`sync_free`)
        optimizer = sync_free(self.optimizer_factory, parameter_groups(self.net), self.device)
        warmup, decay = warmup_steps(self.net), decay_epochs(self.net)
        if (warmup or decay) and self.scheduler_factory is not None:
            raise ValueError(
                "model.scheduler cannot be combined with the model's warmup_steps or decay_epochs"
            )
        if self.compile_step:
            if warmup or decay or self.scheduler_factory is not None:
                log.warning("compile: the learning rate changes during training; the "
                            "optimiser's update stays eager")  # fmt: skip
            else:
                compile_update(optimizer)
        if warmup or decay:
            decay_end = None if decay is None else decay * self.optimizer_steps_per_epoch()
            scheduler = {
                "scheduler": linear_warmup(optimizer, warmup, decay_end), "interval": "step"
            }
            return {"optimizer": optimizer, "lr_scheduler": scheduler}
        if self.scheduler_factory is None:
            return optimizer
        scheduler = {"scheduler": self.scheduler_factory(optimizer), "interval": "epoch"}
        return {"optimizer": optimizer, "lr_scheduler": scheduler}

    def optimizer_steps_per_epoch(self) -> int:
        """Optimiser steps of one training epoch on this process (its batches over the
        gradient accumulation), for a decay counted in epochs."""
        trainer = self.trainer
        trainer.estimated_stepping_batches  # noqa: B018 (makes Lightning count the batches)
        batches = trainer.num_training_batches
        if not math.isfinite(batches):
            raise ValueError("model.net.decay_epochs needs a training set of known length")
        return max(1, math.ceil(batches / trainer.accumulate_grad_batches))

    # -- evaluation -----------------------------------------------------------------
    def on_validation_epoch_start(self) -> None:
        self._records = []

    def on_test_epoch_start(self) -> None:
        self._records = []
        self._pass_records = [[] for _ in range(self.test_shuffles)]

    def validation_step(self, batch: dict, batch_idx: int) -> None:
        self._decode_batch(batch, self.val_beam_size)

    def test_step(self, batch: dict, batch_idx: int) -> None:
        if self.test_shuffles == 1:
            self._decode_batch(batch, self.test_beam_size)
            return
        for shuffle, records in enumerate(self._pass_records):
            presented = batch if shuffle == 0 else reshuffle(
                batch, shuffle_permutations(batch, shuffle, self.protocol_seed)
            )
            orders = self.net.decode(presented, beam_size=self.test_beam_size)  # (B, N)
            records.extend(records_from_batch(presented, orders, self.noisy))

    def _decode_batch(self, batch: dict, beam_size: int) -> None:
        orders = self.net.decode(batch, beam_size=beam_size)  # (B, N) presented indices
        self._records.extend(records_from_batch(batch, orders, self.noisy))

    def on_validation_epoch_end(self) -> None:
        self._finish_split("valid", VALID_PREFIX)

    def on_test_epoch_end(self) -> None:
        if self.test_shuffles == 1:
            self._finish_split("test", "test")
            return
        passes = [gather_records(records) for records in self._pass_records]
        scored = [score_records(records, include_trivial=self.include_trivial)
                  for records in passes]  # fmt: skip
        kept = best_pass([metric_means(s)["pmr"] for s in scored])
        self._records = passes[kept]
        self._finish_split("test", "test", {"n_test_shuffles": self.test_shuffles,
                                            "n_test_pass": kept})  # fmt: skip

    def _finish_split(self, split: str, log_prefix: str, extra: dict | None = None) -> None:
        records = gather_records(self._records)
        self._records = []
        metrics = summarise(score_records(records, include_trivial=self.include_trivial))
        metrics.update(extra or {})
        self.split_records[split] = records
        self.split_metrics[split] = metrics
        epoch = self.logged_epoch(split)
        if epoch is None:
            return
        self.log("epoch", float(epoch), sync_dist=True)
        for key, value in metrics.items():
            if key not in COUNT_KEYS and isinstance(value, (int, float)):
                # the same on every process (gathered records): syncing changes nothing
                # but tells Lightning so under DDP
                self.log(f"{log_prefix}/{key}", float(value), sync_dist=True)

    def logged_epoch(self, split: str) -> int | None:
        """The epoch (from 1) that `split`'s figures are logged with; None: not logged (the
        selected checkpoint's validation repeats its epoch's figures)."""
        if self.selected_epoch is None:  # during training: the epoch just trained
            return self.current_epoch + 1
        if split == "valid" and self.selected_epoch > 0:
            return None
        return self.selected_epoch
