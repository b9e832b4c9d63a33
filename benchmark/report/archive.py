"""`orderbench archive RUNS OUT`: keep the finished runs' records where they outlive the
machine (docs/design.md, section 3).

A run directory holds its checkpoints beside its record; the reports (leaderboard, plots,
`compare`) read only the record and its predictions (`ARCHIVED_FILES`). This copies those
two files of every finished run under `runs` into `out`, at the same path below it, so that
a folder committed with the results can be reported on again by the same commands
(`orderbench leaderboard runs=OUT`), and runs finished on different machines or days can
be pooled into one table. Copied back the other way (`orderbench archive OUT RUNS` on a new
machine), they are finished runs that a relaunched sweep skips (`benchmark.run.plan`).

Only runs `collect_runs` trusts are copied: a record or predictions file changed since the
run sealed it, an unfinished run, a malformed record are left out with its warning. A run
already in `out` with the same files is left as it is; one whose files differ is refused,
naming the file (a run is never replaced silently: delete it from `out` first). The copies
are verified as the reports will read them before the command says they are there.
"""

from __future__ import annotations

import filecmp
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmark.cli_arguments import report_error, warnings_printed
from benchmark.cli_commands import ARCHIVE
from benchmark.records.run_collection import Run, collect_runs
from benchmark.records.run_record import PREDICTIONS_NAME, RECORD_NAME, read_run_record
from benchmark.records.seal import verify

ARCHIVED_FILES = (RECORD_NAME, PREDICTIONS_NAME)  # what the reports read of a run


def _conflict(run: Run, target: Path) -> str | None:
    """Why `target` cannot take `run`'s files (it holds other files of that name), or None."""
    for name in ARCHIVED_FILES:
        here, there = run.path / name, target / name
        if there.exists() and not filecmp.cmp(here, there, shallow=False):
            return (f"{there}: differs from {here}: the archive holds another run of "
                    f"{run.dataset}/{run.preset}/{run.variant} seed {run.seed} at this path "
                    "(delete it there first to replace it)")  # fmt: skip
    return None


def _not_a_folder(path: Path) -> Path | None:
    """The file on the way to the folder `path` (itself, or a parent that exists and is not
    a folder), which would keep it from being made; None when it is a folder or can be."""
    for place in (path, *path.parents):
        if place.exists():
            return None if place.is_dir() else place
    return None


def archive_runs(runs: str | Path, out: str | Path) -> tuple[list[Path], list[Path]]:
    """Copy every trusted finished run's `ARCHIVED_FILES` from `runs` to `out`; returns the
    (new, already archived) run folders in `out`. Raises ValueError for a conflict or an
    `out` (or a run's folder in it) that is a file (before anything is copied) and
    FileNotFoundError for a `runs` that is not a folder."""
    runs, out = Path(runs).resolve(), Path(out).resolve()
    if out == runs or runs in out.parents:
        raise ValueError(f"out={out}: inside runs={runs}; give a folder outside it")
    if (file := _not_a_folder(out)) is not None:
        raise ValueError(f"out={out}: {file} is a file, not a folder; give a folder (it is "
                         "made if it does not exist)")  # fmt: skip
    targets = [(run, out / run.path.relative_to(runs)) for run in collect_runs(runs)]
    for run, target in targets:
        if (file := _not_a_folder(target)) is not None:
            raise ValueError(f"{file}: a file where the archive needs a folder for the run "
                             f"{run.path.relative_to(runs)}; move it away")  # fmt: skip
        if problem := _conflict(run, target):
            raise ValueError(problem)
    new, kept = [], []
    for run, target in targets:
        if all((target / name).exists() for name in ARCHIVED_FILES):
            kept.append(target)
            continue
        target.mkdir(parents=True, exist_ok=True)
        for name in ARCHIVED_FILES:
            shutil.copyfile(run.path / name, target / name)
        verify(target, read_run_record(target), [PREDICTIONS_NAME])
        new.append(target)
    return new, kept


def _archive(args: dict) -> int:
    try:
        with warnings_printed(ARCHIVE.prog):
            new, kept = archive_runs(args["runs"], args["out"])
    except (ValueError, OSError) as error:
        return report_error(ARCHIVE.prog, error)
    for folder in new:
        print(f"archived {folder}")
    size = sum((folder / name).stat().st_size for folder in new for name in ARCHIVED_FILES)
    print(f"{len(new)} runs archived ({size / 1024:.0f} KiB), {len(kept)} already there, "
          f"in {args['out']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return ARCHIVE.run(argv, _archive)


if __name__ == "__main__":
    sys.exit(main())
