"""Evaluate a finished run again with its best model: `orderbench evaluate RUN_DIR
task=order|discrimination [key=value ...]` (`benchmark.cli_commands.EVALUATE`).

`task=order` decodes the split again from the checkpoint (beam `beam`, default the run's
test beam) and prints its figures and bootstrap intervals as in `metrics.json`, without
changing the record; `predictions=FILE` also writes the predictions (docs/design.md, section 3).
FILE must lie outside every run directory (one run never writes into another: a run's
files belong to its record) and be a file that can be written, which is checked before
anything is decoded. A long decoding pass says how far it is (`PassProgress`).
`protocol_seed=N` presents the split as that protocol seed does (other fixed shuffles of the
same documents), which measures how much a figure depends on the presentation.
`max_tokens=N` (a model reading the joined paragraph, paragraph_*) cuts that input to N
positions and reports the documents cut apart (`benchmark.evaluation.input_cut`): what the
cut of long paragraphs costs.

`task=discrimination` is order discrimination (docs/design.md, section 4;
`benchmark.evaluation.discrimination`; Barzilay & Lapata 2008, Cui et al. 2018). The run's
config (`.hydra/config.yaml`) rebuilds its DataModule and model exactly as in training; the
weights come from the checkpoint selected on valid (`checkpoints/best.ckpt`; a model with
nothing to train, such as `model=random`, needs none). The figures are printed as one JSON
object (NaN as null) and merged into the run's `metrics.json`: `split.<split>.disc_acc`
etc., their intervals in `ci.<split>` and the settings in `protocol.discrimination`, written
atomically after everything was computed, so a failure leaves the record as it was. Runs on
a GPU when one is visible.

Before anything of the run is used, its record is checked with the files the model is
loaded from, and the data with the documents the run was made on
(`benchmark.run.finished_run`; docs/design.md, section 8): a figure out of its range, a file
changed after the run or other data is refused, naming the file and what differs. The
figures added by `task=discrimination` are sealed with the record's other parts
(`benchmark.records.seal.reseal`).

Errors (a missing run directory, config, record or checkpoint, a record that cannot be
trusted, a read-only run directory, a bad argument or an output that cannot be written)
print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from benchmark.cli_arguments import report_error, warnings_printed
from benchmark.cli_commands import EVALUATE
from benchmark.evaluation.discrimination import discrimination_records
from benchmark.evaluation.input_cut import InputCut, paragraph_encoder
from benchmark.metrics.corpus import score_records, summarise
from benchmark.records.predictions_jsonl import write_predictions
from benchmark.records.records_from_batches import records_from_batch, with_meta
from benchmark.records.run_collection import enclosing_run_dir
from benchmark.records.run_record import write_run_record
from benchmark.records.seal import is_sealed, reseal
from benchmark.run.finished_run import RunError, load_finished_run
from benchmark.run.lock import RunLockedError, run_lock
from benchmark.run.run_data import dataset_noise
from benchmark.score import json_safe
from benchmark.stats.bootstrap import bootstrap_summary
from benchmark.stats.discrimination_summary import add_to_record
from benchmark.training.console import PassProgress
from data.noise import has_noise
from models.batch import to_device


def parse_args(argv: Sequence[str]) -> dict:
    """The arguments (`EVALUATE`) -> `run` (Path), `task`, `split`, `beam`, `protocol_seed`
    and `max_tokens` (int or None), `predictions`, `max_permutations` (int)."""
    args = EVALUATE.parse(argv)
    return {**args, "run": Path(args["run"])}


def evaluate_discrimination(run_dir: Path, split: str, max_permutations: int) -> dict:
    """Discrimination figures of a run's `split`, merged into its record; returns them."""
    if not run_dir.is_dir():
        raise RunError(f"{run_dir}: no such run directory")
    # the record is rewritten: no launch may train there meanwhile
    with run_lock(run_dir, "the discrimination figures cannot be merged into its record"):
        return _evaluate_discrimination(run_dir, split, max_permutations)


def _evaluate_discrimination(run_dir: Path, split: str, max_permutations: int) -> dict:
    run = load_finished_run(run_dir, finished=True)
    cfg, net, datamodule = run.config, run.net, run.datamodule()
    if has_noise(dataset_noise(cfg)):
        raise RunError(
            f"{run_dir}: order discrimination is not defined for a run with distractors "
            f"(dataset.noise={cfg.dataset.noise}): it scores complete orders of the gold sentences"
        )
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    start = time.perf_counter()
    records = discrimination_records(net, datamodule, split, max_permutations, device)
    seconds = time.perf_counter() - start
    record = run.record  # verified under the lock: the freshest
    figures = add_to_record(
        record, split, records, cfg.bootstrap_resamples, cfg.protocol_seed, max_permutations
    )
    write_run_record(run_dir, reseal(record) if is_sealed(record) else record)
    return {"run_dir": str(run_dir), "split": split, **figures, "seconds": round(seconds, 2)}


def check_output(path: Path, key: str) -> None:
    """RunError, one line naming `key`, unless `path` is a file that can be written
    outside every run directory (a run's files belong to its record: one run never writes
    into another); checked before anything is computed."""
    if path.is_dir():
        raise RunError(f"{key}={path}: a folder, not a file; name the file to write")
    if (run := enclosing_run_dir(path)) is not None:
        raise RunError(f"{key}={path}: inside the run directory {run}, whose files belong to "
                       "its record; write it outside every run directory")
    folder = next(parent for parent in path.absolute().parents if parent.exists())
    if not folder.is_dir():
        raise RunError(f"{key}={path}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise RunError(f"{key}={path}: cannot be written ({folder} is read-only)")


@torch.no_grad()
def evaluate_order(
    run_dir: Path,
    split: str,
    beam: int | None = None,
    predictions: str | None = None,
    protocol_seed: int | None = None,
    max_tokens: int | None = None,
) -> dict:
    """Decode a run's `split` again with its best model -> its figures and intervals (the
    record is left as it is); `predictions` also writes the prediction records there
    (`check_output`: outside every run directory). With `protocol_seed`, the split is
    presented as that protocol seed presents it: how much a figure depends on the
    presentation (docs/design.md, section 5). With `max_tokens`, a paragraph encoder's joined
    input is cut to that many positions and the result's `input_cut` tells the documents
    cut apart (`benchmark.evaluation.input_cut`)."""
    if predictions is not None:
        check_output(Path(predictions), "predictions")
    run = load_finished_run(run_dir, finished=True)
    cfg, datamodule = run.config, run.datamodule(protocol_seed=protocol_seed)
    beam = run.default_beam_size if beam is None else beam
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = run.net.to(device).eval()
    cut = None
    if max_tokens is not None:
        try:
            encoder = paragraph_encoder(net, cfg.model.name)
            encoder.limit_input(max_tokens)
        except ValueError as error:
            raise RunError(f"{run_dir}: {error}") from None
        cut = InputCut(encoder)
    noisy = has_noise(dataset_noise(cfg))
    start = time.perf_counter()
    records = []
    loader = datamodule.eval_dataloader(split)
    progress = PassProgress(f"decoding {split}", len(loader),
                            lambda line: print(f"{EVALUATE.prog}: {line}", file=sys.stderr))
    for done, batch in enumerate(loader, 1):
        batch = to_device(batch, device)
        records += records_from_batch(batch, net.decode(batch, beam_size=beam), noisy)
        if cut is not None:
            cut.count(batch)
        progress.step(done)
    seconds = time.perf_counter() - start
    records.sort(key=lambda record: record["id"])
    if predictions is not None:  # as the run wrote its own, each document's meta included
        write_predictions(predictions, with_meta(records, datamodule.documents[split]))
    figures = summarise(score_records(records, cfg.include_trivial))
    intervals = bootstrap_summary(
        records, cfg.include_trivial, cfg.bootstrap_resamples, seed=cfg.protocol_seed
    )
    presented = cfg.protocol_seed if protocol_seed is None else protocol_seed
    return {
        "run_dir": str(run_dir), "split": split, "beam_size": beam, "protocol_seed": presented,
        **figures, "ci": intervals, "seconds": round(seconds, 2),
        **({} if cut is None else {"input_cut": cut.summary(records, cfg.include_trivial)}),
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    return EVALUATE.run(argv, _evaluate, parse_args)


def _evaluate(args: dict) -> int:
    try:
        with warnings_printed(EVALUATE.prog, on_error=False):  # unsealed: said once
            if args["task"] == "order":
                result = evaluate_order(args["run"], args["split"], args["beam"],
                                        args["predictions"], args["protocol_seed"],
                                        args["max_tokens"])  # fmt: skip
            else:
                result = evaluate_discrimination(args["run"], args["split"],
                                                 args["max_permutations"])  # fmt: skip
    except (RunError, RunLockedError, OSError) as error:  # OSError: a file not written
        return report_error(EVALUATE.prog, error)
    print(json.dumps(json_safe(result), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
