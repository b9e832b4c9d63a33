"""`key=value` command-line arguments of the tools that work on a run (evaluate, predict,
bench), parsed by OmegaConf (`OmegaConf.from_dotlist`, the parser of Hydra's overrides), so
every `orderbench` command that takes settings takes them in one style."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException


class UsageError(ValueError):
    """Bad command-line arguments or input; the tools print it as one line and exit 2."""


def parse_key_values(
    argv: Sequence[str], defaults: Mapping[str, str | None], required: Sequence[str], usage: str
) -> dict[str, str | None]:
    """`defaults` updated with `key=value` arguments (values as text: `true`, `3`); unknown
    keys and missing `required` ones raise UsageError naming them and the usage line."""
    args = dict(defaults)
    for arg in argv:
        if "=" not in arg or arg.partition("=")[0] not in args:
            raise UsageError(f"unexpected argument {arg!r}; usage: {usage}")
    try:
        given = OmegaConf.to_container(OmegaConf.from_dotlist(list(argv)))
    except OmegaConfBaseException as error:
        raise UsageError(f"{' '.join(str(error).split())}; usage: {usage}") from None
    raw = dict(arg.partition("=")[::2] for arg in argv)
    for key, value in given.items():  # a list or mapping is YAML's reading of a name: `-`
        args[key] = raw[key] if isinstance(value, (list, dict)) else _text(value)
    if missing := [key for key in required if not args[key]]:
        raise UsageError(f"missing {' and '.join(missing)}; usage: {usage}")
    return args


def _text(value) -> str | None:
    """A parsed value as the text it was given as (booleans as `true`/`false`)."""
    if value is None or isinstance(value, str):
        return value
    return str(value).lower() if isinstance(value, bool) else str(value)


def choice(args: Mapping[str, str | None], key: str, allowed: Sequence[str]) -> str:
    """The value of `key`, which must be one of `allowed`."""
    if args[key] not in allowed:
        raise UsageError(f"{key} must be one of {', '.join(allowed)}, got {args[key]!r}")
    return args[key]


def positive_int(key: str, value: str) -> int:
    """`value` as an integer >= 1."""
    if not value.isdigit() or int(value) < 1:
        raise UsageError(f"{key} must be an integer >= 1, got {value!r}")
    return int(value)


EXIT_BAD_INPUT = 2  # exit status of every tool for bad arguments or input


HELP_FLAGS = ("-h", "--help")


def help_text(usage: str, doc: str) -> str:
    """The help of a `key=value` tool: its usage line and its docstring after the first
    paragraph."""
    return f"usage: {usage}\n\n{doc.split(chr(10) + chr(10), 1)[1]}"


def asks_for_help(argv: Sequence[str], usage: str, doc: str) -> bool:
    """Print the tool's help (`help_text`) if `-h`/`--help` is given."""
    if not any(arg in HELP_FLAGS for arg in argv):
        return False
    print(help_text(usage, doc))
    return True


def error_lines(error: Exception) -> str:
    """`error: ` and each line of the message, for stderr; an indented line is a hint to
    the line above it (the layout a missing dataset should have), printed as it is."""
    lines = str(error).splitlines()
    return "\n".join(line if line[:1].isspace() else f"error: {line}" for line in lines)


def report_error(tool: str, error: Exception) -> int:
    """Print `error` as one line on stderr and return EXIT_BAD_INPUT."""
    print(f"{tool}: error: {' '.join(str(error).split())}", file=sys.stderr)
    return EXIT_BAD_INPUT
