"""Building and running one job: the DataModule, the LightningModule, the Trainer
(model selection on valid, resumable, atomic checkpoints, NaN/inf guard), then training,
validation, one test pass, order discrimination and the run record (docs/design.md,
sections 3 and 5). What it prints is `benchmark.harness.console`'s.
The entry point is `benchmark.train` (Hydra); the bench, datacard, evaluate and
prepare-data tools build their parts from here.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, Timer

from benchmark.harness.checkpoint_io import (
    AtomicCheckpointIO,
    checkpoint_callbacks,
)
from benchmark.harness.config_check import check_scorable_splits
from benchmark.harness.config_diff import config_id
from benchmark.harness.console import (
    EpochLines,
    data_line,
    is_verbose,
    model_line,
    progress_bars,
)
from benchmark.harness.finite_guard import FiniteGuard
from benchmark.harness.lit_module import OrderingTask
from benchmark.harness.loggers import build_loggers
from benchmark.harness.net_factory import build_net, dataset_noise, noise_options
from benchmark.harness.random_reference import random_baseline
from benchmark.harness.run_environment import run_environment
from benchmark.harness.run_plan import (
    CHECKPOINT_DIR,
    ResumeInfo,
    RunPlan,
    check_resumed_data,
)
from benchmark.harness.training_progress import (
    few_steps_warning,
    steps_per_epoch,
    training_progress,
)
from benchmark.metrics.breakdowns import breakdowns
from benchmark.metrics.corpus import HEADLINE_ACCURACY
from benchmark.metrics.discrimination import discrimination_records
from benchmark.metrics.published_permutations import published_permutations
from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.prediction_records import gather_records, with_meta
from benchmark.records.predictions import write_predictions
from benchmark.records.run_record import (
    PREDICTIONS_NAME,
    VOCAB_NAME,
    git_commit,
    write_run_record,
)
from benchmark.stats.bootstrap import CI_ALPHA, bootstrap_summary
from benchmark.stats.discrimination_summary import add_to_record
from data.noise import has_noise, noise_label

log = logging.getLogger(__name__)


def run_budget(cfg: DictConfig) -> dict:
    """What bounds a run's training: epochs or steps, early stopping and its metric, and a
    wall-clock limit if one was set (which makes figures depend on the machine)."""
    return {
        "max_epochs": cfg.trainer.get("max_epochs"),
        "max_steps": cfg.trainer.get("max_steps", -1),
        "patience": cfg.early_stopping.patience,
        "monitor": cfg.early_stopping.monitor,
        "max_time": cfg.trainer.get("max_time"),
    }


def run_identity(cfg: DictConfig, datamodule) -> dict:
    """What makes two runs' figures comparable (docs/design.md, section 8): the config
    id of the run directory, the data (name and documents digest), the protocol (the seed
    and digests of the fixed valid/test presentation, the trivial-document policy, the
    noise setting) and the budget. Reports pair or pool runs only when the data and
    protocol agree, and say when budgets differ."""
    data = datamodule.identity()
    return {
        "config_id": config_id(cfg),
        "data": {"name": data["name"], "documents_sha256": data["documents_sha256"]},
        "protocol": {
            "protocol_seed": cfg.protocol_seed,
            "presentation_sha256": data["presentation_sha256"],
            "include_trivial": bool(cfg.include_trivial),
            "noise": str(dataset_noise(cfg)),
        },
        "budget": run_budget(cfg),
    }


def build_datamodule(cfg: DictConfig) -> pl.LightningDataModule:
    """The dataset's DataModule, with the model's word vectors, the protocol seeds and
    the noise setting."""
    return instantiate(
        cfg.dataset.datamodule,
        reader=instantiate(cfg.dataset.reader),
        seed=cfg.seed,
        protocol_seed=cfg.protocol_seed,
        embeddings=cfg.model.get("embeddings"),
        embedding_dim=cfg.model.get("embedding_dim", 50),
        noise=dataset_noise(cfg),
    )


def build_task(cfg: DictConfig, datamodule) -> OrderingTask:
    """The model preset wrapped in the LightningModule."""
    net = build_net(cfg, len(datamodule.vocab), datamodule.pretrained_embeddings)
    optimizer = cfg.model.get("optimizer")
    scheduler = cfg.model.get("scheduler")  # optional, stepped per epoch (lit_module)
    return OrderingTask(
        net,
        optimizer=instantiate(optimizer) if optimizer is not None else None,
        scheduler=instantiate(scheduler) if scheduler is not None else None,
        val_beam_size=cfg.model.val_beam_size,
        test_beam_size=cfg.model.beam_size,
        include_trivial=cfg.include_trivial,
        noisy=has_noise(dataset_noise(cfg)),
        test_shuffles=cfg.get("test_shuffles", 1),  # > 1: a pick on test, off by default
        protocol_seed=cfg.protocol_seed,
    )


def build_trainer(cfg: DictConfig, plan: RunPlan) -> tuple[pl.Trainer, ModelCheckpoint, Timer]:
    """The Trainer with model selection on valid (checkpoint + early stopping), resumable:
    `last.ckpt` after every epoch (saved atomically), the training time carried across
    resumes (the `Timer` also enforces `trainer.max_time`), the NaN/inf guard and the W&B
    run id of `plan`; everything is written into `plan.work_dir`."""
    monitor = cfg.early_stopping.monitor
    work_dir = plan.work_dir
    checkpoint, last = checkpoint_callbacks(work_dir / CHECKPOINT_DIR, monitor)
    timer = Timer(duration=cfg.trainer.get("max_time"))
    callbacks = [checkpoint, last, timer, ResumeInfo(plan), FiniteGuard(monitor),
                 EpochLines(monitor)]  # fmt: skip
    if cfg.early_stopping.patience:
        callbacks.append(
            EarlyStopping(
                monitor=cfg.early_stopping.monitor, mode="max", patience=cfg.early_stopping.patience
            )
        )
    loggers = build_loggers(cfg.logger, plan)
    verbose = is_verbose(cfg)  # else one line per epoch (EpochLines), no bars or tables
    bar = bool(cfg.trainer.get("enable_progress_bar", True)) and verbose
    callbacks += progress_bars(verbose, bar)
    trainer = instantiate(
        cfg.trainer,
        enable_progress_bar=bar,
        enable_model_summary=verbose,
        max_time=None,  # enforced by the Timer above
        use_distributed_sampler=False,  # the DataModule shards its batches (data/sampler.py)
        callbacks=callbacks,
        plugins=[AtomicCheckpointIO()],  # checkpoints renamed into place in their folder
        logger=loggers or False,
        default_root_dir=work_dir,
    )
    return trainer, checkpoint, timer


def warn_few_steps(cfg: DictConfig, datamodule) -> int:
    """Warn when an epoch of this run has fewer than 10 optimiser steps, saying what to
    change (`benchmark.harness.training_progress.few_steps_warning`); returns the steps."""
    n_docs = len(datamodule.documents["train"])
    devices, nodes = cfg.trainer.get("devices", 1), cfg.trainer.get("num_nodes", 1)
    processes = (devices if isinstance(devices, int) else 1) * (nodes or 1)
    accumulate = int(cfg.trainer.get("accumulate_grad_batches") or 1)
    steps = steps_per_epoch(
        n_docs, datamodule.batch_size, bool(getattr(datamodule, "drop_last", False)),
        processes, accumulate,
    )
    warning = few_steps_warning(
        cfg.dataset.name, n_docs, datamodule.batch_size, steps, processes, accumulate
    )
    if warning:
        log.warning(warning)
    return steps


def announce(cfg: DictConfig, datamodule, stats: dict, task: OrderingTask, trainable: bool):
    """The console's first lines: the data, then (after the warning for too few steps per
    epoch, if any) the model and its budget."""
    noise = dataset_noise(cfg)
    log.info(data_line(
        noise_label(cfg.dataset.name, noise), noise_label(cfg.dataset.label, noise), stats,
        cfg.dataset.datamodule.get("min_freq"), cfg.model.get("embeddings"),
    ))
    steps = warn_few_steps(cfg, datamodule) if trainable else None
    log.info(model_line(
        cfg.model.name, sum(p.numel() for p in task.net.parameters()),
        cfg.trainer.get("max_epochs"), cfg.early_stopping.monitor, cfg.early_stopping.patience,
        steps,
    ))


def own_best_checkpoint(checkpoint: ModelCheckpoint, work_dir: Path) -> Path | None:
    """The checkpoint selected on valid, which must be this run's own file
    (`work_dir/checkpoints/best.ckpt`); None when training saved none."""
    if not checkpoint.best_model_path:
        return None
    best = Path(checkpoint.best_model_path)
    if best.parent.resolve() != (work_dir / CHECKPOINT_DIR).resolve():
        raise RuntimeError(f"{best}: the selected checkpoint is not in the run's own folder")
    return best


def run(cfg: DictConfig, run_dir: Path, plan: RunPlan) -> dict:
    """Train (unless the model has nothing to learn; from `plan.ckpt_path` when resuming),
    select on valid, test once. Every file goes to `plan.work_dir` (the run directory, or the
    staging folder of a rerun); the record names `run_dir`'s files relative to it."""
    work_dir = plan.work_dir
    if cfg.cpu_threads:
        torch.set_num_threads(cfg.cpu_threads)
    pl.seed_everything(cfg.seed, workers=True, verbose=is_verbose(cfg))
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    check_scorable_splits(
        cfg.dataset.name, datamodule.documents, cfg.include_trivial, has_noise(dataset_noise(cfg))
    )
    check_resumed_data(plan, datamodule.identity()["documents_sha256"])
    atomic_write_text(work_dir / VOCAB_NAME, datamodule.vocab.to_json())  # same on every rank
    task = build_task(cfg, datamodule)
    trainer, checkpoint, timer = build_trainer(cfg, plan)

    trainable = getattr(task.net, "trainable", True)
    stats = datamodule.stats()
    if trainer.is_global_zero:
        announce(cfg, datamodule, stats, task, trainable)
    if trainable:
        if plan.ckpt_path is not None:
            position = plan.resume_from
            after = f" (after epoch {position.epoch + 1})" if position is not None else ""
            log.info("resuming from %s%s", plan.ckpt_path, after)
        trainer.fit(task, datamodule=datamodule, ckpt_path=plan.ckpt_path, weights_only=True)
    train_seconds = timer.time_elapsed("train")  # includes the sessions before a resume
    best = own_best_checkpoint(checkpoint, work_dir) if trainable else None
    progress = training_progress(trainer, best and str(best), trainable)
    task.selected_epoch = progress["best_epoch"] or 0  # figures logged at the selected epoch
    for evaluate in (trainer.validate, trainer.test):  # the selected model, loaded safely
        evaluate(task, datamodule=datamodule, ckpt_path=best, verbose=False, weights_only=True)
    noise = dataset_noise(cfg)
    discriminate = cfg.evaluate_discrimination and not has_noise(noise)
    if cfg.evaluate_discrimination and not discriminate:
        log.info("order discrimination skipped: it is not defined with distractors")
    published = published_permutations(cfg) if discriminate else None  # None: our own
    disc_records = (  # order discrimination with the tested model; each process its share
        gather_records(discrimination_records(
            task.net, datamodule, "test", device=trainer.strategy.root_device,
            published=published,
        ))
        if discriminate
        else None
    )

    if not trainer.is_global_zero:
        return {}
    split_records = {  # with each document's meta, for the breakdowns
        split: with_meta(records, datamodule.documents[split])
        for split, records in task.split_records.items()
    }
    write_predictions(work_dir / PREDICTIONS_NAME, split_records["test"])
    record = {
        "model": cfg.model.name,
        # the label the run is filed and reported under (dataset.label, by default the name;
        # docs/design.md, section 8); the name that seeds the protocol is in `identity`
        "dataset": noise_label(cfg.dataset.label, noise),
        "variant": cfg.variant,
        "seed": cfg.seed,
        "split": task.split_metrics,
        "ci": {
            split: bootstrap_summary(
                records, include_trivial=cfg.include_trivial,
                n_resamples=cfg.bootstrap_resamples, seed=cfg.protocol_seed,
            )
            for split, records in split_records.items()
        },
        "breakdowns": {
            split: breakdowns(records, include_trivial=cfg.include_trivial)
            for split, records in split_records.items()
        },
        "n_params": sum(p.numel() for p in task.net.parameters()),
        "train_seconds": round(train_seconds, 2),
        **progress,  # epochs, best_epoch, steps, stopped_by (benchmark.harness.training_progress)
        "environment": run_environment(
            trainer.strategy.root_device, cfg.trainer.get("deterministic")
        ),
        "best_checkpoint": best and str(best.relative_to(work_dir)),  # in the run's folder
        "n_docs": task.split_metrics["test"]["n_docs"],
        "n_trivial": task.split_metrics["test"]["n_trivial"],
        "data": stats,
        "identity": run_identity(cfg, datamodule),
        "protocol": {
            "protocol_seed": cfg.protocol_seed,
            "trivial_policy": task.split_metrics["test"]["trivial_policy"],
            "accuracy": HEADLINE_ACCURACY,  # the leaderboard's accuracy; acc_pooled beside it
            "ci": {
                "method": "percentile bootstrap over documents",
                "n_resamples": cfg.bootstrap_resamples,
                "alpha": CI_ALPHA,
                "seed": cfg.protocol_seed,
            },
            "val_beam_size": cfg.model.val_beam_size,
            "test_beam_size": cfg.model.beam_size,
            "selection": f"{cfg.early_stopping.monitor} (valid only)",
        },
        "config": OmegaConf.to_container(cfg, resolve=True),
        "git_commit": git_commit(),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if has_noise(noise):
        record["protocol"]["noise"] = {
            "setting": noise,
            "distractors": "a sentence of another document of the same split, id -1",
            "draws": "valid/test: sha256(noise, dataset, split, document id, protocol_seed)",
            "end": "GO slot encoded with the sentences (Wang and Wan 2019, released code)",
            "options": noise_options(cfg),
        }
        if cfg.evaluate_discrimination:
            record["protocol"]["discrimination"] = {
                "skipped": "noise: order discrimination scores complete gold orders"
            }
    if disc_records is not None:
        add_to_record(
            record, "test", disc_records, cfg.bootstrap_resamples, cfg.protocol_seed,
            published=published,
        )
    if not has_noise(noise) and cfg.model.name != "random":  # the figures to read a run against
        record["random_baseline"] = random_baseline(
            datamodule, cfg.seed, cfg.include_trivial, cfg.bootstrap_resamples, cfg.protocol_seed
        )
    write_run_record(work_dir, record)
    return record
