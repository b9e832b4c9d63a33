"""The preset registry: every named model registers itself with `register_preset`, in the
style of fairseq's `@register_model_architecture`.

One registration says what the other places need, so a new model is one file in models/
and one YAML in conf/model/: the tests build a tiny instance from `tiny` and train one on
the toy task with `toy`, `models.param_counts` counts every registered preset, plots give
it its colour. `preset_names()` imports every module of the models package first, so a
preset defined in any file of models/ is listed.

Colours: a preset may pick one (`colour="#rrggbb"`), which no other preset may have; a
preset that picks none is given a free colour of `PALETTE` (`preset_colours`), the same one
in every plot as long as the set of presets is the same. `orderbench presets` lists
every preset's colour and the colours still free.
"""

from __future__ import annotations

import importlib
import pkgutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import models
from models.hyperparameters import checked_preset


@dataclass(frozen=True)
class Preset:
    name: str
    build: Callable  # (vocab_size, pretrained_embeddings=None, **settings) -> model
    tiny: dict = field(default_factory=dict)  # a small instance over 30 word ids (tests)
    toy: dict | None = None  # settings that learn the toy ordering task (tests); None: none
    toy_lr: float = 1e-2  # Adam learning rate for `toy`
    colour: str | None = None  # plot colour; None: a free one of PALETTE (preset_colours)
    trainable: bool = True  # False: the harness does not optimise it (a baseline)
    order_free: bool = False  # its paragraph encoding ignores the presented order
    pointer: bool = True  # False: not a pointer network (forward gives other logits,
    # log_prob is an unnormalised score); the pointer-interface tests leave it out
    divides: tuple = ()  # (divisor, width) pairs of settings: heads must divide widths
    # (models.hyperparameters, which checks every preset's settings when it is built)


_PRESETS: dict[str, Preset] = {}
# the colours given to presets that pick none: matplotlib's tab20, then tab20b
PALETTE = (
    "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
    "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#7f7f7f", "#c7c7c7",
    "#bcbd22", "#dbdb8d", "#17becf", "#9edae5",
    "#393b79", "#5254a3", "#6b6ecf", "#9c9ede", "#637939", "#8ca252", "#b5cf6b", "#cedb9c",
    "#8c6d31", "#bd9e39", "#e7ba52", "#e7cb94", "#843c39", "#ad494a", "#d6616b", "#e7969c",
    "#7b4173", "#a55194", "#ce6dbd", "#de9ed6",
)  # fmt: skip


def register_preset(name: str, **entry) -> Callable[[Callable], Callable]:
    """Decorator registering a preset function under `name` with the `Preset` fields
    `entry`. Registering another function under a taken name is a ValueError. The preset
    returned refuses settings out of range before building (`models.hyperparameters`)."""

    def decorate(build: Callable) -> Callable:
        known = _PRESETS.get(name)
        if known is not None and known.build.__qualname__ != build.__qualname__:
            raise ValueError(f"preset {name!r} is already registered by {known.build.__module__}")
        colour = entry.get("colour")
        owner = next((p.name for p in _PRESETS.values()
                      if p.name != name and p.colour and colour
                      and p.colour.lower() == colour.lower()), None)  # fmt: skip
        if owner is not None:
            raise ValueError(
                f"preset {name!r}: colour {colour} is already taken by preset {owner!r}; leave "
                "`colour` out to be given a free one (orderbench presets lists them)"
            )
        checked = checked_preset(build, entry.get("divides", ()))
        _PRESETS[name] = Preset(name, checked, **entry)
        return checked

    return decorate


def _import_models() -> None:
    """Import every module of the models package (their registrations run on import)."""
    for module in pkgutil.walk_packages(models.__path__, prefix="models."):
        importlib.import_module(module.name)


def presets() -> dict[str, Preset]:
    """Every registered preset by name, in registration order."""
    _import_models()
    return dict(_PRESETS)


def preset_names(trainable: bool | None = None) -> tuple[str, ...]:
    """Names of the registered presets (only the trainable ones, or the others, if set)."""
    return tuple(
        name for name, p in presets().items() if trainable is None or p.trainable == trainable
    )


def get_preset(name: str) -> Preset:
    """The registered preset `name`; KeyError listing the known ones."""
    known = presets()
    if name not in known:
        raise KeyError(f"no preset {name!r}; registered: {', '.join(known)}")
    return known[name]


def preset_colours() -> dict[str, str]:
    """Every registered preset's plot colour: its own, else a free colour of `PALETTE`: the
    one a digest of its name points at, or the next free one after it (presets by name), so
    that a preset keeps its colour when others are added unless one takes that colour first."""
    known = presets()
    colours = {name: p.colour.lower() for name, p in known.items() if p.colour}
    taken = set(colours.values())
    for name in sorted(set(known) - set(colours)):
        start = zlib.crc32(name.encode("utf-8")) % len(PALETTE)
        ring = PALETTE[start:] + PALETTE[:start]
        colours[name] = next((c for c in ring if c not in taken), ring[0])  # all taken: share
        taken.add(colours[name])
    return {name: colours[name] for name in known}


def free_colours() -> list[str]:
    """The colours of `PALETTE` no registered preset has."""
    taken = set(preset_colours().values())
    return [colour for colour in PALETTE if colour not in taken]


def main() -> None:
    """Print every preset with its colour (`picked` or `given`), then the free colours."""
    colours = preset_colours()
    for name, preset in presets().items():
        print(f"{name:20} {colours[name]}  {'picked' if preset.colour else 'given'}")
    print(f"free: {' '.join(free_colours())}")


if __name__ == "__main__":  # the registry the presets register with is `models.registry`'s
    importlib.import_module("models.registry").main()
