"""Train one ordering model on one dataset and score it: `python -m benchmark.train`.

A Hydra app (configs in `conf/`). The run directory receives the best checkpoint
(selected on valid), `predictions.jsonl` for the test split, the CSV/W&B logs, Hydra's
`.hydra/` and, last and atomically, `metrics.json` (DESIGN sections 3 and 5).
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import hydra
import pytorch_lightning as pl
from hydra.core.hydra_config import HydraConfig
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint

from benchmark.bootstrap import bootstrap_summary
from benchmark.lit_module import OrderingTask
from benchmark.predictions import write_predictions
from benchmark.run_record import PREDICTIONS_NAME, git_commit, write_run_record

log = logging.getLogger(__name__)


def build_datamodule(cfg: DictConfig) -> pl.LightningDataModule:
    """The dataset's DataModule, with the model's word vectors and the protocol seeds."""
    return instantiate(
        cfg.dataset.datamodule,
        reader=instantiate(cfg.dataset.reader),
        seed=cfg.seed,
        protocol_seed=cfg.protocol_seed,
        embeddings=cfg.model.get("embeddings"),
        embedding_dim=cfg.model.get("embedding_dim", 50),
    )


def build_task(cfg: DictConfig, datamodule) -> OrderingTask:
    """The model preset wrapped in the LightningModule."""
    net = instantiate(
        cfg.model.net,
        vocab_size=len(datamodule.vocab),
        pretrained_embeddings=datamodule.pretrained_embeddings,
    )
    optimizer = cfg.model.get("optimizer")
    return OrderingTask(
        net,
        optimizer=instantiate(optimizer) if optimizer is not None else None,
        val_beam_size=cfg.model.val_beam_size,
        test_beam_size=cfg.model.beam_size,
        include_trivial=cfg.include_trivial,
    )


def build_trainer(cfg: DictConfig, run_dir: Path) -> tuple[pl.Trainer, ModelCheckpoint]:
    """The Trainer with model selection on valid (checkpoint + early stopping)."""
    checkpoint = ModelCheckpoint(
        dirpath=run_dir / "checkpoints",
        filename="best",
        monitor=cfg.early_stopping.monitor,
        mode="max",
        save_last=True,
    )
    callbacks = [checkpoint]
    if cfg.early_stopping.patience:
        callbacks.append(
            EarlyStopping(
                monitor=cfg.early_stopping.monitor, mode="max", patience=cfg.early_stopping.patience
            )
        )
    loggers = [instantiate(logger_cfg) for logger_cfg in (cfg.logger or {}).values()]
    trainer = instantiate(
        cfg.trainer, callbacks=callbacks, logger=loggers or False, default_root_dir=run_dir
    )
    return trainer, checkpoint


def run(cfg: DictConfig, run_dir: Path) -> dict:
    """Train (unless the model has nothing to learn), select on valid, test once."""
    pl.seed_everything(cfg.seed, workers=True)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    task = build_task(cfg, datamodule)
    trainer, checkpoint = build_trainer(cfg, run_dir)

    started = time.perf_counter()
    trainable = getattr(task.net, "trainable", True)
    if trainable:
        trainer.fit(task, datamodule=datamodule)
    train_seconds = time.perf_counter() - started
    ckpt_path = "best" if trainable and checkpoint.best_model_path else None
    trainer.validate(task, datamodule=datamodule, ckpt_path=ckpt_path, verbose=False)
    trainer.test(task, datamodule=datamodule, ckpt_path=ckpt_path, verbose=False)

    if not trainer.is_global_zero:
        return {}
    write_predictions(run_dir / PREDICTIONS_NAME, task.split_records["test"])
    record = {
        "model": cfg.model.name,
        "dataset": cfg.dataset.name,
        "variant": cfg.variant,
        "seed": cfg.seed,
        "split": task.split_metrics,
        "ci": {
            split: bootstrap_summary(
                records, include_trivial=cfg.include_trivial,
                n_resamples=cfg.bootstrap_resamples, seed=cfg.protocol_seed,
            )
            for split, records in task.split_records.items()
        },
        "n_params": sum(p.numel() for p in task.net.parameters()),
        "train_seconds": round(train_seconds, 2),
        "epochs": trainer.current_epoch,
        "best_checkpoint": checkpoint.best_model_path or None,
        "n_docs": task.split_metrics["test"]["n_docs"],
        "n_trivial": task.split_metrics["test"]["n_trivial"],
        "data": datamodule.stats(),
        "protocol": {
            "protocol_seed": cfg.protocol_seed,
            "trivial_policy": task.split_metrics["test"]["trivial_policy"],
            "val_beam_size": cfg.model.val_beam_size,
            "test_beam_size": cfg.model.beam_size,
            "selection": f"{cfg.early_stopping.monitor} (valid only)",
        },
        "config": OmegaConf.to_container(cfg, resolve=True),
        "git_commit": git_commit(),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    write_run_record(run_dir, record)
    return record


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    os.environ.setdefault("WANDB_MODE", "offline")
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    record = run(cfg, run_dir)
    if record:
        print(json.dumps({"run_dir": str(run_dir), "test": record["split"]["test"]}, indent=2))


if __name__ == "__main__":
    main()
