"""W&B runs that follow the run directory: one W&B run per training, continued (same id)
when the training resumes from its checkpoint, and closed when the job ends so that the
next job of an in-process multirun opens its own."""

from __future__ import annotations

import sys

from hydra.utils import instantiate
from omegaconf import DictConfig

from benchmark.harness.run_plan import RunPlan


def build_loggers(logger_cfgs: DictConfig | None, plan: RunPlan) -> list:
    """Instantiate `cfg.logger` writing into the plan's work folder (the run directory, or
    the staging folder of a rerun); a logger config with `id: null` gets the run's W&B id,
    a resumable CSV log the checkpoint the run resumes from."""
    loggers = []
    for logger_cfg in (logger_cfgs or {}).values():
        options = {"save_dir": str(plan.work_dir)} if "save_dir" in logger_cfg else {}
        if "id" in logger_cfg and logger_cfg.id is None:
            options["id"] = plan.wandb_id
        logger = instantiate(logger_cfg, **options)
        if hasattr(logger, "continue_from"):  # the CSV log keeps the epochs before a resume
            logger.continue_from(plan.resume_from)
        loggers.append(logger)
    return loggers


def finish_wandb(failed: bool) -> None:
    """Close the W&B run this process opened, if any."""
    wandb = sys.modules.get("wandb")
    if wandb is not None and wandb.run is not None:
        wandb.finish(exit_code=1 if failed else 0)
