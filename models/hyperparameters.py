"""The ranges of the presets' settings, in one place: checked when a preset is built
(`models.registry.register_preset` wraps every preset) and, before any data is read, by
the run's config check, which names the full key (`model.net.dropout`).

A setting is judged by its argument's name, which the presets share:

- `dropout`, `*_dropout`: a rate in [0, 1);
- `train_layers`, `warmup_steps`: counts, integers >= 0;
- `*_dim`, `heads`, `*_heads`, `num_*`, `*_layers`, `*_batch_size`, `max_tokens`,
  `filter_width` (one or a list): sizes, integers >= 1.

None passes where the argument takes it (its default, or `| None` in its annotation).
A preset also says which widths its head counts must divide (`divides` of
`register_preset`: pairs (divisor, width), the divisor an argument name or a number).
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fnmatch import fnmatch

RATES = ("dropout", "*_dropout")
COUNTS = ("train_layers", "warmup_steps")
SIZES = ("*_dim", "heads", "*_heads", "num_*", "*_layers", "*_batch_size", "max_tokens",
         "filter_width")
LISTS = ("filter_width",)  # sizes that may be a list of sizes


class SettingError(ValueError):
    """Preset settings out of range; one line per problem, each naming its argument."""


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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


def _takes_none(parameter: inspect.Parameter) -> bool:
    return parameter.default is None or "None" in str(parameter.annotation)


def setting_problems(
    build: Callable,
    settings: Mapping,
    divides: Iterable[tuple[str | int, str]] = (),
    prefix: str = "",
) -> list[str]:
    """One line per setting of `settings` (keyword arguments of the preset `build`) out of
    its range, naming `prefix` + the argument; then the `divides` pairs (divisor, width)
    that do not divide, with the defaults of `build` for what `settings` lacks."""
    parameters = inspect.signature(build).parameters
    problems, bad = [], set()
    for name, value in settings.items():
        parameter = parameters.get(name)
        if parameter is None or parameter.kind is parameter.VAR_KEYWORD:
            continue  # not an argument of its own (e.g. one the baseline ignores)
        if value is None and _takes_none(parameter):
            continue
        problem = _problem(name, value)
        if problem:
            problems.append(f"{prefix}{name}: {problem}")
            bad.add(name)

    def given(name: str):
        if name in settings:
            return settings[name]
        parameter = parameters.get(name)
        return None if parameter is None else parameter.default

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


def checked_preset(build: Callable, divides: Iterable[tuple[str | int, str]] = ()) -> Callable:
    """`build` refusing settings out of range (SettingError) before it builds anything;
    its `setting_problems(settings, prefix="")` lists them without building."""
    divides = tuple(divides)

    @functools.wraps(build)  # its name, docstring and signature (`takes_settings`'s too)
    def checked(*args, **settings):
        problems = setting_problems(build, settings, divides)
        if problems:
            raise SettingError("\n".join(problems))
        return build(*args, **settings)

    checked.setting_problems = lambda settings, prefix="": setting_problems(
        build, settings, divides, prefix
    )
    return checked
