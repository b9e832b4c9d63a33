"""The preset registry: every named model registers itself with `register_preset`, in the
style of fairseq's `@register_model_architecture`.

One registration says what the other places need, so a new model family is one folder,
`models/families/<family>/` (its presets, settings, private blocks, YAMLs and tests): the
tests build a tiny instance at its size `tiny` and train one on the toy task at `toy`,
`models.param_counts` counts every registered preset, plots give it its colour.
`presets()` imports every module at the top of every family folder first (not its
`blocks/`, `tests/` or `conf/`), so every preset defined there is listed; those modules
import what they build inside the preset functions, so the registry (its names, kinds, and
every preset's declared settings and sizes, which `${preset_default:}` and the config check
read) is known without importing torch. The harness builds only registered presets
(`preset_of` finds the one a config's `model.net._target_` names; `models.presets.<name>`
is every registered preset by name, the address the YAMLs give).

Settings: a preset's settings are declared once, as its keyword arguments (annotation and
default) and, for a family sharing them, the fields of a dataclass the preset takes through
`**kwargs` (`register_preset(..., settings=AttOrderNetSettings)`). `preset_settings(name)`
is the one reader: reports, parameter counts and the run's config check ask it for
defaults, types and the keys a preset takes; `models.hyperparameters` holds the ranges.

Sizes: a family names its sizes once, as settings that differ from the declared defaults
(`SIZES` of its settings dataclass: `{"cpu": {"hidden_dim": 256, ...}, "tiny": ...}`), and a
preset adds its own (`register_preset(..., sizes={"tiny": {...}})`); each preset keeps the
settings it takes. `tiny` (a small instance over 30 word ids) and `toy` (learns the tests'
toy task) are sizes too. `preset_settings(name, size)` gives the defaults at a named size;
a model YAML picks one with `model.size` (`benchmark/config/resolvers.py`).

Kind: `trained` (the default: the harness optimises it), `rule` (learns nothing from the
data) or `baseline` (the figures every run is read against, `random`); the harness reads
it (`benchmark.run.model_builder.configured_preset`), never a class attribute or a preset's name.

Summary: a preset may describe itself (`summary=Summary(sentences=..., paragraph=...,
decoder=...)`): its cells of the table of presets of docs/models.md, which
`orderbench params markdown=docs/models.md` (`make docs`) writes with the parameter
counts, and the line `orderbench presets` prints. A `{setting}` in a cell is that
setting's declared default, so the text never restates a number.

Colours: a preset may pick one (`colour="#rrggbb"`), which no other preset may have; a
preset that picks none is given a free colour of `PALETTE` (`preset_colours`), the same one
in every plot as long as the set of presets is the same. `orderbench presets` lists
every preset's colour and the colours still free.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import string
import typing
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from models.hyperparameters import checked_preset

FAMILIES_PACKAGE = "models.families"  # a folder per family: its top-level modules register
PRESETS_PACKAGE = "models.presets"  # the address of every preset by name (no modules of its own)
HARNESS_ARGUMENTS = ("vocab_size", "pretrained_embeddings")  # given by the harness, not settings
# what a preset is: a model the harness trains, a rule that learns nothing from the data
# (a calibration baseline), or a baseline the figures of every run are read against
KINDS = ("trained", "rule", "baseline")
NO_DEFAULT = inspect.Parameter.empty  # the default of a setting declared without one


@dataclass(frozen=True)
class Summary:
    """A preset's description, in Markdown, a few words each: its cells of the table of
    presets of docs/models.md (`models.param_counts.markdown_table` adds the parameter
    counts) and, on one line, what `orderbench presets` prints beside its name."""

    sentences: str  # the sentence encoder ("—": none)
    paragraph: str  # the paragraph encoder ("none", "as `attordernet`")
    decoder: str  # the decoder, or how the order is found
    label: str = ""  # after the name in the table: "calibration" -> `bow_position` (calibration)
    trainable_note: str = ""  # after the trainable counts: "20,276 (0 + 20,276: NOTE)"
    frozen_note: str = ""  # after the frozen count: "147,840 (NOTE)"

    def line(self) -> str:
        """Sentence encoder | paragraph encoder | decoder, on one line without backticks."""
        return " | ".join((self.sentences, self.paragraph, self.decoder)).replace("`", "")

    def filled(self, defaults: Mapping[str, object]) -> Summary:
        """The summary with every `{setting}` of its cells replaced by `defaults[setting]`;
        ValueError naming a setting `defaults` lacks."""
        cells = {}
        for cell in dataclasses.fields(self):
            text = getattr(self, cell.name)
            names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
            unknown = sorted(names - set(defaults))
            if unknown:
                raise ValueError(f"summary {cell.name}: {{{unknown[0]}}} is no declared setting")
            cells[cell.name] = text.format_map(defaults)
        return Summary(**cells)


@dataclass(frozen=True)
class Preset:
    name: str
    build: Callable  # (vocab_size, pretrained_embeddings=None, **settings) -> model
    sizes: dict = field(default_factory=dict)  # size name -> the settings that differ there:
    # the family's (`SIZES` of `settings`) and the preset's own, each kept if the preset takes it
    toy_lr: float = 1e-2  # Adam learning rate for the size `toy`
    colour: str | None = None  # plot colour; None: a free one of PALETTE (preset_colours)
    kind: str = "trained"  # one of KINDS: trained by the harness, a rule, or a baseline
    order_free: bool = False  # its paragraph encoding ignores the presented order
    pointer: bool = True  # False: not a pointer network (forward gives other logits,
    # log_prob is an unnormalised score); the pointer-interface tests leave it out
    divides: tuple = ()  # (divisor, width) pairs of settings: heads must divide widths
    # (models.hyperparameters, which checks every preset's settings when it is built)
    settings: type | None = None  # a dataclass of settings a family shares: its fields are
    # settings of the preset too, taken through `**kwargs` (`preset_settings`)
    summary: Summary | None = None  # its row of docs/models.md's table of presets; None: the
    # table cannot list it (`orderbench params markdown=...` says so)

    @property
    def tiny(self) -> dict:
        """A small instance over 30 word ids (tests): the size `tiny`."""
        return dict(self.sizes.get("tiny", {}))

    @property
    def toy(self) -> dict | None:
        """Settings that learn the toy ordering task (tests): the size `toy`; None: none."""
        return dict(self.sizes["toy"]) if "toy" in self.sizes else None

    @property
    def trainable(self) -> bool:
        """Whether the harness optimises it: only a `trained` preset has weights to learn."""
        return self.kind == "trained"

    def takes(self, setting: str) -> bool:
        """Whether the preset takes the keyword argument `setting`: a declared setting, a
        harness argument, or anything when its `**kwargs` are not a settings dataclass
        (a baseline ignoring the other presets' settings)."""
        return (
            setting in HARNESS_ARGUMENTS
            or setting in declared_settings(self.build, self.settings)
            or (self.settings is None and _var_keyword(self.build))
        )


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


def _var_keyword(build: Callable) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(build).parameters.values())


def _field_default(item: dataclasses.Field):
    if item.default is not dataclasses.MISSING:
        return item.default
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return NO_DEFAULT


def _evaluated(annotation, build: Callable):
    """A setting's annotation as a type where its module can evaluate it (`int | None`);
    one naming what the module imports only for a type checker (a vector store) stays text."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, getattr(inspect.unwrap(build), "__globals__", {}))  # noqa: S307
    except NameError:
        return annotation


def declared_settings(build: Callable, settings: type | None = None) -> dict[str, tuple]:
    """`{setting: (annotation, default)}` of the preset function `build`: its keyword
    arguments but the harness's, then the fields of the dataclass `settings` it does not
    take itself. A missing annotation or default is `NO_DEFAULT` (inspect's `empty`)."""
    parameters = inspect.signature(build).parameters
    declared = {
        name: (_evaluated(p.annotation, build), p.default)
        for name, p in parameters.items()
        if name not in HARNESS_ARGUMENTS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    if settings is not None:
        hints = typing.get_type_hints(settings)
        for item in dataclasses.fields(settings):
            declared.setdefault(item.name, (hints.get(item.name, item.type), _field_default(item)))
    return declared


def _sizes(name: str, declared: Mapping[str, tuple], family: Mapping, own: Mapping) -> dict:
    """Size name -> settings: the family's sizes restricted to the settings the preset takes
    (a sibling's own settings are left out), the preset's own over them; ValueError for an
    own size setting the preset does not take."""
    sizes = {}
    for size in [*family, *(s for s in own if s not in family)]:
        wrong = sorted(set(own.get(size, {})) - set(declared))
        if wrong:
            raise ValueError(f"preset {name!r}: size {size!r} sets {wrong[0]!r}, no setting of it")
        sizes[size] = {key: value for key, value in {**family.get(size, {}),
                       **own.get(size, {})}.items() if key in declared}  # fmt: skip
    return sizes


def register_preset(name: str, sizes: Mapping | None = None, **entry
                    ) -> Callable[[Callable], Callable]:  # fmt: skip
    """Decorator registering a preset function under `name` with the `Preset` fields
    `entry`, its own named sizes `sizes` over its settings class's `SIZES`, and the head
    counts its settings class says must divide widths (`DIVIDES`) before its own `divides`.
    Registering another function under a taken name is a ValueError, and so is a
    `settings` class that is not a dataclass or a function without `**kwargs` to take its
    fields, a size setting it does not take, or a `summary` that is not a `Summary` or
    names no setting. The preset returned refuses settings out of range before building
    (`models.hyperparameters`)."""

    def decorate(build: Callable) -> Callable:
        known = _PRESETS.get(name)
        if known is not None and known.build.__qualname__ != build.__qualname__:
            raise ValueError(f"preset {name!r} is already registered by {known.build.__module__}")
        settings = entry.get("settings")
        if settings is not None and not (
            dataclasses.is_dataclass(settings) and isinstance(settings, type)
        ):
            raise ValueError(f"preset {name!r}: settings must be a dataclass, got {settings!r}")
        if settings is not None and not _var_keyword(build):
            raise ValueError(
                f"preset {name!r}: a settings dataclass needs **kwargs in {build.__qualname__}"
            )
        if entry.get("kind", "trained") not in KINDS:
            raise ValueError(f"preset {name!r}: kind must be one of {KINDS}, got {entry['kind']!r}")
        summary = entry.get("summary")
        if summary is not None and not isinstance(summary, Summary):
            raise ValueError(f"preset {name!r}: summary must be a Summary, got {summary!r}")
        declared = declared_settings(build, settings)
        if summary is not None:
            entry["summary"] = summary.filled(
                {key: default for key, (_, default) in declared.items()})
        entry["divides"] = (*getattr(settings, "DIVIDES", ()), *entry.get("divides", ()))
        entry["sizes"] = _sizes(name, declared, getattr(settings, "SIZES", {}), sizes or {})
        colour = entry.get("colour")
        owner = next((p.name for p in _PRESETS.values()
                      if p.name != name and p.colour and colour
                      and p.colour.lower() == colour.lower()), None)  # fmt: skip
        if owner is not None:
            raise ValueError(
                f"preset {name!r}: colour {colour} is already taken by preset {owner!r}; leave "
                "`colour` out to be given a free one (orderbench presets lists them)"
            )
        checked = checked_preset(build, declared, entry["divides"])
        _PRESETS[name] = Preset(name, checked, **entry)
        return checked

    return decorate


def _import_presets() -> None:
    """Import every module at the top of every family folder (their registrations run on
    import; none imports torch until a preset is built), not their subpackages (`blocks/`)."""
    families = importlib.import_module(FAMILIES_PACKAGE)  # here: its modules import this one
    for family in pkgutil.iter_modules(families.__path__, prefix=f"{FAMILIES_PACKAGE}."):
        if not family.ispkg:
            continue
        package = importlib.import_module(family.name)
        for module in pkgutil.iter_modules(package.__path__, prefix=f"{family.name}."):
            if not module.ispkg:
                importlib.import_module(module.name)


def presets() -> dict[str, Preset]:
    """Every registered preset by name: the families' (by module name, then line), then
    any other in registration order (the same order whichever module a process imported
    first)."""
    _import_presets()
    return dict(sorted(_PRESETS.items(), key=lambda item: _place(*item)))


def _place(name: str, preset: Preset) -> tuple:
    module = getattr(preset.build, "__module__", "") or ""
    line = getattr(getattr(inspect.unwrap(preset.build), "__code__", None), "co_firstlineno", 0)
    if module.startswith(f"{FAMILIES_PACKAGE}."):
        return (0, module, line)
    return (1, "", list(_PRESETS).index(name))


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


def preset_settings(name: str, size: str | None = None) -> dict[str, tuple]:
    """`{setting: (annotation, default)}` of the registered preset `name`
    (`declared_settings`): what its YAML may set under `model.net`, and the defaults a run
    that leaves a setting out was built with; with `size`, the defaults at that named size.
    KeyError for an unknown preset or size (naming the preset's sizes)."""
    preset = get_preset(name)
    declared = declared_settings(preset.build, preset.settings)
    if size is None:
        return declared
    if size not in preset.sizes:
        raise KeyError(f"preset {name!r} has no size {size!r}; its sizes: "
                       f"{', '.join(preset.sizes) or 'none'}")  # fmt: skip
    return {key: (annotation, preset.sizes[size].get(key, default))
            for key, (annotation, default) in declared.items()}  # fmt: skip


def preset_of(build: object) -> Preset | None:
    """The registered preset whose function is `build` (the object a `_target_` names),
    or None."""
    return next((preset for preset in _PRESETS.values() if preset.build is build), None)


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
    """Print a header, then every preset with its kind, its colour in plots (`picked` in its
    registration, or `given` from the free ones) and its summary (sentence encoder |
    paragraph encoder | decoder), then the colours no preset has."""
    colours = preset_colours()
    print(f"{'preset':20} {'kind':8} {'colour':7}  {'chosen':6}  "
          "sentence encoder | paragraph encoder | decoder")
    for name, preset in presets().items():
        line = (f"{name:20} {preset.kind:8} {colours[name]}  "
                f"{'picked' if preset.colour else 'given':6}")
        print(f"{line}  {preset.summary.line()}" if preset.summary else line)
    print(f"free colours: {' '.join(free_colours())}")


if __name__ == "__main__":  # the registry the presets register with is `models.registry`'s
    importlib.import_module("models.registry").main()
