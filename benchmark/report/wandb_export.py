"""Send the leaderboard (a `wandb.Table`) and the plots (`wandb.Image`s) to Weights & Biases.

Offline unless the user configures otherwise (`WANDB_MODE`), like the training runs:
nothing here needs a network; `wandb sync` uploads later. The project is the one of the
W&B logger config (`conf/logger/wandb.yaml`), `WANDB_PROJECT` overrides it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from benchmark.config.compose import CONF_DIR

LOGGER_CONFIG = CONF_DIR / "logger" / "wandb.yaml"


def _init(job_type: str):
    """A W&B run for `job_type` (`leaderboard`, `plots`), offline by default."""
    import wandb  # imported here: slow to import, and only needed with wandb=true

    os.environ.setdefault("WANDB_MODE", "offline")
    project = os.environ.get("WANDB_PROJECT") or OmegaConf.load(LOGGER_CONFIG).wandb.project
    # WANDB_DIR passed per run: W&B reads the environment once per process otherwise
    run = wandb.init(project=project, job_type=job_type, name=job_type,
                     dir=os.environ.get("WANDB_DIR"))
    return wandb, run


def log_leaderboard(table: pd.DataFrame) -> None:
    """Log the leaderboard table as `leaderboard` in a new W&B run."""
    wandb, run = _init("leaderboard")
    with run:
        plain = table.astype(object).where(table.notna(), None)  # pd.NA is not JSON
        run.log({"leaderboard": wandb.Table(dataframe=plain)})


def log_plots(images: Mapping[str, Path]) -> None:
    """Log each plot (name -> PNG path) as `plots/<name>` in a new W&B run."""
    wandb, run = _init("plots")
    with run:
        run.log({f"plots/{name}": wandb.Image(str(path)) for name, path in images.items()})
