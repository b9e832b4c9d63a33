"""The third stage: valid and one test pass with the selected checkpoint, then order
discrimination on test where it is defined (docs/design.md, section 5).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from benchmark.evaluation.discrimination import discrimination_records
from benchmark.evaluation.published_permutations import published_permutations
from benchmark.records.records_from_batches import gather_records, with_meta
from benchmark.run.spec import RunSpec
from benchmark.run.stages.build import BuiltRun
from benchmark.run.stages.fit import FittedRun

log = logging.getLogger(__name__)


@dataclass
class EvaluatedRun:
    """What `evaluate` leaves: the prediction records of valid and test (with each
    document's meta) and the discrimination records with their permutations' source."""

    split_records: dict[str, list[dict]]
    discrimination: list[dict] | None
    published: object | None  # PublishedPermutations, or None for the suite's own


def evaluate(spec: RunSpec, built: BuiltRun, fitted: FittedRun) -> EvaluatedRun:
    """Valid and test, once, with the selected checkpoint (loaded safely), then order
    discrimination on test where it is defined (not with distractors); every process scores
    its share."""
    task, datamodule, trainer = built.task, built.datamodule, built.trainer
    for evaluate_split in (trainer.validate, trainer.test):
        evaluate_split(task, datamodule=datamodule, ckpt_path=fitted.best, verbose=False,
                       weights_only=True)
    discriminate = spec.evaluate_discrimination and not spec.noisy
    if spec.evaluate_discrimination and not discriminate:
        log.info("order discrimination skipped: it is not defined with distractors")
    published = published_permutations(spec.config) if discriminate else None  # None: ours
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
