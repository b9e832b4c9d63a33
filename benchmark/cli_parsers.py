"""The option parsers of the `orderbench` tools that take options (score, compare,
leaderboard, plots, sweep list, sweep summary).

They live apart from the tools, and import nothing but the standard library, so that
`orderbench <command> --help` answers at once: the tools themselves load numpy, pandas,
matplotlib or Hydra. Each tool builds its parser here, so `python -m benchmark.<tool>`
and `orderbench <command>` parse alike and both print `usage: orderbench <command>`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

PAIRED_RESAMPLES = 10_000  # resamples of the paired tests (compare, leaderboard)
REPORTS_DIR = "reports"  # the reports' default folder, inside the runs folder


def _parser(command: str, description: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=f"orderbench {command}", description=description)


def report_dir(runs: Path, out: Path | None, sub: str = "") -> Path:
    """Where a report goes: `out` when given, else `<runs>/reports[/sub]`, so that a report
    never replaces the committed `results/` unless asked to (`--out results`)."""
    if out is not None:
        return out
    return runs / REPORTS_DIR / sub if sub else runs / REPORTS_DIR


def _runs_and_out(parser: argparse.ArgumentParser, default_out: str) -> None:
    parser.add_argument(
        "--runs", type=Path, default=Path("runs"), help="runs directory (default runs)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        help=f"output directory (default {default_out}; `--out results` replaces the "
        "committed results)",
    )
    parser.add_argument(
        "--wandb",
        action="store_true",
        help="also log to W&B (offline unless WANDB_MODE says otherwise)",
    )


def score() -> argparse.ArgumentParser:
    parser = _parser("score", "Score a predictions.jsonl with the OrderBench metrics.")
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
    parser.add_argument(
        "--breakdowns",
        action="store_true",
        help="add the figures by paragraph length and by categorical meta field",
    )
    return parser


def compare() -> argparse.ArgumentParser:
    parser = _parser("compare", "Paired comparison of two runs on the same test documents.")
    parser.add_argument(
        "run_a", type=Path, help="run directory, predictions.jsonl or row directory of seeds (A)"
    )
    parser.add_argument(
        "run_b", type=Path, help="run directory, predictions.jsonl or row directory of seeds (B)"
    )
    parser.add_argument(
        "--include-trivial",
        action="store_true",
        help="count one-sentence documents as perfect (default: exclude them)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=PAIRED_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples and sign flips (default {PAIRED_RESAMPLES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="resampling seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def leaderboard() -> argparse.ArgumentParser:
    parser = _parser(
        "leaderboard", "Build leaderboard.csv and leaderboard.md from the finished runs."
    )
    _runs_and_out(parser, f"RUNS/{REPORTS_DIR}")
    parser.add_argument(
        "--resamples",
        type=int,
        default=PAIRED_RESAMPLES,
        metavar="N",
        help=f"resamples of the paired test (default {PAIRED_RESAMPLES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="paired-test seed (default 0)")
    parser.add_argument(
        "--reference",
        metavar="PRESET[/VARIANT]",
        help="the reference row of every dataset (default: the base row with the best valid "
        "tau), fixed before any test figure is read",
    )
    return parser


def plots() -> argparse.ArgumentParser:
    parser = _parser("plots", "Draw the result plots (PNG) from the finished runs.")
    _runs_and_out(parser, f"RUNS/{REPORTS_DIR}/plots")
    return parser


def sweep_list() -> argparse.ArgumentParser:
    parser = _parser(
        "sweep list",
        "Dry listing of a sweep: every job it would launch and what it would do in its run "
        "directory (train, resume, skip, conflict, invalid, shared). Launches nothing.",
    )
    parser.add_argument("sweep", help="a name in conf/sweep/ (paper, ablation, smoke)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, as for the sweep")
    return parser


def sweep_summary() -> argparse.ArgumentParser:
    parser = _parser(
        "sweep summary", "The state of every run directory under RUNS_DIR (finished, failed, "
        "interrupted, not run), with failures' logs."
    )
    parser.add_argument("runs_dir", type=Path, help="the sweep's output folder (paths.runs)")
    return parser
