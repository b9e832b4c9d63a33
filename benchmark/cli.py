"""`orderbench`: one command for the whole suite (the console script of pyproject.toml).

    orderbench <command> [arguments]      orderbench <command> --help

Commands that compose a config (train, evaluate, predict, bench, datacard, prepare, sweep
run) take Hydra-style `key=value` overrides; the tools that read files (score, compare,
leaderboard, plots, sweep list/summary) take options. Each command's module is imported
only when it runs, so the light ones (score, predict, leaderboard, --help) never import
Lightning. `python -m benchmark.<module>` keeps working for each of them.
"""

from __future__ import annotations

import importlib
import runpy
import sys
from collections.abc import Sequence
from typing import NamedTuple


class Command(NamedTuple):
    target: str  # "module:function"; the function takes argv (a list) or reads sys.argv
    summary: str
    reads_sys_argv: bool = False  # a Hydra app (`@hydra.main`): argv goes through sys.argv
    own_help: bool = True  # False: --help prints the module's docstring


COMMANDS: dict[str, Command] = {
    "train": Command(
        "benchmark.train:main", "train and test one run (Hydra overrides; -m: a sweep)", True
    ),
    "evaluate": Command(
        "benchmark.evaluate:main",
        "re-score a finished run from its checkpoint: task=order|discrimination",
    ),
    "score": Command("benchmark.score:main", "score a predictions.jsonl file"),
    "compare": Command("benchmark.compare:main", "paired comparison of two runs"),
    "predict": Command("benchmark.predict:main", "order your own sentences with a trained run"),
    "leaderboard": Command("benchmark.report.leaderboard:main", "results/leaderboard.csv and .md"),
    "plots": Command("benchmark.report.plots:main", "result plots of the finished runs"),
    "bench": Command("benchmark.bench.suite:main", "throughput of every preset"),
    "datacard": Command(
        "benchmark.datacard:main", "a dataset's sizes and statistics (JSON)", own_help=False
    ),
    "prepare": Command(
        "benchmark.prepare_data:main", "fetch and preprocess a dataset", own_help=False
    ),
    "sweep": Command("benchmark.cli:sweep", "sweeps: run NAME | list NAME | summary RUNS"),
}
SWEEP_ACTIONS = {
    "list": "benchmark.sweep.listing:main",
    "summary": "benchmark.sweep.summary:main",
}
SWEEP_USAGE = (
    "usage: orderbench sweep run NAME [OVERRIDE ...]   launch conf/sweep/NAME.yaml "
    "(hydra/launcher=slurm|local)\n"
    "       orderbench sweep list NAME [OVERRIDE ...]  the jobs it would launch\n"
    "       orderbench sweep summary RUNS_DIR          finished / failed / interrupted runs"
)


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {command.summary}" for name, command in COMMANDS.items()]
    return (
        "usage: orderbench <command> [arguments]   (orderbench <command> --help)\n\n"
        "commands:\n" + "\n".join(lines)
    )


def _call(
    target: str, argv: list[str], program: str, reads_sys_argv: bool = False, own_help=True
):
    """Import `target` ("module:function") and run it on `argv`."""
    module, function = target.split(":")
    if reads_sys_argv:  # as `python -m module`: Hydra finds conf/ from the module's file
        sys.argv = [program, *argv]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    module = importlib.import_module(module)
    if not own_help and any(arg in ("-h", "--help") for arg in argv):
        print(f"usage: {program} [OVERRIDE ...]\n\n{module.__doc__}")
        return 0
    return getattr(module, function)(argv)


def sweep(argv: list[str]) -> int:
    """`orderbench sweep run|list|summary ...`."""
    if not argv or argv[0] in ("-h", "--help"):
        print(SWEEP_USAGE)
        return 0 if argv else 2
    action, rest = argv[0], argv[1:]
    if action in ("run", "list") and rest and "=" not in rest[0] and not rest[0].startswith("-"):
        from benchmark.sweep.listing import unknown_sweep

        if problem := unknown_sweep(rest[0], rest[1:]):
            print(f"orderbench sweep {action}: error: {problem}", file=sys.stderr)
            return 2
    if action == "run":
        if not rest or "=" in rest[0]:
            print(f"orderbench sweep run: error: missing NAME\n{SWEEP_USAGE}", file=sys.stderr)
            return 2
        return _call(
            "benchmark.train:main",
            ["-m", f"sweep={rest[0]}", *rest[1:]],
            "orderbench train",
            reads_sys_argv=True,
        )
    if action not in SWEEP_ACTIONS:
        print(f"orderbench sweep: error: unknown action {action!r}\n{SWEEP_USAGE}", file=sys.stderr)
        return 2
    return _call(SWEEP_ACTIONS[action], rest, f"orderbench sweep {action}")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"orderbench: error: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    command = COMMANDS[name]
    program = f"orderbench {name}"
    status = _call(command.target, rest, program, command.reads_sys_argv, command.own_help)
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
