"""The first stage of a launch: memory settings, threads and seeds, the DataModule (checked
scorable and of the sizes expected, the same data a resumed run began on; its vocabulary
saved beside the run), the model with its word vectors in the LightningModule, and the
Trainer (model selection on valid, resumable, atomic checkpoints, NaN/inf guard); the
console's first lines.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, Timer

from benchmark.config.cpu_memory import apply_cpu_memory
from benchmark.config.precision import prepare_cpu_bf16
from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.run_record import VOCAB_NAME
from benchmark.run.data_checks import check_document_sizes, check_scorable_splits
from benchmark.run.model_builder import build_model
from benchmark.run.plan import CHECKPOINT_DIR, RunPlan, check_resumed_data
from benchmark.run.processes import one_process_environment
from benchmark.run.resume_info import ResumeInfo
from benchmark.run.run_data import build_datamodule
from benchmark.run.spec import RunSpec, read_spec
from benchmark.training.checkpoints import AtomicCheckpointIO, checkpoint_callbacks
from benchmark.training.console import EpochLines, data_line, model_line, progress_bars
from benchmark.training.finite_guard import FiniteGuard
from benchmark.training.loggers import build_loggers
from benchmark.training.progress import few_steps_warning, steps_per_epoch
from benchmark.training.resources import ResourceMeter
from benchmark.training.task import OrderingTask
from data.noise import noise_label

log = logging.getLogger(__name__)


@dataclass
class BuiltRun:
    """What `build` makes for one launch."""

    datamodule: pl.LightningDataModule
    task: OrderingTask
    trainer: pl.Trainer
    checkpoint: ModelCheckpoint  # the callback that selects on valid
    timer: Timer
    data_stats: dict  # the DataModule's statistics, with the words that had a vector


def build(spec: RunSpec, plan: RunPlan) -> BuiltRun:
    """Memory settings, threads and seeds, the data (checked scorable and of the sizes
    expected, the same as a resumed run began on; its vocabulary saved beside the run), the
    model with its word vectors in the LightningModule, and the Trainer."""
    apply_cpu_memory(spec.cpu_memory)  # before oneDNN makes its first primitive
    if spec.threads:
        torch.set_num_threads(spec.threads)
    if note := prepare_cpu_bf16(spec.accelerator, spec.precision):
        log.warning(note)
    pl.seed_everything(spec.seed, workers=True, verbose=spec.verbose)
    datamodule = build_datamodule(spec.config)
    datamodule.prepare_data()
    datamodule.setup("fit")
    check_scorable_splits(spec.dataset_name, datamodule.documents, spec.include_trivial,
                          spec.noisy)
    check_document_sizes(spec.dataset_name, datamodule.documents, spec.max_document_sentences)
    check_resumed_data(plan, datamodule.identity()["documents_sha256"])
    atomic_write_text(plan.work_dir / VOCAB_NAME, datamodule.vocab.to_json())  # every rank
    net, vectors_found = build_model(spec.config, datamodule.vocab)
    task = wrap_task(spec, net)
    trainer, checkpoint, timer = build_trainer(spec, plan)
    stats = {**datamodule.stats(), "n_pretrained_found": vectors_found}
    built = BuiltRun(datamodule, task, trainer, checkpoint, timer, stats)
    if trainer.is_global_zero:
        announce(spec, built)
    return built


def build_task(cfg: DictConfig, datamodule) -> OrderingTask:
    """The model preset for the DataModule's vocabulary, with its word vectors, in the
    LightningModule (for the tools that build a run's parts from its config)."""
    return wrap_task(read_spec(cfg), build_model(cfg, datamodule.vocab)[0])


def wrap_task(spec: RunSpec, net: torch.nn.Module) -> OrderingTask:
    """`net` in the LightningModule with the run's optimiser, scheduler, beams and
    evaluation settings."""
    optimizer = spec.config.model.get("optimizer")
    scheduler = spec.config.model.get("scheduler")  # optional, stepped per epoch
    return OrderingTask(
        net,
        optimizer=instantiate(optimizer) if optimizer is not None else None,
        scheduler=instantiate(scheduler) if scheduler is not None else None,
        val_beam_size=spec.val_beam_size,
        test_beam_size=spec.beam_size,
        include_trivial=spec.include_trivial,
        noisy=spec.noisy,
        test_shuffles=spec.test_shuffles,
        protocol_seed=spec.protocol_seed,
        compile_step=spec.compile,
        cuda_graphs=spec.cuda_graphs,
    )


def build_trainer(spec: RunSpec, plan: RunPlan) -> tuple[pl.Trainer, ModelCheckpoint, Timer]:
    """The Trainer with model selection on valid (checkpoint + early stopping), resumable:
    `last.ckpt` after every epoch (saved atomically), the training time carried across
    resumes (the `Timer` also enforces `trainer.max_time`), the NaN/inf guard and the W&B
    run id of `plan`; everything is written into `plan.work_dir`."""
    monitor, trainer_cfg = spec.monitor, spec.config.trainer
    work_dir = plan.work_dir
    checkpoint, last = checkpoint_callbacks(work_dir / CHECKPOINT_DIR, monitor)
    timer = Timer(duration=spec.max_time)
    callbacks = [checkpoint, last, timer, ResumeInfo(plan), FiniteGuard(monitor),
                 EpochLines(monitor), ResourceMeter()]  # fmt: skip
    if spec.patience:
        callbacks.append(EarlyStopping(monitor=monitor, mode="max", patience=spec.patience))
    loggers = build_loggers(spec.config.logger, plan.work_dir, plan.wandb_id, plan.resume_from)
    verbose = spec.verbose  # else one line per epoch (EpochLines), no bars or tables
    bar = bool(trainer_cfg.get("enable_progress_bar", True)) and verbose
    callbacks += progress_bars(verbose, bar)
    precision = {"precision": spec.precision} if "precision" in trainer_cfg else {}
    trainer = instantiate(
        trainer_cfg,
        **precision,
        enable_progress_bar=bar,
        enable_model_summary=verbose,
        max_time=None,  # enforced by the Timer above
        use_distributed_sampler=False,  # the DataModule shards its batches (data/sampler.py)
        callbacks=callbacks,
        # checkpoints renamed into place in their folder; one process in a shared job
        plugins=[AtomicCheckpointIO(), *one_process_environment()],
        logger=loggers or False,
        default_root_dir=work_dir,
    )
    return trainer, checkpoint, timer


def warn_few_steps(spec: RunSpec, datamodule) -> int:
    """Warn when an epoch of this run has fewer than 10 optimiser steps, saying what to
    change (`benchmark.training.progress.few_steps_warning`); returns the steps."""
    n_docs = len(datamodule.documents["train"])
    processes, accumulate = spec.processes, spec.accumulate
    steps = steps_per_epoch(
        n_docs, datamodule.batch_size, bool(getattr(datamodule, "drop_last", False)),
        processes, accumulate,
    )
    warning = few_steps_warning(
        spec.dataset_name, n_docs, datamodule.batch_size, steps, processes, accumulate
    )
    if warning:
        log.warning(warning)
    return steps


def announce(spec: RunSpec, built: BuiltRun) -> None:
    """The console's first lines: the data, then (after the warning for too few steps per
    epoch, if any) the model and its budget."""
    log.info(data_line(
        noise_label(spec.dataset_name, spec.noise), spec.dataset_label, built.data_stats,
        spec.min_freq, spec.embeddings,
    ))
    steps = warn_few_steps(spec, built.datamodule) if spec.preset.trainable else None
    log.info(model_line(
        spec.model_name, sum(p.numel() for p in built.task.net.parameters()),
        spec.max_epochs, spec.monitor, spec.patience, steps,
    ))
