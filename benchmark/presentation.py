"""How much each row's test figures move with the presentation: `orderbench presentation
[runs=DIR] [out=DIR] [presentations=5]` (`benchmark.cli_commands.PRESENTATION`; docs/design.md,
section 5).

Every finished run under `runs` whose preset reads the presented order is decoded again from
its checkpoint under `presentations` other fixed shuffles of its test documents
(`evaluate_order` with another protocol seed); the figures go to `presentation.csv` and the
tables (per row, per run) to `presentation.md` in `out`, together
(`benchmark.report.presentation_spread`). Figures the CSV already holds are reused, so a
second call decodes only new runs and a folder of archived records (no checkpoints,
`orderbench archive`) is reported from the CSV alone. A run that has to be decoded and
cannot be (no checkpoint, a record that cannot be trusted) is one line naming it, and the
figures decoded before it are kept in the CSV.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from benchmark.cli_arguments import EXIT_BAD_INPUT, report_error
from benchmark.cli_commands import PRESENTATION
from benchmark.evaluate import evaluate_order
from benchmark.records.atomic_io import atomic_write_group
from benchmark.records.run_collection import group_runs
from benchmark.report.command_runs import Report, run_report
from benchmark.report.presentation_spread import (
    RowName,
    presentation_figures,
    read_known,
    row_lines,
    run_lines,
)
from benchmark.run.finished_run import RunError

CSV_NAME = "presentation.csv"
MARKDOWN_NAME = "presentation.md"


def decode_presented(run_dir: Path, protocol_seed: int) -> dict:
    """The run's test figures under another fixed presentation (`evaluate_order`)."""
    return evaluate_order(run_dir, "test", protocol_seed=protocol_seed)


class PresentedDecoder:
    """`decode_presented` for `presentation_figures` that goes on past a run it cannot
    decode (no checkpoint, a record that cannot be trusted): None for it, its reason kept
    in `failed` (run folder -> message) for the caller to name after writing what was
    decoded; `decoded` counts the presentations decoded."""

    def __init__(self, prog: str):
        self.prog = prog
        self.decoded = 0
        self.failed: dict[Path, str] = {}

    def __call__(self, run_dir: Path, protocol_seed: int) -> dict | None:
        if run_dir in self.failed:  # one reason per run, not one try per presentation
            return None
        print(f"{self.prog}: {run_dir}: protocol seed {protocol_seed}", file=sys.stderr)
        try:
            figures = decode_presented(run_dir, protocol_seed)
        except RunError as error:
            self.failed[run_dir] = str(error)
            return None
        self.decoded += 1
        return figures

    def report_failed(self, csv: Path) -> int:
        """Each run that could not be decoded, as an error line; the exit status."""
        for problem in self.failed.values():
            report_error(self.prog, f"{problem} (its presentations are missing from {csv})")
        return EXIT_BAD_INPUT if self.failed else 0


def markdown(groups: dict, figures, presentations: int) -> str:
    """The report: per row, then per run."""
    return "\n".join([
        "# Presentation", "",
        "Each run's test tau on its fixed presentation (the one every row is tested and "
        f"paired on) beside its tau under {presentations} other fixed shuffles of the same "
        "documents (`orderbench presentation`; an order-free row cannot move).", "",
        *row_lines(groups, figures), "",
        *run_lines(groups, figures), "",
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    return run_report(PRESENTATION, argv, _report)


def _report(report: Report, args: dict) -> int:
    out = report.out
    known = read_known(out / CSV_NAME)
    groups = {RowName(f"{dataset}: {preset}/{variant}", preset): members
              for (dataset, preset, variant), members in group_runs(report.runs).items()}
    decode = PresentedDecoder(report.prog)
    figures = presentation_figures(groups, args["presentations"], known, decode)
    # what was decoded is kept, also when another run could not be
    paths = atomic_write_group(out, {
        CSV_NAME: figures.to_csv(index=False, float_format="%.6g"),
        MARKDOWN_NAME: markdown(groups, figures, args["presentations"]),
    })  # fmt: skip
    print(f"{decode.decoded} presentations decoded, {len(figures)} figures -> "
          f"{', '.join(map(str, paths))}")
    return decode.report_failed(out / CSV_NAME)


if __name__ == "__main__":
    sys.exit(main())
