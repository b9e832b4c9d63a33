"""Score a predictions file: `python -m benchmark.score PREDICTIONS.jsonl`.

Prints the corpus metrics of DESIGN section 4 as one JSON object on stdout: the keys of
a split in `metrics.json` (`tau`, `acc`, `acc_pooled`, `pmr`, `head`, `tail`, `lcs`,
`coherence_L`, `n_docs`, `n_trivial`, `trivial_policy`), computed by the same
`corpus_metrics` as the training harness, so re-scoring a run's `predictions.jsonl`
reproduces its `metrics.json`. `--bootstrap N` adds `ci`: a percentile-bootstrap interval
over documents for every metric (DESIGN section 5). NaN (no scorable documents) is
printed as null. Bad input: one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from benchmark.bootstrap import bootstrap_metrics
from benchmark.metrics import score_documents, summarise
from benchmark.predictions import Prediction, read_predictions

EXIT_BAD_INPUT = 2
CI_ALPHA = 0.05  # 95% intervals (DESIGN section 5)


def score_records(
    records: Sequence[Prediction],
    include_trivial: bool = False,
    n_bootstrap: int = 0,
    seed: int = 0,
) -> dict:
    """Corpus metrics of validated records; with `n_bootstrap` > 0 also `ci` and `bootstrap`."""
    for record in records:
        if record.noise is not None:
            raise ValueError(
                f"{record.where}: document {record.id!r} has distractors ('noise'): scoring "
                "the noise setting (pm_f, noise_acc) is not available yet"
            )
    per_doc, n_trivial = score_documents(((r.gold, r.pred) for r in records), include_trivial)
    result = summarise(per_doc, n_trivial, include_trivial)
    if n_bootstrap > 0:
        result["ci"] = bootstrap_metrics(per_doc, n_bootstrap, CI_ALPHA, seed)
        result["bootstrap"] = {"n_resamples": n_bootstrap, "alpha": CI_ALPHA, "seed": seed}
    return result


def score_file(
    path: str | Path, include_trivial: bool = False, n_bootstrap: int = 0, seed: int = 0
) -> dict:
    """Read, validate and score a `predictions.jsonl` (see `score_records`)."""
    return score_records(read_predictions(path), include_trivial, n_bootstrap, seed)


def _json_safe(value):
    """NaN and infinities -> None, recursively, so the output is standard JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmark.score",
        description="Score a predictions.jsonl with the OrderBench metrics.",
    )
    parser.add_argument("predictions", type=Path, help="predictions.jsonl to score")
    parser.add_argument(
        "--include-trivial",
        action="store_true",
        help="count one-sentence documents as perfect (default: exclude them)",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="N",
        help="add 95%% bootstrap CIs over documents from N resamples",
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    args = parser.parse_args(argv)
    if args.bootstrap < 0:
        parser.error(f"--bootstrap must be >= 0, got {args.bootstrap}")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = score_file(args.predictions, args.include_trivial, args.bootstrap, args.seed)
    except (ValueError, OSError) as error:
        message = " ".join(str(error).split())
        print(f"benchmark.score: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for warning in caught:
        print(f"benchmark.score: warning: {warning.message}", file=sys.stderr)
    print(json.dumps(_json_safe(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
