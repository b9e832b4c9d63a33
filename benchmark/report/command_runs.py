"""The finished runs a report command reads (`benchmark.records.run_collection.collect_runs`),
with the command's way of saying what is wrong: the runs left out printed as its warnings,
a missing folder its one-line error (exit 2)."""

from __future__ import annotations

from pathlib import Path

from benchmark.cli_arguments import UsageError, warnings_printed
from benchmark.records.run_collection import LeftOut, Run, collect_runs


def collect_runs_for(tool: str, root: str | Path, left_out: list[LeftOut] | None = None
                     ) -> list[Run]:  # fmt: skip
    """`collect_runs` for the command `tool`: what it leaves out printed as the tool's
    warnings (and listed in `left_out`, when given), a missing folder a UsageError (one
    line, exit 2: `Command.run`)."""
    with warnings_printed(tool):
        try:
            return collect_runs(root, left_out)
        except FileNotFoundError as error:
            raise UsageError(str(error)) from None
