"""Send the leaderboard (a `wandb.Table`), beside it each run's test predictions (a
`wandb.Table` per run: gold, predicted, tau per document, worst first), and the plots
(`wandb.Image`s) to Weights & Biases.

Offline unless the user configures otherwise (`WANDB_MODE`), like the training runs:
nothing here needs a network; `wandb sync` uploads later. The project is the one of the
W&B logger config (`conf/logger/wandb.yaml`), `WANDB_PROJECT` overrides it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from benchmark.config.compose import CONF_DIR
from benchmark.records.run_collection import Run
from benchmark.report.document_rows import document_row, worst_first

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


PREDICTION_COLUMNS = ["id", "gold", "predicted", "tau"]


def predictions_key(run: Run) -> str:
    """The key of a run's predictions table: `predictions/<dataset>/<preset>/<variant>/seed_<n>`."""
    return f"predictions/{run.dataset}/{run.preset}/{run.variant}/seed_{run.seed}"


def prediction_rows(run: Run) -> list[list]:
    """The rows of a run's predictions table, worst tau first (`PREDICTION_COLUMNS`)."""
    rows = worst_first([document_row(p) for p in run.predictions()])
    return [[r["id"], r["gold"], r["pred"], r["tau"]] for r in rows]


def log_leaderboard(table: pd.DataFrame, runs: Sequence[Run] = ()) -> list[str]:
    """Log the leaderboard table as `leaderboard` in a new W&B run, and beside it the test
    predictions of each of `runs` that has its `predictions.jsonl` (`predictions_key`);
    returns the runs' keys left out, each with why."""
    wandb, run = _init("leaderboard")
    tables, left = {}, []
    for finished in runs:
        try:
            rows = prediction_rows(finished)
        except (OSError, ValueError) as error:  # no predictions.jsonl: the record alone
            left.append(f"{predictions_key(finished)}: {' '.join(str(error).split())}")
            continue
        tables[predictions_key(finished)] = wandb.Table(columns=PREDICTION_COLUMNS, data=rows)
    with run:
        plain = table.astype(object).where(table.notna(), None)  # pd.NA is not JSON
        run.log({"leaderboard": wandb.Table(dataframe=plain), **tables})
    return left


def log_plots(images: Mapping[str, Path]) -> None:
    """Log each plot (name -> PNG path) as `plots/<name>` in a new W&B run."""
    wandb, run = _init("plots")
    with run:
        run.log({f"plots/{name}": wandb.Image(str(path)) for name, path in images.items()})
