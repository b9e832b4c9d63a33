"""The arguments of every `orderbench` command, in one style: `key=value` words (booleans
`true|false`, lists comma-separated), a command's required inputs also as bare words in
order (`orderbench compare RUN_A RUN_B`).

Each command declares its keys once (`Command`, `Key`: name, default, one-line help); its
usage line, its `--help` and its parser (`Command.parse`) all come from that declaration.
The old `--flag` spellings are refused in one line naming the key that replaced them
(`old_flag_hint`). Standard library only: `orderbench <command> --help` imports no tool.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from benchmark.config.config_folders import SOURCE_ROOT  # where benchmark/, studies/ lie

EXIT_BAD_INPUT = 2  # exit status of every tool for bad arguments or input
HELP_FLAGS = ("-h", "--help")
BOOLEANS = ("true", "false")
KINDS = ("text", "int", "bool", "choice", "list")
WIDTH = 92
BRIEF = 6  # a usage line names each optional key up to this many, else [KEY=VALUE ...]
KEY_NAME = re.compile(r"[A-Za-z_][\w.]*$")  # what a word's text before `=` is when a key
ORDINALS = ("1st", "2nd", "3rd")


class UsageError(ValueError):
    """Bad command-line arguments or input; the tools print it as one line and exit 2."""


@dataclass(frozen=True)
class Key:
    """One key of a command: `name=VALUE`, with its default (typed; None: not set) and help."""

    name: str
    help: str
    default: object = None
    kind: str = "text"  # text, int, bool, choice (one of `choices`), list (comma-separated)
    choices: tuple[str, ...] = ()
    minimum: int | None = None  # int: the least value allowed
    positional: bool = False  # also the next bare word, in the order of the keys
    required: bool = False
    metavar: str = ""  # the value as shown: FILE, N, PRESET (default: by kind)
    shown: str = ""  # the default as shown when it is worked out at run time
    old: str = ""  # its old `--flag` when that was not `--<name with dashes>`

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is none of {KINDS}")

    @property
    def value_name(self) -> str:
        if self.metavar:
            return self.metavar
        return {"bool": "true|false", "int": "N", "list": "A,B",
                "choice": "|".join(self.choices)}.get(self.kind, self.name.upper())  # fmt: skip

    @property
    def shown_in_usage(self) -> bool:
        """Whether the usage line shows the default (not when it is worked out at run time)."""
        return self.default not in (None, [], ()) and not self.shown

    def default_text(self) -> str:
        """The default as the help shows it ('' when there is none)."""
        if self.shown or self.default is None:
            return self.shown
        if isinstance(self.default, bool):
            return str(self.default).lower()
        if isinstance(self.default, (list, tuple)):
            return ",".join(map(str, self.default))
        return str(self.default)

    def convert(self, text: str):
        """The typed value of `text` given for this key (UsageError naming the key)."""
        if self.kind == "list":
            return [item for item in text.split(",") if item]
        if text == "":
            raise UsageError(f"{self.name} has no value (write {self.name}={self.value_name})")
        if self.kind == "bool":
            if text not in BOOLEANS:
                raise UsageError(f"{self.name} must be one of true, false, got {text!r}")
            return text == "true"
        if self.kind == "choice" and text not in self.choices:
            raise UsageError(f"{self.name} must be one of {', '.join(self.choices)}, got {text!r}")
        if self.kind == "int":
            least = f" >= {self.minimum}" if self.minimum is not None else ""
            if not re.fullmatch(r"-?\d+", text) or (
                self.minimum is not None and int(text) < self.minimum
            ):
                raise UsageError(f"{self.name} must be an integer{least}, got {text!r}")
            return int(text)
        return text


@dataclass(frozen=True)
class Command:
    """One `orderbench` command: its name after `orderbench`, a one-line summary, its keys,
    and what runs it.

    `target` is "module:function". `call`: "argv", the function parses its own arguments
    (`main(argv)`, so `python -m module` parses alike); "keys", `orderbench` parses them
    and calls the function with the keys as keyword arguments (for modules that may not
    import this one: `models/`); "hydra", a Hydra app run as `python -m` (train).
    `overrides`: non-empty when further config overrides (`key=value`, `+key=value`,
    `~key`) are taken and passed on; it says what they are. `flags`: Hydra's own flags
    (`-m`, `--cfg job`) pass on too. `details`: the help ends with the docstring of the
    target's module after its first paragraph (read from the source, not imported).
    """

    name: str
    summary: str
    keys: tuple[Key, ...] = ()
    target: str = ""
    call: str = "argv"
    overrides: str = ""
    flags: bool = False
    details: bool = True

    @property
    def prog(self) -> str:
        return f"orderbench {self.name}"

    def key(self, name: str) -> Key:
        return next(key for key in self.keys if key.name == name)

    def defaults(self) -> dict:
        return {key.name: key.default for key in self.keys}

    # -- usage and help ------------------------------------------------------------------
    def usage(self, wrap: bool = True) -> str:
        """`orderbench <name> ...`: positional inputs, required keys, optional ones (on
        lines of WIDTH when `wrap`)."""
        words = []
        for key in self.keys:
            if key.positional:
                words.append(key.value_name if key.required else f"[{key.value_name}]")
            elif key.required:
                words.append(f"{key.name}={key.value_name}")
        optional = [key for key in self.keys if not key.required and not key.positional]
        if len(optional) > BRIEF:
            words.append("[KEY=VALUE ...]")
        else:
            words += [f"[{key.name}={key.default_text() if key.shown_in_usage else key.value_name}]"
                      for key in optional]
        if self.overrides:
            words.append("[OVERRIDE ...]")
        if not wrap:
            return " ".join([self.prog, *words])
        return textwrap.fill(" ".join([self.prog, *words]), WIDTH - 7,
                             subsequent_indent=" " * (len(self.prog) + 1),
                             break_on_hyphens=False)  # fmt: skip

    def key_lines(self) -> list[str]:
        """One line (wrapped) per key: `name=VALUE  help [default]`."""
        shown = [f"{key.name}={key.value_name}" for key in self.keys]
        width = min(max(map(len, shown), default=0), 27) + 2
        lines, place = [], 0
        for key, left in zip(self.keys, shown, strict=True):
            notes = ["required"] if key.required else []
            if key.positional:
                notes.append(f"or the {ORDINALS[place]} word")
                place += 1
            text = key.help + (f" ({'; '.join(notes)})" if notes else "")
            if default := key.default_text():
                text += f" [{default}]"
            lead = f"  {left:<{width}}" if len(left) < width else f"  {left}\n" + " " * (width + 2)
            lines.append(lead + _indented(text, WIDTH - width - 2, width + 2))
        if self.overrides:
            lines.append(f"  {'OVERRIDE':<{width}}"
                         + _indented(self.overrides, WIDTH - width - 2, width + 2))
        return lines

    def help(self) -> str:
        """What `orderbench <name> --help` prints."""
        summary = self.summary
        if summary.split(" ", 1)[0].isalpha():  # a word, not a file name: a sentence
            summary = summary[:1].upper() + summary[1:]
        parts = [f"usage: {self.usage()}", "", f"{summary}."]
        if self.keys or self.overrides:
            parts += ["", "keys (KEY=VALUE; true|false for yes/no):", *self.key_lines()]
        if self.details and (doc := module_details(self.target.partition(":")[0])):
            parts += ["", doc]
        return "\n".join(parts)

    def asks_for_help(self, argv: Sequence[str]) -> bool:
        """Print the help if `-h`/`--help` is among `argv`."""
        if not any(arg in HELP_FLAGS for arg in argv):
            return False
        print(self.help())
        return True

    # -- parsing -------------------------------------------------------------------------
    def parse(self, argv: Sequence[str]) -> dict:
        """`parse_key_values` of this command."""
        return parse_key_values(self, argv)

    def run(
        self,
        argv: Sequence[str] | None,
        body: Callable,
        parse: Callable[[Sequence[str]], object] | None = None,
    ) -> int:
        """A command's `main`: the help on -h/--help (exit 0); else the arguments parsed by
        `parse` (default: this command's keys) and `body(parsed)`'s exit status, a UsageError
        of either printed as one line (exit 2). `argv` None: the process's arguments."""
        argv = sys.argv[1:] if argv is None else argv
        if self.asks_for_help(argv):
            return 0
        try:
            return body((parse or self.parse)(argv))
        except UsageError as error:
            return report_error(self.prog, error)


def parse_key_values(command: Command, argv: Sequence[str]) -> dict:
    """The keys' values (typed; the defaults where not given) from `argv`; with
    `overrides`, also "overrides": the other `key=value` words, in order. UsageError
    (one line, naming the key) for an unknown key, a bad value, a key given twice, a
    missing required one, an extra word or an old `--flag`."""
    known = {key.name: key for key in command.keys}
    given: dict[str, str] = {}
    overrides: list[str] = []
    waiting = [key for key in command.keys if key.positional]
    for index, word in enumerate(argv):
        name, equals, value = word.partition("=")
        flag_value = command.flags and index and argv[index - 1].startswith("-") and not equals
        if (word.startswith("-") and word != "-") or flag_value:
            if command.flags:  # Hydra's flags, and the value after one (`--cfg job`)
                overrides.append(word)
                continue
            raise UsageError(old_flag_hint(command, word, argv[index + 1:]))
        if equals and name in known:
            if name in given:
                raise UsageError(f"{name} is given twice")
            given[name] = value
        elif command.overrides and (equals or word.startswith("~")):
            overrides.append(word)
        elif equals and KEY_NAME.match(name):
            raise UsageError(unknown_key(command, name, word))
        else:  # a bare word: the next positional input not given as key=value
            while waiting and waiting[0].name in given:
                waiting.pop(0)
            if not waiting:
                usage = command.usage(wrap=False)
                raise UsageError(f"unexpected argument {word!r}; usage: {usage}")
            given[waiting.pop(0).name] = word
    values = command.defaults()
    for name, text in given.items():
        values[name] = known[name].convert(text)
    if missing := [key for key in command.keys if key.required and values[key.name] is None]:
        names = " and ".join(f"{key.name}={key.value_name}" for key in missing)
        raise UsageError(f"missing {names}; usage: {command.usage(wrap=False)}")
    if command.overrides or command.flags:
        values["overrides"] = overrides
    return values


def _indented(text: str, width: int, indent: int) -> str:
    """`text` on lines of `width`, every line after the first indented by `indent`."""
    wrapped = textwrap.fill(text, width, break_on_hyphens=False, break_long_words=False)
    return wrapped.replace("\n", "\n" + " " * indent)


def unknown_key(command: Command, name: str, word: str = "") -> str:
    """The error of a key the command does not have (in the argument `word`), listing those
    it has."""
    keys = ", ".join(key.name for key in command.keys) or "none"
    given = f"unexpected argument {word!r}: " if word else ""
    return f"{given}unknown key {name!r}; the keys of {command.prog}: {keys}"


def old_flag_hint(command: Command, flag: str, rest: Sequence[str]) -> str:
    """The error of an old `--flag`: the key that replaced it, written as it should be."""
    spelled, _, value = flag.partition("=")
    name = spelled.lstrip("-").replace("-", "_")
    key = next((key for key in command.keys if spelled in (key.old, f"--{key.name}")), None)
    key = key or next((key for key in command.keys if key.name == name), None)
    if key is None:
        keys = ", ".join(key.name for key in command.keys) or "none"
        return (f"{flag} is not an option: arguments are KEY=VALUE (the keys of "
                f"{command.prog}: {keys})")
    if key.kind == "bool":
        value = "true"
    elif not value:
        following = rest[0] if rest and "=" not in rest[0] and not rest[0].startswith("-") else ""
        value = following or key.value_name
    return f"{spelled} is now written {key.name}={value} (arguments are KEY=VALUE)"


def module_details(module: str) -> str:
    """The docstring of `module` (a file under SOURCE_ROOT) after its first paragraph, read
    from the source without importing it; '' when there is none."""
    path = SOURCE_ROOT.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if not module or not path.is_file():
        return ""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=True) or ""
    return doc.partition("\n\n")[2].strip()


def error_lines(error: Exception) -> str:
    """`error: ` and each line of the message, for stderr; an indented line is a hint to
    the line above it (the layout a missing dataset should have), printed as it is."""
    lines = str(error).splitlines()
    return "\n".join(line if line[:1].isspace() else f"error: {line}" for line in lines)


def report_error(tool: str, error: Exception | str) -> int:
    """Print `error` as one line `<tool>: error: ...` on stderr and return EXIT_BAD_INPUT."""
    print(f"{tool}: error: {' '.join(str(error).split())}", file=sys.stderr)
    return EXIT_BAD_INPUT


@contextmanager
def warnings_printed(tool: str, on_error: bool = True) -> Iterator[None]:
    """Collect every warning raised in the block and print each as `<tool>: warning: ...`
    on stderr when the block ends (when it returns; when it raises too unless `on_error`
    is false: the error is then the one line said)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        failed = True
        try:
            yield
            failed = False
        finally:
            for warning in caught if on_error or not failed else ():
                print(f"{tool}: warning: {warning.message}", file=sys.stderr)
