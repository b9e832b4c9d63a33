"""The one entry of the report commands (leaderboard, plots, presentation, site): the finished
runs they read (`benchmark.records.run_collection.collect_runs`), the runs left out printed
as the command's warnings (and kept for a report that lists them), a missing folder or no
finished run its one-line error (exit 2), its output folder, and the errors of writing it
(a read-only or foreign folder) as one line each."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmark import cli_commands
from benchmark.cli_arguments import (
    EXIT_BAD_INPUT,
    Command,
    UsageError,
    report_error,
    warnings_printed,
)
from benchmark.records.atomic_io import ForeignFilesError
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


@dataclass
class Report:
    """What a report command's body gets: its name, its runs folder and runs, the records
    left out, and the folder it writes (`out`, else `RUNS/reports[/sub]`)."""

    prog: str
    runs_dir: Path
    out: Path
    runs: list[Run]
    left_out: list[LeftOut] = field(default_factory=list)

    def warn(self, note: str) -> None:
        print(f"{self.prog}: warning: {note}", file=sys.stderr)


def run_report(command: Command, argv: Sequence[str] | None,
               body: Callable[[Report, dict], int], sub: str = "",
               check: Callable[[dict, Path], None] | None = None) -> int:
    """Parse `argv` as `command`, `check(args, out)` the arguments (a UsageError: one line,
    exit 2) before any run is read, collect the runs, refuse a folder with no finished
    run, and call `body(report, args)`; its warnings are printed as the command's, and an
    OSError or ForeignFilesError of writing its folder is one line (exit 2)."""

    def entry(args: dict) -> int:
        prog, runs_dir = command.prog, Path(args["runs"])
        out = cli_commands.report_dir(runs_dir, args.get("out") and Path(args["out"]), sub)
        if check is not None:
            check(args, out)
        left_out: list[LeftOut] = []
        runs = collect_runs_for(prog, runs_dir, left_out)
        if not runs:
            print(f"{prog}: error: no finished run under {runs_dir}", file=sys.stderr)
            return EXIT_BAD_INPUT
        try:
            with warnings_printed(prog, on_error=False):
                return body(Report(prog, runs_dir, out, runs, left_out), args)
        except (ForeignFilesError, OSError) as error:  # a read-only or foreign folder
            return report_error(prog, error)

    return command.run(argv, entry)
