"""One launch in four stages (docs/design.md, sections 3, 5 and 8), each a function of one
job: `build` (the DataModule, the model with its word vectors in the LightningModule, the
Trainer: model selection on valid, resumable, atomic checkpoints, NaN/inf guard), `fit`
(training and selection), `evaluate` (valid and one test pass with the selected checkpoint,
order discrimination) and `record` (predictions and the run record, whose fields are
`benchmark.records.run_record.run_record`). What it prints is `benchmark.training.console`'s.
The entry point is `benchmark.train` (Hydra);
the bench, datacard, evaluate and prepare-data tools build their parts from here (the
DataModule: `benchmark.run.run_data`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, Timer

from benchmark.config.identity import config_id
from benchmark.config.precision import prepare_cpu_bf16, resolve_precision
from benchmark.config.threads import resolve_threads
from benchmark.evaluation.discrimination import discrimination_records
from benchmark.evaluation.published_permutations import published_permutations
from benchmark.evaluation.random_reference import random_baseline
from benchmark.metrics.breakdowns import breakdowns
from benchmark.metrics.corpus import HEADLINE_ACCURACY
from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.predictions_jsonl import write_predictions
from benchmark.records.records_from_batches import gather_records, with_meta
from benchmark.records.run_record import (
    PREDICTIONS_NAME,
    VOCAB_NAME,
    run_record,
    write_run_record,
)
from benchmark.records.seal import seal
from benchmark.run.data_checks import check_document_sizes, check_scorable_splits
from benchmark.run.environment import run_environment
from benchmark.run.model_builder import build_model, configured_preset, noise_options
from benchmark.run.plan import (
    CHECKPOINT_DIR,
    LAST_CHECKPOINT,
    RunPlan,
    check_resumed_data,
)
from benchmark.run.processes import one_process_environment
from benchmark.run.resume_info import ResumeInfo
from benchmark.run.run_data import build_datamodule, dataset_noise
from benchmark.stats.bootstrap import CI_ALPHA, bootstrap_summary
from benchmark.stats.discrimination_summary import add_to_record
from benchmark.training.checkpoints import (
    AtomicCheckpointIO,
    checkpoint_callbacks,
)
from benchmark.training.console import (
    EpochLines,
    data_line,
    is_verbose,
    model_line,
    progress_bars,
)
from benchmark.training.finite_guard import FiniteGuard
from benchmark.training.loggers import build_loggers
from benchmark.training.progress import (
    few_steps_warning,
    steps_per_epoch,
    training_progress,
)
from benchmark.training.resources import ResourceMeter, epoch_costs, resources
from benchmark.training.task import OrderingTask
from data.noise import has_noise, noise_label
from models.registry import Preset

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


def run_identity(cfg: DictConfig, datamodule, noise: str) -> dict:
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
            "noise": noise,
        },
        "budget": run_budget(cfg),
    }


def build_task(cfg: DictConfig, datamodule) -> OrderingTask:
    """The model preset for the DataModule's vocabulary, with its word vectors, in the
    LightningModule."""
    return wrap_task(cfg, build_model(cfg, datamodule.vocab)[0])


def wrap_task(cfg: DictConfig, net: torch.nn.Module) -> OrderingTask:
    """`net` in the LightningModule with the config's optimiser, scheduler, beams and
    evaluation settings."""
    optimizer = cfg.model.get("optimizer")
    scheduler = cfg.model.get("scheduler")  # optional, stepped per epoch (training.task)
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
        compile_step=bool(cfg.get("compile", False)),
        cuda_graphs=bool(cfg.get("cuda_graphs", False)),
    )


def trainer_precision(cfg: DictConfig):
    """`trainer.precision`, `auto` resolved for this machine (`resolve_precision`)."""
    return resolve_precision(cfg.trainer.get("accelerator"), cfg.trainer.get("precision"))


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
                 EpochLines(monitor), ResourceMeter()]  # fmt: skip
    if cfg.early_stopping.patience:
        callbacks.append(
            EarlyStopping(
                monitor=cfg.early_stopping.monitor, mode="max", patience=cfg.early_stopping.patience
            )
        )
    loggers = build_loggers(cfg.logger, plan.work_dir, plan.wandb_id, plan.resume_from)
    verbose = is_verbose(cfg)  # else one line per epoch (EpochLines), no bars or tables
    bar = bool(cfg.trainer.get("enable_progress_bar", True)) and verbose
    callbacks += progress_bars(verbose, bar)
    precision = {"precision": trainer_precision(cfg)} if "precision" in cfg.trainer else {}
    trainer = instantiate(
        cfg.trainer,
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


def warn_few_steps(cfg: DictConfig, datamodule) -> int:
    """Warn when an epoch of this run has fewer than 10 optimiser steps, saying what to
    change (`benchmark.training.progress.few_steps_warning`); returns the steps."""
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


def announce(cfg: DictConfig, built: BuiltRun) -> None:
    """The console's first lines: the data, then (after the warning for too few steps per
    epoch, if any) the model and its budget."""
    noise = built.noise
    log.info(data_line(
        noise_label(cfg.dataset.name, noise), noise_label(cfg.dataset.label, noise),
        built.data_stats, cfg.dataset.datamodule.get("min_freq"), cfg.model.get("embeddings"),
    ))
    steps = warn_few_steps(cfg, built.datamodule) if built.preset.trainable else None
    log.info(model_line(
        cfg.model.name, sum(p.numel() for p in built.task.net.parameters()),
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


@dataclass
class BuiltRun:
    """What `build` makes for one launch."""

    datamodule: pl.LightningDataModule
    task: OrderingTask
    trainer: pl.Trainer
    checkpoint: ModelCheckpoint  # the callback that selects on valid
    timer: Timer
    data_stats: dict  # the DataModule's statistics, with the words that had a vector
    noise: str  # the run's noise setting, "0", "1" or "0/1" (benchmark.run.run_data)
    preset: Preset  # the registered preset of `model.net` (its kind: trained, rule, baseline)


@dataclass
class FittedRun:
    """What `fit` leaves: the selected checkpoint and how the training went."""

    best: Path | None  # the checkpoint selected on valid (None: nothing was trained)
    train_seconds: float  # across resumes
    progress: dict  # epochs, best_epoch, steps, stopped_by (benchmark.training.progress)
    cpu_seconds_per_epoch: list[float]  # benchmark.training.resources
    threads_per_epoch: list[int | None]


@dataclass
class EvaluatedRun:
    """What `evaluate` leaves: the prediction records of valid and test (with each
    document's meta) and the discrimination records with their permutations' source."""

    split_records: dict[str, list[dict]]
    discrimination: list[dict] | None
    published: object | None  # PublishedPermutations, or None for the suite's own


def build(cfg: DictConfig, plan: RunPlan) -> BuiltRun:
    """Threads and seeds, the data (checked scorable and of the sizes expected, the same as
    a resumed run began on; its vocabulary saved beside the run), the model with its word
    vectors in the LightningModule, and the Trainer."""
    if threads := resolve_threads(cfg.cpu_threads):
        torch.set_num_threads(threads)
    if note := prepare_cpu_bf16(cfg.trainer.get("accelerator"), trainer_precision(cfg)):
        log.warning(note)
    pl.seed_everything(cfg.seed, workers=True, verbose=is_verbose(cfg))
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    noise = dataset_noise(cfg)
    check_scorable_splits(cfg.dataset.name, datamodule.documents, cfg.include_trivial,
                          has_noise(noise))
    check_document_sizes(cfg.dataset.name, datamodule.documents,
                         cfg.get("max_document_sentences"))
    check_resumed_data(plan, datamodule.identity()["documents_sha256"])
    atomic_write_text(plan.work_dir / VOCAB_NAME, datamodule.vocab.to_json())  # every rank
    net, vectors_found = build_model(cfg, datamodule.vocab)
    task = wrap_task(cfg, net)
    trainer, checkpoint, timer = build_trainer(cfg, plan)
    stats = {**datamodule.stats(), "n_pretrained_found": vectors_found}
    preset = configured_preset(cfg)
    built = BuiltRun(datamodule, task, trainer, checkpoint, timer, stats, noise, preset)
    if trainer.is_global_zero:
        announce(cfg, built)
    return built


def fit(built: BuiltRun, plan: RunPlan) -> FittedRun:
    """Train (unless the model has nothing to learn; from `plan.ckpt_path` when resuming)
    and select on valid."""
    trainable = built.preset.trainable
    if trainable:
        if plan.ckpt_path is not None:
            position = plan.resume_from
            after = f" (after epoch {position.epoch + 1})" if position is not None else ""
            log.info("resuming from %s%s", plan.ckpt_path, after)
        built.trainer.fit(
            built.task, datamodule=built.datamodule, ckpt_path=plan.ckpt_path, weights_only=True
        )
    train_seconds = built.timer.time_elapsed("train")  # includes the sessions before a resume
    best = own_best_checkpoint(built.checkpoint, plan.work_dir) if trainable else None
    progress = training_progress(built.trainer, best and str(best), trainable)
    built.task.selected_epoch = progress["best_epoch"] or 0  # figures logged at that epoch
    return FittedRun(best, train_seconds, progress, *epoch_costs(built.trainer))


def evaluate(cfg: DictConfig, built: BuiltRun, fitted: FittedRun) -> EvaluatedRun:
    """Valid and test, once, with the selected checkpoint (loaded safely), then order
    discrimination on test where it is defined (not with distractors); every process scores
    its share."""
    task, datamodule, trainer = built.task, built.datamodule, built.trainer
    for evaluate_split in (trainer.validate, trainer.test):
        evaluate_split(task, datamodule=datamodule, ckpt_path=fitted.best, verbose=False,
                       weights_only=True)
    discriminate = cfg.evaluate_discrimination and not has_noise(built.noise)
    if cfg.evaluate_discrimination and not discriminate:
        log.info("order discrimination skipped: it is not defined with distractors")
    published = published_permutations(cfg) if discriminate else None  # None: our own
    discrimination = (
        gather_records(discrimination_records(
            task.net, datamodule, "test", device=trainer.strategy.root_device,
            published=published,
        ))
        if discriminate
        else None
    )
    split_records = {  # with each document's meta, for the breakdowns
        split: with_meta(records, datamodule.documents[split])
        for split, records in task.split_records.items()
    }
    return EvaluatedRun(split_records, discrimination, published)


def record(
    cfg: DictConfig, built: BuiltRun, fitted: FittedRun, evaluated: EvaluatedRun, work_dir: Path
) -> dict:
    """Write the test predictions and the run record (`benchmark.records.run_record`),
    sealed with the digests of its files and parts (`benchmark.records.seal`), then drop
    `checkpoints/last.ckpt` (a finished run never resumes) unless `keep_last_checkpoint`."""
    noise = built.noise
    split_records = evaluated.split_records
    write_predictions(work_dir / PREDICTIONS_NAME, split_records["test"])
    split = built.task.split_metrics
    settings = {"include_trivial": cfg.include_trivial, "n_resamples": cfg.bootstrap_resamples,
                "seed": cfg.protocol_seed}
    result = run_record(
        model=cfg.model.name,
        # the label the run is filed and reported under (dataset.label, by default the name;
        # docs/design.md, section 8); the name that seeds the protocol is in `identity`
        dataset=noise_label(cfg.dataset.label, noise),
        variant=cfg.variant,
        seed=cfg.seed,
        split=split,
        ci={name: bootstrap_summary(records, **settings)
            for name, records in split_records.items()},
        breakdowns={name: breakdowns(records, include_trivial=cfg.include_trivial)
                    for name, records in split_records.items()},
        n_params=sum(p.numel() for p in built.task.net.parameters()),
        train_seconds=fitted.train_seconds,
        progress=fitted.progress,
        environment=run_environment(
            built.trainer.strategy.root_device, cfg.trainer.get("deterministic"),
            precision=built.trainer.precision, net=built.task.net,
        ),
        best_checkpoint=fitted.best and str(fitted.best.relative_to(work_dir)),
        resources=resources(fitted.cpu_seconds_per_epoch, fitted.progress["best_epoch"],
                            fitted.progress["epochs"], fitted.threads_per_epoch),
        data=built.data_stats,
        identity=run_identity(cfg, built.datamodule, noise),
        protocol=run_protocol(cfg, split["test"]["trivial_policy"], noise),
        config=OmegaConf.to_container(cfg, resolve=True),
    )
    if has_noise(noise) and cfg.evaluate_discrimination:
        result["protocol"]["discrimination"] = {
            "skipped": "noise: order discrimination scores complete gold orders"
        }
    if evaluated.discrimination is not None:
        add_to_record(
            result, "test", evaluated.discrimination, cfg.bootstrap_resamples,
            cfg.protocol_seed, published=evaluated.published,
        )
    if not has_noise(noise) and built.preset.kind != "baseline":  # figures to read it against
        result["random_baseline"] = random_baseline(
            built.datamodule, cfg.seed, cfg.include_trivial, cfg.bootstrap_resamples,
            cfg.protocol_seed,
        )
    result = seal(result, work_dir)  # the digests of its files and parts (records.seal)
    write_run_record(work_dir, result)
    if not cfg.get("keep_last_checkpoint", False):  # a finished run never resumes
        (work_dir / CHECKPOINT_DIR / LAST_CHECKPOINT).unlink(missing_ok=True)
    return result


def run_protocol(cfg: DictConfig, trivial_policy: str, noise: str) -> dict:
    """The record's `protocol`: the evaluation settings the run's figures were made with."""
    protocol = {
        "protocol_seed": cfg.protocol_seed,
        "trivial_policy": trivial_policy,
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
    }
    if has_noise(noise):
        protocol["noise"] = {
            "setting": noise,
            "distractors": "a sentence of another document of the same split, id -1",
            "draws": "valid/test: sha256(noise, dataset, split, document id, protocol_seed)",
            "end": "GO slot encoded with the sentences (Wang and Wan 2019, released code)",
            "options": noise_options(cfg),
        }
    return protocol


def run(cfg: DictConfig, run_dir: Path, plan: RunPlan) -> dict:
    """One launch in stages: `build`, `fit`, `evaluate`, `record`. Every file goes to
    `plan.work_dir` (the run directory, or the staging folder of a rerun); the record names
    the run's files relative to it. Processes other than the first return {}."""
    built = build(cfg, plan)
    fitted = fit(built, plan)
    evaluated = evaluate(cfg, built, fitted)
    if not built.trainer.is_global_zero:
        return {}
    return record(cfg, built, fitted, evaluated, plan.work_dir)
