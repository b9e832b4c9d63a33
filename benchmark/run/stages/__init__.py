"""One launch in four stages, a module each (docs/design.md, sections 3, 5 and 8): `build`
(the DataModule, the model with its word vectors in the LightningModule, the Trainer: model
selection on valid, resumable, atomic checkpoints, NaN/inf guard), `fit` (training and
selection), `evaluate` (valid and one test pass with the selected checkpoint, order
discrimination) and `record` (predictions and the run record, whose fields are
`benchmark.records.run_record.run_record`). The config is read once, into the frozen
`benchmark.run.spec.RunSpec` that every stage reads. What a launch prints is
`benchmark.training.console`'s. The entry point is `benchmark.train` (Hydra); the bench,
datacard, evaluate and prepare-data tools build their parts from here (the DataModule:
`benchmark.run.run_data`).
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from benchmark.run.plan import RunPlan
from benchmark.run.run_data import build_datamodule
from benchmark.run.spec import read_spec
from benchmark.run.stages.build import build, build_task
from benchmark.run.stages.evaluate import evaluate
from benchmark.run.stages.fit import fit
from benchmark.run.stages.record import record

__all__ = ["build_datamodule", "build_task", "run"]  # the parts other tools build from here


def run(cfg: DictConfig, run_dir: Path, plan: RunPlan) -> dict:
    """One launch in stages: `build`, `fit`, `evaluate`, `record`. Every file goes to
    `plan.work_dir` (the run directory, or the staging folder of a rerun); the record names
    the run's files relative to it. Processes other than the first return {}."""
    spec = read_spec(cfg)  # the config is read here once; the stages read the spec
    built = build(spec, plan)
    fitted = fit(spec, built, plan)
    evaluated = evaluate(spec, built, fitted)
    if not built.trainer.is_global_zero:
        return {}
    return record(spec, built, fitted, evaluated, plan.work_dir)
