"""The last stage: the test predictions and the run record (`benchmark.records.run_record`),
sealed with the digests of its files and parts (docs/design.md, sections 3 and 8).
"""

from __future__ import annotations

import logging
from pathlib import Path

from omegaconf import OmegaConf

from benchmark.evaluation.random_reference import random_baseline
from benchmark.metrics.breakdowns import breakdowns
from benchmark.metrics.corpus import HEADLINE_ACCURACY
from benchmark.records.predictions_jsonl import write_predictions
from benchmark.records.run_record import PREDICTIONS_NAME, run_record, write_run_record
from benchmark.records.seal import seal
from benchmark.run.environment import run_environment
from benchmark.run.plan import CHECKPOINT_DIR, LAST_CHECKPOINT
from benchmark.run.spec import RunSpec
from benchmark.run.stages.build import BuiltRun
from benchmark.run.stages.evaluate import EvaluatedRun
from benchmark.run.stages.fit import FittedRun
from benchmark.stats.bootstrap import CI_ALPHA, bootstrap_summary
from benchmark.stats.discrimination_summary import add_to_record
from benchmark.training.resources import resources

log = logging.getLogger(__name__)


def record(
    spec: RunSpec, built: BuiltRun, fitted: FittedRun, evaluated: EvaluatedRun, work_dir: Path
) -> dict:
    """Write the test predictions and the run record (`benchmark.records.run_record`),
    sealed with the digests of its files and parts (`benchmark.records.seal`), then drop
    `checkpoints/last.ckpt` (a finished run never resumes) unless `keep_last_checkpoint`."""
    split_records = evaluated.split_records
    write_predictions(work_dir / PREDICTIONS_NAME, split_records["test"])
    split = built.task.split_metrics
    settings = {"include_trivial": spec.include_trivial,
                "n_resamples": spec.bootstrap_resamples, "seed": spec.protocol_seed}
    result = run_record(
        model=spec.model_name,
        # the label the run is filed and reported under (dataset.label, by default the name;
        # docs/design.md, section 8); the name that seeds the protocol is in `identity`
        dataset=spec.dataset_label,
        variant=spec.variant,
        seed=spec.seed,
        split=split,
        ci={name: bootstrap_summary(records, **settings)
            for name, records in split_records.items()},
        breakdowns={name: breakdowns(records, include_trivial=spec.include_trivial)
                    for name, records in split_records.items()},
        n_params=sum(p.numel() for p in built.task.net.parameters()),
        train_seconds=fitted.train_seconds,
        progress=fitted.progress,
        environment=run_environment(
            built.trainer.strategy.root_device, spec.deterministic,
            precision=built.trainer.precision, net=built.task.net,
        ),
        best_checkpoint=fitted.best and str(fitted.best.relative_to(work_dir)),
        resources=resources(fitted.cpu_seconds_per_epoch, fitted.progress["best_epoch"],
                            fitted.progress["epochs"], fitted.threads_per_epoch,
                            fitted.precision_per_epoch),
        data=built.data_stats,
        identity=run_identity(spec, built.datamodule),
        protocol=run_protocol(spec, split["test"]["trivial_policy"]),
        config=OmegaConf.to_container(spec.config, resolve=True),
    )
    if spec.noisy and spec.evaluate_discrimination:
        result["protocol"]["discrimination"] = {
            "skipped": "noise: order discrimination scores complete gold orders"
        }
    if evaluated.discrimination is not None:
        add_to_record(
            result, "test", evaluated.discrimination, spec.bootstrap_resamples,
            spec.protocol_seed, published=evaluated.published,
        )
    if not spec.noisy and spec.preset.kind != "baseline":  # figures to read it against
        result["random_baseline"] = random_baseline(
            built.datamodule, spec.seed, spec.include_trivial, spec.bootstrap_resamples,
            spec.protocol_seed,
        )
    result = seal(result, work_dir)  # the digests of its files and parts (records.seal)
    write_run_record(work_dir, result)
    if not spec.keep_last_checkpoint:  # a finished run never resumes
        (work_dir / CHECKPOINT_DIR / LAST_CHECKPOINT).unlink(missing_ok=True)
    return result


def run_identity(spec: RunSpec, datamodule) -> dict:
    """What makes two runs' figures comparable (docs/design.md, section 8): the config
    id of the run directory, the data (name and documents digest), the protocol (the seed
    and digests of the fixed valid/test presentation, the trivial-document policy, the
    noise setting) and the budget. Reports pair or pool runs only when the data and
    protocol agree, and say when budgets differ."""
    data = datamodule.identity()
    return {
        "config_id": spec.config_id,
        "data": {"name": data["name"], "documents_sha256": data["documents_sha256"]},
        "protocol": {
            "protocol_seed": spec.protocol_seed,
            "presentation_sha256": data["presentation_sha256"],
            "include_trivial": spec.include_trivial,
            "noise": spec.noise,
        },
        "budget": spec.budget,
    }


def run_protocol(spec: RunSpec, trivial_policy: str) -> dict:
    """The record's `protocol`: the evaluation settings the run's figures were made with."""
    protocol = {
        "protocol_seed": spec.protocol_seed,
        "trivial_policy": trivial_policy,
        "accuracy": HEADLINE_ACCURACY,  # the leaderboard's accuracy; acc_pooled beside it
        "ci": {
            "method": "percentile bootstrap over documents",
            "n_resamples": spec.bootstrap_resamples,
            "alpha": CI_ALPHA,
            "seed": spec.protocol_seed,
        },
        "val_beam_size": spec.val_beam_size,
        "test_beam_size": spec.beam_size,
        "selection": f"{spec.monitor} (valid only)",
    }
    if spec.noisy:
        protocol["noise"] = {
            "setting": spec.noise,
            "distractors": "a sentence of another document of the same split, id -1",
            "draws": "valid/test: sha256(noise, dataset, split, document id, protocol_seed)",
            "end": "GO slot encoded with the sentences (Wang and Wan 2019, released code)",
            "options": dict(spec.noise_options),
        }
    return protocol
