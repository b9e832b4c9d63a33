"""W&B runs that follow the run directory: one W&B run per training, continued (same id)
when the training resumes from its checkpoint, and closed when the job ends so that the
next job of an in-process multirun opens its own."""

from __future__ import annotations

import sys
from pathlib import Path

from hydra.utils import instantiate
from omegaconf import DictConfig

from benchmark.training.checkpoint_position import CheckpointPosition


def build_loggers(
    logger_cfgs: DictConfig | None, save_dir: Path, wandb_id: str,
    resume_from: CheckpointPosition | None,
) -> list:
    """Instantiate `cfg.logger` writing into `save_dir` (the run directory, or the staging
    folder of a rerun); a logger config with `id: null` gets the run's W&B id `wandb_id`, a
    resumable CSV log the checkpoint the run resumes from."""
    loggers = []
    for logger_cfg in (logger_cfgs or {}).values():
        options = {"save_dir": str(save_dir)} if "save_dir" in logger_cfg else {}
        if "id" in logger_cfg and logger_cfg.id is None:
            options["id"] = wandb_id
        logger = instantiate(logger_cfg, **options)
        if hasattr(logger, "continue_from"):  # the CSV log keeps the epochs before a resume
            logger.continue_from(resume_from)
        loggers.append(logger)
    return loggers


def finish_wandb(failed: bool) -> None:
    """Close the W&B run this process opened, if any."""
    wandb = sys.modules.get("wandb")
    if wandb is not None and wandb.run is not None:
        wandb.finish(exit_code=1 if failed else 0)
