"""The callback that makes a fresh training resumable from its first epoch on: its config,
W&B id and data digest written beside the checkpoints (`benchmark.run.plan` reads them on a
relaunch)."""

from __future__ import annotations

import json

import pytorch_lightning as pl

from benchmark.records.atomic_io import atomic_write_text
from benchmark.run.plan import CHECKPOINT_DIR, RESUME_INFO, RunPlan


class ResumeInfo(pl.Callback):
    """When a fresh training starts (global-zero process, before any checkpoint exists):
    writes `checkpoints/resume.json` with its config and W&B id in the plan's work folder, so
    that an interruption from here on resumes."""

    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan

    def on_fit_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.plan.action != "fresh" or not trainer.is_global_zero:
            return
        info = {
            "config": self.plan.config,
            "wandb_id": self.plan.wandb_id,
            "documents_sha256": trainer.datamodule.identity()["documents_sha256"],
        }
        atomic_write_text(
            self.plan.work_dir / CHECKPOINT_DIR / RESUME_INFO,
            json.dumps(info, indent=2, sort_keys=True) + "\n",
        )
