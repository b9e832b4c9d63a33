"""`orderbench`: one command for the whole suite (the console script of pyproject.toml).

    orderbench <command> [arguments]      orderbench <command> --help

Commands that compose a config (train, evaluate, predict, bench, datacard, prepare, sweep
run) take Hydra-style `key=value` overrides; the tools that read files (score, compare,
leaderboard, plots, sweep list/summary) take options. Each command's module is imported
only when it runs. `--help` imports none of them: the option parsers live in
`benchmark.cli_parsers`, the `key=value` tools' help is their `USAGE` and docstring read from
their source, and `orderbench train --help` is `benchmark.train_help`; so every command
answers `--help` at once, with a usage line naming `orderbench <command>`.
`python -m benchmark.<module>` keeps working for each of them.
"""

from __future__ import annotations

import ast
import importlib
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from benchmark import cli_parsers


class Command(NamedTuple):
    target: str  # "module:function"; the function takes argv (a list) or reads sys.argv
    summary: str
    reads_sys_argv: bool = False  # a Hydra app (`@hydra.main`): argv goes through sys.argv
    parser: str | None = None  # its option parser in benchmark.cli_parsers; None: a
    # `key=value` tool, whose help is its module's USAGE and docstring


COMMANDS: dict[str, Command] = {
    "train": Command(
        "benchmark.train:main", "train and test one run (Hydra overrides; -m: a sweep)", True
    ),
    "evaluate": Command(
        "benchmark.evaluate:main",
        "re-score a finished run from its checkpoint: task=order|discrimination",
    ),
    "score": Command("benchmark.score:main", "score a predictions.jsonl file", parser="score"),
    "compare": Command("benchmark.compare:main", "paired comparison of two runs", parser="compare"),
    "predict": Command("benchmark.predict:main", "order your own sentences with a trained run"),
    "leaderboard": Command(
        "benchmark.report.leaderboard:main", "leaderboard.csv and .md of the finished runs",
        parser="leaderboard",
    ),
    "plots": Command(
        "benchmark.report.plots:main", "result plots of the finished runs", parser="plots"
    ),
    "bench": Command("benchmark.bench.suite:main", "throughput of every preset"),
    "datacard": Command("benchmark.datacard:main", "a dataset's sizes and statistics (JSON)"),
    "prepare": Command("benchmark.prepare_data:main", "fetch and preprocess a dataset"),
    "sweep": Command("benchmark.cli:sweep", "sweeps: run NAME | list NAME | summary RUNS"),
}
SWEEP_ACTIONS = {  # action -> (target, its parser in benchmark.cli_parsers)
    "list": ("benchmark.sweep.listing:main", "sweep_list"),
    "summary": ("benchmark.sweep.summary:main", "sweep_summary"),
}
HELP_FLAGS = ("-h", "--help")
SOURCE_ROOT = Path(__file__).resolve().parents[1]  # where the `benchmark` package lies
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


def key_value_help(module: str) -> str:
    """The help of a `key=value` tool (`benchmark.cli_options.help_text` of its `USAGE` and
    docstring), read from its source without importing it."""
    from benchmark.cli_options import help_text

    path = SOURCE_ROOT.joinpath(*module.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    usage = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "USAGE" for target in node.targets)
    )
    return help_text(usage, ast.get_docstring(tree, clean=False))


def command_help(name: str) -> str:
    """What `orderbench <name> --help` prints, without importing the command's module."""
    command = COMMANDS[name]
    if name == "train":
        from benchmark.train_help import train_help

        return train_help()
    if command.parser:
        return getattr(cli_parsers, command.parser)().format_help().rstrip("\n")
    return key_value_help(command.target.split(":")[0])


def _call(target: str, argv: list[str], program: str, reads_sys_argv: bool = False):
    """Import `target` ("module:function") and run it on `argv`."""
    module, function = target.split(":")
    if reads_sys_argv:  # as `python -m module`: Hydra finds conf/ from the module's file
        sys.argv = [program, *argv]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    return getattr(importlib.import_module(module), function)(argv)


def sweep(argv: list[str]) -> int:
    """`orderbench sweep run|list|summary ...`."""
    if not argv or argv[0] in HELP_FLAGS:
        print(SWEEP_USAGE)
        return 0 if argv else 2
    action, rest = argv[0], argv[1:]
    if action in ("run", "list") and rest and "=" not in rest[0] and not rest[0].startswith("-"):
        from benchmark.sweep.listing import unknown_sweep

        if problem := unknown_sweep(rest[0], rest[1:]):
            print(f"orderbench sweep {action}: error: {problem}", file=sys.stderr)
            return 2
    if action == "run":
        if any(arg in HELP_FLAGS for arg in rest):
            print(f"{SWEEP_USAGE}\n\nOverrides as for `orderbench train` (its --help lists them).")
            return 0
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
    target, parser = SWEEP_ACTIONS[action]
    if any(arg in HELP_FLAGS for arg in rest):
        print(getattr(cli_parsers, parser)().format_help().rstrip("\n"))
        return 0
    return _call(target, rest, f"orderbench sweep {action}")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in HELP_FLAGS:
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"orderbench: error: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    if name != "sweep" and any(arg in HELP_FLAGS for arg in rest):
        print(command_help(name))
        return 0
    command = COMMANDS[name]
    status = _call(command.target, rest, f"orderbench {name}", command.reads_sys_argv)
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
