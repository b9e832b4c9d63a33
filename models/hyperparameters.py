"""The ranges of the presets' settings, in one place: checked when a preset is built
(`models.registry.register_preset` wraps every preset) and, before any data is read, by
the run's config check, which names the full key (`model.net.dropout`) and checks the
types too. What a preset takes, with annotations and defaults, is its declaration
(`models.registry.preset_settings`: `{setting: (annotation, default)}`).

A setting's range is judged by its name, which the presets share:

- `dropout`, `*_dropout`: a rate in [0, 1);
- `train_layers`, `warmup_steps`: counts, integers >= 0;
- `*_dim`, `heads`, `*_heads`, `num_*`, `*_layers`, `*_batch_size`, `max_tokens`,
  `decay_epochs`, `filter_width` (one or a list): sizes, integers >= 1.

None passes where the argument takes it (its default, or `| None` in its annotation).
A preset also says which widths its head counts must divide (`divides` of
`register_preset`: pairs (divisor, width), the divisor an argument name or a number).
With `check_types=True`, a setting without a range is checked against its annotation where that
is made of `int`, `float`, `bool`, `str`, `None` and `list[...]` of them (an `int` passes
for a `float`); other annotations (a tensor, an object the config instantiates) are not
checked here.
"""

from __future__ import annotations

import functools
import inspect
import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from fnmatch import fnmatch

RATES = ("dropout", "*_dropout")
COUNTS = ("train_layers", "warmup_steps")
SIZES = ("*_dim", "heads", "*_heads", "num_*", "*_layers", "*_batch_size", "max_tokens",
         "filter_width", "decay_epochs")
LISTS = ("filter_width",)  # sizes that may be a list of sizes


class SettingError(ValueError):
    """Preset settings out of range; one line per problem, each naming its argument."""


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _has_range(name: str) -> bool:
    return name in COUNTS or any(fnmatch(name, p) for p in (*RATES, *SIZES))


def _problem(name: str, value) -> str | None:
    """What is wrong with `value` for the argument `name`, or None."""
    if any(fnmatch(name, pattern) for pattern in RATES):
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and not math.isnan(value) and 0 <= value < 1:
            return None
        return f"expected a number in [0, 1), got {value!r}"
    if name in COUNTS:
        low = 0
    elif any(fnmatch(name, pattern) for pattern in SIZES):
        low = 1
    else:
        return None  # no range known: the preset checks it itself
    # a list of sizes arrives as a list, a tuple or OmegaConf's ListConfig (a Sequence)
    several = name in LISTS and isinstance(value, Sequence) and not isinstance(value, str)
    values = list(value) if several and len(value) else [value]
    if all(_is_int(v) and v >= low for v in values):
        return None
    return f"expected an integer >= {low}, got {value!r}"


def _takes_none(annotation, default) -> bool:
    return default is None or "None" in str(annotation)


_KINDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string",
          type(None): "null"}  # fmt: skip
_ITEMS = {int: "integers", float: "numbers", bool: "booleans", str: "strings", type(None): "nulls"}


def _alternatives(annotation) -> list | None:
    """The simple types (and `list[...]` of them) `annotation` allows, or None when it
    names anything else (then nothing is checked)."""
    if isinstance(annotation, type) and annotation in _KINDS:
        return [annotation]
    if annotation is None:
        return [type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [_alternatives(arg) for arg in typing.get_args(annotation)]
        return None if any(part is None for part in parts) else [t for p in parts for t in p]
    if origin is list and len(typing.get_args(annotation)) == 1:
        items = _alternatives(typing.get_args(annotation)[0])
        return None if items is None else [("list", tuple(items))]
    return None


def _matches(value, kind) -> bool:
    if isinstance(kind, tuple):  # ("list", item kinds): a list, a tuple or a ListConfig
        return isinstance(value, Sequence) and not isinstance(value, str) and all(
            any(_matches(item, k) for k in kind[1]) for item in value
        )
    if kind is int:
        return _is_int(value)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind)


def _type_problem(annotation, value) -> str | None:
    """What is wrong with `value` for `annotation` (see the module docstring), or None."""
    kinds = _alternatives(annotation)
    if kinds is None or any(_matches(value, kind) for kind in kinds):
        return None
    named = [
        f"a list of {' or '.join(_ITEMS[k] for k in kind[1])}" if isinstance(kind, tuple)
        else _KINDS[kind]
        for kind in kinds
    ]
    return f"expected {' or '.join(named)}, got {value!r}"


def setting_problems(
    declared: Mapping[str, tuple],
    settings: Mapping,
    divides: Iterable[tuple[str | int, str]] = (),
    prefix: str = "",
    check_types: bool = False,
) -> list[str]:
    """One line per setting of `settings` out of its range (with `check_types`, or not of its
    annotation's type), naming `prefix` + the argument; then the `divides` pairs (divisor,
    width) that do not divide, with the declared defaults for what `settings` lacks.
    `declared`: the preset's `{setting: (annotation, default)}`; a setting it does not
    declare is not judged (e.g. one a baseline ignores)."""
    problems, bad = [], set()
    for name, value in settings.items():
        if name not in declared:
            continue
        annotation, default = declared[name]
        if value is None and _takes_none(annotation, default):
            continue
        problem = _problem(name, value)
        if problem is None and check_types and not _has_range(name):
            problem = _type_problem(annotation, value)
        if problem:
            problems.append(f"{prefix}{name}: {problem}")
            bad.add(name)

    def given(name: str):
        if name in settings:
            return settings[name]
        default = declared.get(name, (None, None))[1]
        return None if default is inspect.Parameter.empty else default

    for divisor, width in divides:
        count = divisor if _is_int(divisor) else given(divisor)
        size = given(width)
        if {divisor, width} & bad or not (_is_int(count) and _is_int(size)) or count < 1 \
                or size % count == 0:
            continue
        if _is_int(divisor):
            problems.append(f"{prefix}{width}: must be a multiple of {divisor}, got {size}")
        else:
            problems.append(f"{prefix}{divisor}: must divide {prefix}{width} ({size}), got {count}")
    return problems


def checked_preset(
    build: Callable, declared: Mapping[str, tuple], divides: Iterable[tuple[str | int, str]] = ()
) -> Callable:
    """`build` refusing settings out of range (SettingError) before it builds anything;
    `declared`: its `{setting: (annotation, default)}`."""
    divides = tuple(divides)

    @functools.wraps(build)  # its name, docstring and signature
    def checked(*args, **settings):
        problems = setting_problems(declared, settings, divides)
        if problems:
            raise SettingError("\n".join(problems))
        return build(*args, **settings)

    return checked
