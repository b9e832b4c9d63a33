"""`orderbench`: one command for the whole suite (the console script of pyproject.toml).

    orderbench <command> [arguments]      orderbench <command> --help

Every command takes its arguments in one style, `key=value` (booleans `true|false`), its
required inputs also as bare words (`orderbench compare RUN_A RUN_B json=true`); `train`
is Hydra's (`key=value`, `+group=option`, `-m`). The commands are declared in
`benchmark.cli_commands` (benchmark/ and models/) and by each study in its package
(`studies/<name>/__init__.py`: `COMMAND`, or `COMMANDS` for several; found by folder, so no
module names a study).
A command of two words (`sweep list`, `bench tsort`, `study cui2018`) is one of a group.
Each command's module is imported only when it runs; `--help` imports none of them (the
declarations and `benchmark.train_help` are standard library only), so every command
answers `--help` at once. `python -m <module>` keeps working for each of them.
"""

from __future__ import annotations

import importlib
import os
import runpy
import sys
from collections.abc import Sequence

from benchmark import cli_commands
from benchmark.cli_arguments import (
    EXIT_BAD_INPUT,
    HELP_FLAGS,
    Command,
    report_error,
)
from benchmark.config.config_folders import STUDIES_DIR

STUDIES = STUDIES_DIR.name  # the package whose folders may each declare `COMMAND(S)`


def study_commands() -> list[Command]:
    """The commands the studies declare (`studies/<name>/__init__.py`: `COMMANDS`, a tuple,
    else `COMMAND`)."""
    commands = []
    for folder in sorted(STUDIES_DIR.iterdir()):
        if (folder / "__init__.py").is_file():
            package = importlib.import_module(f"{STUDIES}.{folder.name}")
            declared = getattr(package, "COMMANDS", None) or (getattr(package, "COMMAND", None),)
            commands += [command for command in declared if isinstance(command, Command)]
    return commands


def commands() -> dict[str, Command]:
    """Every command by its name after `orderbench`."""
    return {command.name: command for command in (*cli_commands.COMMANDS, *study_commands())}


def usage(table: dict[str, Command]) -> str:
    width = max(map(len, table))
    lines = [f"  {name:<{width}}  {command.summary}" for name, command in table.items()]
    return (
        "usage: orderbench <command> [arguments]   (orderbench <command> --help)\n\n"
        "arguments are KEY=VALUE (true|false for yes/no), a command's inputs also as bare "
        "words;\ntrain takes Hydra's overrides.\n\ncommands:\n" + "\n".join(lines)
    )


def group_usage(group: str, table: dict[str, Command]) -> str:
    """The usage lines of the commands of a group (`orderbench sweep`), then their
    summaries."""
    members = [command for name, command in table.items() if name.split()[0] == group]
    width = max(len(command.name) for command in members)
    return "\n".join([
        *(f"{'usage:' if i == 0 else '      '} {command.usage(wrap=False)}"
          for i, command in enumerate(members)),
        "", *(f"  {command.name:<{width}}  {command.summary}" for command in members),
        "", f"(orderbench {group} <action> --help explains one)",
    ])  # fmt: skip


def command_help(command: Command) -> str:
    """What `orderbench <name> --help` prints, without importing the command's module."""
    if command.call == "hydra":
        from benchmark.train_help import train_help

        return train_help()
    return command.help()


def _target(command: Command):
    module, function = command.target.split(":")
    return getattr(importlib.import_module(module), function)


def run(command: Command, argv: list[str]) -> int:
    """Run `command` on `argv` as its declaration says (`Command.call`)."""
    if command.call == "hydra":  # as `python -m module`: Hydra finds conf/ from its file
        module = command.target.split(":")[0]
        sys.argv = [command.prog, *argv]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    if command.call == "keys":
        status = command.run(argv, lambda keys: _target(command)(**keys))
    else:
        status = _target(command)(argv)
    return status if isinstance(status, int) else 0


def sweep_run(argv: Sequence[str]) -> int:
    """`orderbench sweep run NAME [OVERRIDE ...]`: `orderbench train -m sweep=NAME ...`, once
    the overrides compose (so a bad one is one line, as for the other commands)."""
    return cli_commands.SWEEP_RUN.run(argv, _run_sweep)


def _run_sweep(args: dict) -> int:
    from benchmark.sweep.listing import override_problem, unknown_sweep

    name, overrides = args["sweep"], args["overrides"]
    if problem := unknown_sweep(name, overrides) or override_problem(name, overrides):
        return report_error(cli_commands.SWEEP_RUN.prog, problem)
    return run(cli_commands.TRAIN, ["-m", f"sweep={args['sweep']}", *args["overrides"]])


def main(argv: Sequence[str] | None = None) -> int:
    """`orderbench`; output piped into a reader that stops early (`| head`) ends quietly."""
    try:
        status = dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader is gone: send the rest nowhere, so the exit flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status


def dispatch(argv: list[str]) -> int:
    """Run the command `argv` names (the help when it names none)."""
    table = commands()
    if not argv or argv[0] in HELP_FLAGS:
        print(usage(table))
        return 0 if argv else EXIT_BAD_INPUT
    words = 2 if " ".join(argv[:2]) in table else 1
    name, rest = " ".join(argv[:words]), argv[words:]
    if name not in table:
        groups = {known.split()[0] for known in table if " " in known}
        if name in groups:  # a group without (or with an unknown) action
            asked = bool(rest) and rest[0] in HELP_FLAGS
            if rest and not asked:
                actions = [known.split()[1] for known in table if known.split()[0] == name]
                return report_error(f"orderbench {name}", f"unknown action {rest[0]!r}; the "
                                    f"actions: {', '.join(actions)}")
            print(group_usage(name, table), file=sys.stdout if asked else sys.stderr)
            return 0 if asked else EXIT_BAD_INPUT
        names = dict.fromkeys(known.split()[0] for known in table)
        return report_error("orderbench", f"unknown command {name!r}; the commands: "
                            f"{', '.join(names)} (orderbench --help)")
    command = table[name]
    if any(arg in HELP_FLAGS for arg in rest):
        print(command_help(command))
        return 0
    return run(command, rest)


if __name__ == "__main__":
    sys.exit(main())
