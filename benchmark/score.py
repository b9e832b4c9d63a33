"""Score a predictions file: `orderbench score FILE` (`benchmark.cli_commands.SCORE`).

Prints the corpus metrics of docs/design.md, section 4 as one JSON object on stdout: the keys of
a split in `metrics.json` (`tau`, `acc`, `pmr`, `head`, `tail`, `lcs`, `coherence_L`,
`acc_pooled`, `lcs_pooled`, `pm_f`, `n_docs`, `n_trivial`, `trivial_policy`; for a file with
distractors also `noise_acc` and `n_docs_order`), computed by the same
`benchmark.metrics.corpus.summarise` as the training harness, so re-scoring a run's
`predictions.jsonl` reproduces its `metrics.json`. `bootstrap=N` adds `ci`: a
percentile-bootstrap interval over documents for every metric (docs/design.md, section 5);
`breakdowns=true` adds the figures by paragraph length and by categorical meta field.
NaN (no scorable documents) is printed as null. The `predictions.jsonl` of a run folder is
checked against the run's sealed record first (docs/design.md, section 8): a file changed
after the run, or a record with a figure out of its range, is refused. Bad input: one line
on stderr naming the file, line, document and reason, and exit status 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmark.cli_arguments import report_error, warnings_printed
from benchmark.cli_commands import SCORE
from benchmark.metrics.breakdowns import breakdowns
from benchmark.metrics.corpus import score_records, summarise
from benchmark.records.json_values import json_safe
from benchmark.records.predictions_jsonl import Prediction, read_predictions
from benchmark.records.verified_predictions import run_record_of
from benchmark.stats.bootstrap import CI_ALPHA, bootstrap_metrics


def score_predictions(
    records: Sequence[Prediction],
    include_trivial: bool = False,
    n_bootstrap: int = 0,
    seed: int = 0,
    with_breakdowns: bool = False,
) -> dict:
    """Corpus figures of validated records.

    With `n_bootstrap` > 0 also `ci` and `bootstrap` (its settings); with
    `with_breakdowns` also `breakdowns` (`benchmark.metrics.breakdowns.breakdowns`).
    """
    mappings = [record.to_json() for record in records]
    scored = score_records(mappings, include_trivial)
    result = summarise(scored)
    if n_bootstrap > 0:
        result["ci"] = bootstrap_metrics(scored, n_bootstrap, CI_ALPHA, seed)
        result["bootstrap"] = {"n_resamples": n_bootstrap, "alpha": CI_ALPHA, "seed": seed}
    if with_breakdowns:
        result["breakdowns"] = breakdowns(mappings, include_trivial)
    return result


def score_file(
    path: str | Path,
    include_trivial: bool = False,
    n_bootstrap: int = 0,
    seed: int = 0,
    with_breakdowns: bool = False,
) -> dict:
    """Read, validate and score a `predictions.jsonl` (see `score_predictions`); a run's
    own file is checked against its record's seal first (`run_record_of`)."""
    run_record_of(path)
    records = read_predictions(path)
    return score_predictions(records, include_trivial, n_bootstrap, seed, with_breakdowns)


def main(argv: Sequence[str] | None = None) -> int:
    return SCORE.run(argv, _score)


def _score(args: dict) -> int:
    try:
        with warnings_printed(SCORE.prog):
            result = score_file(args["predictions"], args["include_trivial"], args["bootstrap"],
                                args["seed"], args["breakdowns"])  # fmt: skip
    except (ValueError, OSError) as error:
        return report_error(SCORE.prog, error)
    print(json.dumps(json_safe(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
