"""The preset registry: every named model registers itself with `register_preset`, in the
style of fairseq's `@register_model_architecture`.

One registration says what the other places need, so a new model is one file in models/
and one YAML in conf/model/: the tests build a tiny instance from `tiny` and train one on
the toy task with `toy`, `models.param_counts` counts every registered preset, plots give
it `colour`. `preset_names()` imports every module of the models package first, so a
preset defined in any file of models/ is listed.
"""

from __future__ import annotations

import importlib
import pkgutil
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
    colour: str | None = None  # plot colour; None: a stable colour from the name
    trainable: bool = True  # False: the harness does not optimise it (a baseline)
    order_free: bool = False  # its paragraph encoding ignores the presented order
    pointer: bool = True  # False: not a pointer network (forward gives other logits,
    # log_prob is an unnormalised score); the pointer-interface tests leave it out
    divides: tuple = ()  # (divisor, width) pairs of settings: heads must divide widths
    # (models.hyperparameters, which checks every preset's settings when it is built)


_PRESETS: dict[str, Preset] = {}


def register_preset(name: str, **entry) -> Callable[[Callable], Callable]:
    """Decorator registering a preset function under `name` with the `Preset` fields
    `entry`. Registering another function under a taken name is a ValueError. The preset
    returned refuses settings out of range before building (`models.hyperparameters`)."""

    def decorate(build: Callable) -> Callable:
        known = _PRESETS.get(name)
        if known is not None and known.build.__qualname__ != build.__qualname__:
            raise ValueError(f"preset {name!r} is already registered by {known.build.__module__}")
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
