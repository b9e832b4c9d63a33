"""Train one ordering model on one dataset and score it: `python -m benchmark.train`.

A Hydra app (configs in `conf/`). The run directory receives the best checkpoint
(selected on valid), `predictions.jsonl` for the test split, the CSV/W&B logs, Hydra's
`.hydra/` and, last and atomically, `metrics.json` (DESIGN sections 3 and 5).

With `dataset.noise` 1 or 0/1 (distractors, DESIGN section 4; Wang and Wan 2019) the
model is wrapped with an END candidate (`benchmark.net_factory`), the records list each
document's distractors, the checkpoint is selected on `val/pm_f` and order discrimination, which scores complete
orders of the gold sentences, is skipped (`protocol.discrimination.skipped`).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import hydra
import pytorch_lightning as pl
import torch
from hydra import compose
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, Timer

from benchmark.atomic_io import atomic_write_text
from benchmark.bootstrap import CI_ALPHA, bootstrap_summary
from benchmark.breakdowns import breakdowns
from benchmark.checkpoint_io import (
    AtomicCheckpointIO,
    CheckpointWriteError,
    checkpoint_callbacks,
)
from benchmark.config_check import ConfigError, check_config, check_scorable_splits
from benchmark.discrimination import add_to_record, discrimination_records
from benchmark.published_permutations import published_permutations
from benchmark.finite_guard import FiniteGuard, NonFiniteError
from benchmark.json_values import dumps
from benchmark.lit_module import OrderingTask
from benchmark.metrics import HEADLINE_ACCURACY
from benchmark.net_factory import build_net, dataset_noise, noise_options
from benchmark.prediction_records import gather_records, with_meta
from benchmark.predictions import write_predictions
from benchmark.run_environment import run_environment
from benchmark.run_dir_access import UnwritableRunsError, read_only_arguments
from benchmark.run_lock import ReadOnlyRunError, RunLockedError, take_run_lock
from benchmark.run_record import (
    PREDICTIONS_NAME,
    VOCAB_NAME,
    git_commit,
    read_run_record,
    write_run_record,
)
from benchmark.sweep_failure import clear_failure, write_failure
from benchmark.sweep_plan import (
    CHECKPOINT_DIR,
    ResumeInfo,
    RunConflictError,
    RunPlan,
    plan_run,
)
from benchmark.sweep_resolvers import register_resolvers
from benchmark.sweep_submitit import prepare_processes, submitit_logs
from benchmark.sweep_wandb import build_loggers, finish_wandb
from benchmark.training_progress import training_progress
from data.errors import DataFormatError
from data.noise import has_noise, noise_label

log = logging.getLogger(__name__)
# errors whose message says all (the key, file:line or run directory): one line, no traceback
ONE_LINE_ERRORS = (
    CheckpointWriteError, ConfigError, DataFormatError, NonFiniteError, ReadOnlyRunError,
    RunConflictError, RunLockedError,
)


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
    )


def build_trainer(
    cfg: DictConfig, run_dir: Path, plan: RunPlan
) -> tuple[pl.Trainer, ModelCheckpoint, Timer]:
    """The Trainer with model selection on valid (checkpoint + early stopping), resumable:
    `last.ckpt` after every epoch (saved atomically), the training time carried across
    resumes (the `Timer` also enforces `trainer.max_time`), the NaN/inf guard and the W&B
    run id of `plan`."""
    monitor = cfg.early_stopping.monitor
    checkpoint, last = checkpoint_callbacks(run_dir / CHECKPOINT_DIR, monitor)
    timer = Timer(duration=cfg.trainer.get("max_time"))
    callbacks = [checkpoint, last, timer, ResumeInfo(run_dir, plan), FiniteGuard(monitor)]
    if cfg.early_stopping.patience:
        callbacks.append(
            EarlyStopping(
                monitor=cfg.early_stopping.monitor, mode="max", patience=cfg.early_stopping.patience
            )
        )
    loggers = build_loggers(cfg.logger, plan)
    trainer = instantiate(
        cfg.trainer,
        max_time=None,  # enforced by the Timer above
        use_distributed_sampler=False,  # the DataModule shards its batches (data/sampler.py)
        callbacks=callbacks,
        plugins=[AtomicCheckpointIO()],  # checkpoints renamed into place in their folder
        logger=loggers or False,
        default_root_dir=run_dir,
    )
    return trainer, checkpoint, timer


def run(cfg: DictConfig, run_dir: Path, plan: RunPlan) -> dict:
    """Train (unless the model has nothing to learn; from `plan.ckpt_path` when resuming),
    select on valid, test once."""
    if cfg.cpu_threads:
        torch.set_num_threads(cfg.cpu_threads)
    pl.seed_everything(cfg.seed, workers=True)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    check_scorable_splits(
        cfg.dataset.name, datamodule.documents, cfg.include_trivial, has_noise(dataset_noise(cfg))
    )
    atomic_write_text(run_dir / VOCAB_NAME, datamodule.vocab.to_json())  # same on every rank
    task = build_task(cfg, datamodule)
    trainer, checkpoint, timer = build_trainer(cfg, run_dir, plan)

    trainable = getattr(task.net, "trainable", True)
    if trainable:
        if plan.ckpt_path is not None:
            log.info("resuming from %s", plan.ckpt_path)
        trainer.fit(task, datamodule=datamodule, ckpt_path=plan.ckpt_path)
    train_seconds = timer.time_elapsed("train")  # includes the sessions before a resume
    progress = training_progress(trainer, checkpoint.best_model_path, trainable)
    ckpt_path = "best" if trainable and checkpoint.best_model_path else None
    trainer.validate(task, datamodule=datamodule, ckpt_path=ckpt_path, verbose=False)
    trainer.test(task, datamodule=datamodule, ckpt_path=ckpt_path, verbose=False)
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
    write_predictions(run_dir / PREDICTIONS_NAME, split_records["test"])
    record = {
        "model": cfg.model.name,
        "dataset": noise_label(cfg.dataset.name, noise),
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
        **progress,  # epochs, best_epoch, steps, stopped_by (benchmark.training_progress)
        "environment": run_environment(
            trainer.strategy.root_device, cfg.trainer.get("deterministic")
        ),
        "best_checkpoint": checkpoint.best_model_path or None,
        "n_docs": task.split_metrics["test"]["n_docs"],
        "n_trivial": task.split_metrics["test"]["n_trivial"],
        "data": datamodule.stats(),
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
    write_run_record(run_dir, record)
    return record


register_resolvers()


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    """One run: skipped when finished with the same config, resumed from `last.ckpt`
    when interrupted (`benchmark.sweep_plan`). A failure leaves `failed.json` in the run
    directory; inside a multirun it is logged and the sweep goes on with the next run."""
    os.environ.setdefault("WANDB_MODE", "offline")
    hydra_cfg = HydraConfig.get()
    run_dir = Path(hydra_cfg.runtime.output_dir)
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    failed, lock, read_only = False, None, None
    try:
        check_config(cfg, hydra_cfg.overrides.task, compose_overrides)
        prepare_processes(cfg, multirun)
        try:
            lock = take_run_lock(run_dir)  # one launch per run directory
        except ReadOnlyRunError as error:
            read_only = error  # a finished run can still be skipped
        plan = plan_run(run_dir, cfg)
        if plan.action == "skip":
            log.info("%s: finished with this config, skipped (rerun=true trains it again)", run_dir)
            record = read_run_record(run_dir)
        elif read_only is not None:
            raise read_only
        else:
            record = run(cfg, run_dir, plan)
    except Exception as error:
        failed = True
        record_failure(run_dir, error, [run_dir / f"{hydra_cfg.job.name}.log", *submitit_logs()])
        if not multirun:
            if isinstance(error, ONE_LINE_ERRORS):  # said in full in one line, no traceback
                print("\n".join(f"error: {line}" for line in str(error).splitlines()),
                      file=sys.stderr)
                sys.exit(2 if isinstance(error, ConfigError) else 1)
            raise
        log.exception("%s: run failed; the sweep goes on", run_dir)
        return
    finally:
        finish_wandb(failed)
        if lock is not None:
            lock.release()
    if record:
        clear_failure(run_dir)
        print(dumps({"run_dir": str(run_dir), "test": record["split"]["test"]}, indent=2))


def compose_overrides(overrides: list[str]) -> DictConfig:
    """The config of these overrides, composed inside the running Hydra app."""
    return compose(config_name="config", overrides=overrides)


def record_failure(run_dir: Path, error: BaseException, logs: list[Path]) -> None:
    """`failed.json` for the sweep summary; not for a launch refused because another one
    runs there, and a folder that cannot take it (read-only, full) is said in the log."""
    if isinstance(error, RunLockedError):
        return
    try:
        write_failure(run_dir, error, logs)
    except OSError as write_error:
        log.error("%s: failed.json could not be written (%s)", run_dir, write_error)


if __name__ == "__main__":
    try:  # a run directory that cannot be written: before Hydra writes into it
        sys.argv[1:] = read_only_arguments(sys.argv[1:])
    except UnwritableRunsError as unwritable:
        sys.exit(f"error: {unwritable}")
    main()
