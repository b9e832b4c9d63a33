"""Compare two runs on the same test documents: `orderbench compare RUN_A RUN_B`
(`benchmark.cli_commands.COMPARE`).

RUN_A and RUN_B are run directories (their `predictions.jsonl`; the run must have
finished, i.e. have its `metrics.json`) or `predictions.jsonl` files, or row directories
holding one finished run per seed (`runs/brown/lstm_ptrnet/base/<config id>`, its
`seed_*/`; `runs/brown/lstm_ptrnet/base` itself when it holds one config only). Runs
evaluated under different protocols (other test permutations, documents or trivial policy;
`benchmark.records.comparability`) are refused, naming the difference, and different
training budgets are said beside the result. A run's record and its `predictions.jsonl` are
checked against the record's seal first (`benchmark.records.verified_predictions.load_run`): a
figure out of its range or a file changed after the run is refused in one line naming it;
an unsealed record (written before runs were sealed) is said in a warning. With two
seeds or more on both sides the comparison is the leaderboard's, counting seed and
document variation (`benchmark.stats.seeded_paired`: difference of the seed means, its 95%
interval and two-sided p-value); with one run on a side, seed variation cannot be
estimated and the document-level test below is used, which says so. The documents are
paired by id (`benchmark.stats.paired.align_records`: different document sets are refused,
naming the difference) and scored with the same metrics and trivial policy as
`benchmark.score`. For every metric it prints A, B, the difference A - B, its paired
bootstrap 95% interval and the p-values of a paired permutation (sign-flip) test and of
Wilcoxon's signed-rank test (`benchmark.stats.paired.paired_test`). `json=true` prints one
JSON object instead of the table. Bad input: one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmark.cli_arguments import report_error, warnings_printed
from benchmark.cli_commands import COMPARE
from benchmark.metrics.corpus import score_records, trivial_policy
from benchmark.metrics.directions import LOWER, direction
from benchmark.records.comparability import (
    IncomparableRunsError,
    budget_differences,
    pooling_differences,
    require_pairable,
)
from benchmark.records.run_record import RECORD_NAME
from benchmark.records.verified_predictions import RUN_KEYS, load_run
from benchmark.score import json_safe
from benchmark.stats.bootstrap import CI_ALPHA
from benchmark.stats.paired import align_records, paired_test
from benchmark.stats.seeded_paired import compare_seeded, seeded_row

SEED_GLOB = "seed_*"  # the runs of a row directory
DOCUMENTS_ONLY = "documents only (one run per side: seed variation not counted)"
SEEDS_AND_DOCUMENTS = "seeds and documents (benchmark.stats.seeded_paired)"


def row_runs(path: str | Path) -> list[Path]:
    """The finished seed runs of a row directory (sorted), or [] when `path` is not one. A
    folder of config ids (`<dataset>/<model>/<variant>`) is the row of its only config;
    with several, ValueError lists them."""
    path = Path(path)
    if not path.is_dir() or (path / RECORD_NAME).is_file():
        return []
    runs = sorted(run.parent for run in path.glob(f"{SEED_GLOB}/{RECORD_NAME}"))
    if runs:
        return runs
    configs = sorted({run.parent.parent for run in path.glob(f"*/{SEED_GLOB}/{RECORD_NAME}")})
    if len(configs) > 1:
        raise ValueError(
            f"{path} holds finished runs of {len(configs)} configs "
            f"({', '.join(c.name for c in configs)}): name one of these folders"
        )
    return row_runs(configs[0]) if configs else []


def check_comparable(sides: Sequence[tuple[str, list[dict | None]]]) -> list[str]:
    """Refuse (IncomparableRunsError) runs that cannot be paired across the two sides or
    pooled within one; returns the budget differences between the sides, to be said."""
    for label, records in sides:
        known = [record for record in records if record is not None]
        for other in known[1:]:
            if differences := pooling_differences(known[0], other):
                raise IncomparableRunsError(
                    f"{label}: its runs cannot be pooled ({'; '.join(differences)})"
                )
    (label_a, records_a), (label_b, records_b) = sides
    if records_a and records_b and records_a[0] is not None and records_b[0] is not None:
        require_pairable(label_a, records_a[0], label_b, records_b[0])
        return budget_differences(records_a[0], records_b[0])
    return []


def compare_runs(
    run_a: str | Path,
    run_b: str | Path,
    include_trivial: bool = False,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict:
    """The paired comparison of two runs or rows, as printed by `json=true`."""
    rows_a, rows_b = row_runs(run_a), row_runs(run_b)
    if min(len(rows_a), len(rows_b)) >= 2:
        return compare_seeded_rows(run_a, run_b, rows_a, rows_b, include_trivial, n_resamples,
                                   seed)
    run_a, run_b = (rows[0] if len(rows) == 1 else path
                    for rows, path in ((rows_a, run_a), (rows_b, run_b)))
    (about_a, records_a, record_a), (about_b, records_b, record_b) = map(load_run, (run_a, run_b))
    budgets = check_comparable([(str(run_a), [record_a]), (str(run_b), [record_b])])
    records_a, records_b = align_records(records_a, records_b)
    scored_a = score_records(records_a, include_trivial)
    scored_b = score_records(records_b, include_trivial)
    return {
        "a": about_a,
        "b": about_b,
        "n_docs": len(scored_a.counted),
        "trivial_policy": trivial_policy(include_trivial),
        "n_resamples": n_resamples,
        "alpha": CI_ALPHA,
        "seed": seed,
        "method": DOCUMENTS_ONLY,
        "budget_differences": budgets,
        "metrics": paired_test(scored_a, scored_b, n_resamples, CI_ALPHA, seed),
    }


def compare_seeded_rows(
    row_a: Path, row_b: Path, runs_a: list[Path], runs_b: list[Path],
    include_trivial: bool, n_resamples: int, seed: int,
) -> dict:
    """The leaderboard's comparison of two rows of several seeds each."""
    loaded = {row: [load_run(run) for run in runs] for row, runs in ((row_a, runs_a),
                                                                      (row_b, runs_b))}
    budgets = check_comparable(
        [(str(row), [run.record for run in runs]) for row, runs in loaded.items()]
    )
    sides = []
    for path, runs in loaded.items():
        about = {"path": str(path), **{key: runs[0].about.get(key) for key in RUN_KEYS[:3]},
                 "seeds": [run.about["seed"] for run in runs]}
        sides.append((about, seeded_row([run.predictions for run in runs], include_trivial)))
    (about_a, seeded_a), (about_b, seeded_b) = sides
    metrics = compare_seeded(seeded_a, seeded_b, n_resamples, CI_ALPHA, seed)
    return {
        "a": about_a,
        "b": about_b,
        "n_docs": len(seeded_a.records),
        "trivial_policy": trivial_policy(include_trivial),
        "n_resamples": n_resamples,
        "alpha": CI_ALPHA,
        "seed": seed,
        "method": SEEDS_AND_DOCUMENTS,
        "budget_differences": budgets,
        "metrics": metrics,
    }


def _describe(about: dict) -> str:
    known = [str(about[key]) for key in RUN_KEYS if about.get(key) is not None]
    return about["path"] + (f" ({', '.join(known)})" if known else "")


# the columns after the interval: (header, width, format) per method
_SEEDED_COLUMNS = (("p", 9, ".3g"), ("se_seeds", 10, ".4f"), ("se_docs", 9, ".4f"),
                   ("df", 10, ".1f"))
_DOCUMENT_COLUMNS = (("p_permutation", 9, ".3g"), ("p_wilcoxon", 12, ".3g"), ("n_docs", 7, "d"))
_HEADERS = {"p_permutation": "p perm", "p_wilcoxon": "p Wilcoxon", "n_docs": "docs",
            "se_seeds": "se seeds", "se_docs": "se docs"}


def format_table(result: dict) -> str:
    """The comparison as a plain-text table."""
    level = round(100 * (1 - result["alpha"]))
    seeded = result.get("method") == SEEDS_AND_DOCUMENTS
    if seeded:
        about = (
            f"seeds {result['a']['seeds']} against {result['b']['seeds']}; {level}% interval "
            f"and t-test of the seed means, counting seed and document variation (document "
            f"bootstrap of {result['n_resamples']} resamples, seed {result['seed']})"
        )
    else:
        about = (f"{level}% paired bootstrap CI and permutation test from "
                 f"{result['n_resamples']} resamples, seed {result['seed']}")
    columns = _SEEDED_COLUMNS if seeded else _DOCUMENT_COLUMNS
    lines = [
        f"A = {_describe(result['a'])}",
        f"B = {_describe(result['b'])}",
        f"{result['n_docs']} paired documents (trivial documents {result['trivial_policy']}); "
        + about,
        "",
        f"{'metric':<13}{'A':>9}{'B':>9}{'A - B':>10}   {f'{level}% CI of A - B':<22}"
        + "".join(f"{_HEADERS.get(key, key):>{width}}" for key, width, _ in columns),
    ]
    for key, row in result["metrics"].items():
        name = key + ("*" if direction(key) == LOWER else "")
        interval = f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]"
        lines.append(
            f"{name:<13}{row['a']:>9.4f}{row['b']:>9.4f}{row['diff']:>+10.4f}   {interval:<22}"
            + "".join(f"{row[column]:>{width}{form}}" for column, width, form in columns)
        )
    if not seeded:
        lines.append(f"method: {DOCUMENTS_ONLY}")
    if result.get("budget_differences"):
        lines.append("note: the runs had different training budgets ("
                     + "; ".join(result["budget_differences"]) + ")")
    if any(direction(key) == LOWER for key in result["metrics"]):
        lines.append("* lower is better")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    return COMPARE.run(argv, _compare)


def _compare(args: dict) -> int:
    try:
        with warnings_printed(COMPARE.prog, on_error=False):  # unsealed: said once
            result = compare_runs(args["run_a"], args["run_b"], args["include_trivial"],
                                  args["resamples"], args["seed"])  # fmt: skip
    except (ValueError, OSError) as error:
        return report_error(COMPARE.prog, error)
    print(json.dumps(json_safe(result)) if args["json"] else format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
