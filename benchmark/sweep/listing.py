"""Dry listing of a sweep: `orderbench sweep list NAME [OVERRIDE ...]`
(`benchmark.cli_commands.SWEEP_LIST`).

Prints every job that `orderbench sweep run NAME [OVERRIDE ...]` would
launch, with what it would do in its run directory (`benchmark.run.plan`): `train`,
`resume` (from checkpoints/last.ckpt), `skip` (finished with the same config),
`conflict`, `invalid` (its config does not compose) or `shared` (another job has the same
run directory); then the totals. Launches nothing. Exit status 1 when a job would fail or
clash (conflict, invalid, shared).
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode

from benchmark.cli_arguments import UsageError, report_error
from benchmark.cli_commands import SWEEP_LIST
from benchmark.config.compose import COMPOSE_ERRORS, CONF_DIR, compose_error
from benchmark.config.config_folders import group_files
from benchmark.config.resolvers import register_resolvers
from benchmark.run.plan import RunConflictError, plan_run
from benchmark.sweep.jobs import SweepJob, sweep_jobs

ACTIONS = {"fresh": "train", "resume": "resume", "skip": "skip"}
SHARED_RUN_DIR = "another job of the sweep has this run directory: set `variant` apart"


def sweep_names() -> list[str]:
    """The sweeps of conf/sweep/ and of the studies' sweep folders."""
    return [path.stem for path in group_files("sweep")]


def unknown_sweep(name: str, overrides: list[str]) -> str | None:
    """The one-line error for a sweep `name` that conf/sweep/ lacks, listing those it has;
    None when it is there, or may be in a config folder of a `hydra.searchpath` override."""
    if name in sweep_names() or any(o.startswith("hydra.searchpath=") for o in overrides):
        return None
    return f"no sweep {name!r} in conf/sweep/ or a study's; the sweeps: {', '.join(sweep_names())}"


def override_problem(sweep: str, overrides: list[str]) -> str | None:
    """The one-line error of overrides that do not compose with the sweep (an unknown key
    or option), as `orderbench sweep run` would meet it after launching; None when they
    compose. Hydra's flags among `overrides` (`--cfg`, and the word after one) are left out."""
    values = [o for i, o in enumerate(overrides)
              if not o.startswith("-") and not (i and overrides[i - 1].startswith("-"))]
    register_resolvers()
    try:
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3",
                                   job_name="train"):  # fmt: skip
            GlobalHydra.instance().config_loader().load_configuration(
                "config", [f"sweep={sweep}", *values], run_mode=RunMode.MULTIRUN
            )
    except COMPOSE_ERRORS as error:
        return compose_error(error)
    return None


def job_action(job: SweepJob) -> tuple[str, str]:
    """(what the job would do, detail) without running it."""
    if job.config is None:
        return "invalid", job.error or ""
    try:
        plan = plan_run(job.run_dir, job.config)
    except RunConflictError as error:
        return "conflict", str(error)
    return ACTIONS[plan.action], ""


class ComposingProgress:
    """Says on stderr how far composing a sweep's jobs has got, every `every` seconds
    (a sweep of hundreds of jobs takes minutes to compose before its first line)."""

    def __init__(self, sweep: str, every: float = 10.0) -> None:
        self.sweep, self.every = sweep, every
        self.start = self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            print(f"sweep {self.sweep}: composed {done} of {total} jobs "
                  f"({now - self.start:.0f} s)", file=sys.stderr, flush=True)


def list_sweep(sweep: str, overrides: list[str]) -> tuple[list[str], Counter]:
    """Lines describing each job of the sweep, and the count of each action."""
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        loader = GlobalHydra.instance().config_loader()
        master = loader.load_configuration(
            "config", [f"sweep={sweep}", *overrides], run_mode=RunMode.MULTIRUN
        )
        jobs = sweep_jobs(master, loader, ComposingProgress(sweep))
    shared = Counter(job.run_dir for job in jobs if job.run_dir is not None)
    lines, counts = [], Counter()
    for job in jobs:
        action, detail = job_action(job)
        if shared[job.run_dir] > 1:
            action, detail = "shared", SHARED_RUN_DIR
        counts[action] += 1
        lines.append(f"{action:8} {job.run_dir or '-'}  {' '.join(job.overrides)}")
        if detail:
            lines.append(f"         {detail}")
    return lines, counts


def main(argv: list[str] | None = None) -> int:
    return SWEEP_LIST.run(argv, _list)


def _list(args: dict) -> int:
    try:
        if problem := unknown_sweep(args["sweep"], args["overrides"]):
            raise UsageError(problem)
        lines, counts = list_sweep(args["sweep"], args["overrides"])
    except UsageError as error:
        return report_error(SWEEP_LIST.prog, error)
    except COMPOSE_ERRORS as error:
        return report_error(SWEEP_LIST.prog, compose_error(error))
    print("\n".join(lines))
    total = sum(counts.values())
    detail = ", ".join(f"{counts[action]} {action}" for action in sorted(counts))
    print(f"sweep {args['sweep']}: {total} jobs ({detail})")
    return 1 if counts["conflict"] or counts["invalid"] or counts["shared"] else 0


if __name__ == "__main__":
    sys.exit(main())
