"""The ablation studies, read from their one definition: a file of the `ablation_study` group
of a study's config folder (`studies/ablations/conf/ablation_study/<name>.yaml`, found with the
other config folders: `benchmark.config.config_folders`). A definition is no run config: it is
read, never composed.

A study file gives the figure's `title` and x-axis label `axis`, and either

- `ablations`: the ablation files of a one-factor study (`models/families/*/conf/ablation/`;
  names or fnmatch patterns, e.g. `[han_base, han_blocks_*]`). The varied config key and
  the presets are not written again: the key is the one value the variant files set
  (besides `variant`), the presets are their `override /model` choices, in the registry's
  order (`models.registry`). So a new level is one more
  `models/families/*/conf/ablation/` file a pattern matches; or
- `presets`: presets compared at their own settings (their `base` runs), in that order.

The files are read with OmegaConf, without Hydra composition; they are not run configs.
A definition that cannot work is a `StudyDefinitionError` naming the file.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from benchmark.config.config_folders import group_files
from models.registry import preset_names

STUDY_GROUP = "ablation_study"  # the config group whose files define the ablation studies
ABLATION_DIR = "ablation"
MODEL_GROUP = "/model"
VARIANT_KEYS = frozenset({"defaults", "variant"})  # what a variant file sets besides its value


class StudyDefinitionError(ValueError):
    """A study or variant file that cannot define a study; the message names the file."""


@dataclass(frozen=True)
class Ablation:
    """One ablation study, drawn as one figure per dataset."""

    name: str  # file-name stem of its study file and of its plots
    title: str
    presets: tuple[str, ...]  # the runs of these presets take part
    key: str | None  # the config value varied; None: the presets are the levels
    axis: str  # what the levels are (x-axis label)
    ablations: tuple[str, ...] = ()  # its models/families/*/conf/ablation/ files (stems)
    variants: frozenset[tuple[str, str]] = frozenset()  # their runs' (preset, variant)


@dataclass(frozen=True)
class Variant:
    """What one `models/families/*/conf/ablation/` file sets: its preset and its config values."""

    name: str
    preset: str
    label: str  # its `variant`, the run directory's part
    values: dict[str, object]  # dotted config key -> value


def _load(path: Path) -> DictConfig:
    try:
        loaded = OmegaConf.load(path)
    except (OSError, OmegaConfBaseException, ValueError) as error:
        raise StudyDefinitionError(f"{path}: {str(error).splitlines()[0]}") from error
    if not isinstance(loaded, DictConfig):
        raise StudyDefinitionError(f"{path}: expected a mapping of keys")
    return loaded


def _leaves(node: DictConfig, prefix: str = "") -> dict[str, object]:
    """Dotted key -> value of every leaf under `node`; a node with a `_target_` (an object
    the config instantiates, e.g. `model.scheduler`) is one value, as a plain dict."""
    leaves: dict[str, object] = {}
    for key, value in node.items_ex(resolve=False):
        dotted = f"{prefix}{key}"
        if isinstance(value, DictConfig) and "_target_" in value:
            leaves[dotted] = OmegaConf.to_container(value)
        elif isinstance(value, DictConfig):
            leaves.update(_leaves(value, dotted + "."))
        elif isinstance(value, ListConfig):
            leaves[dotted] = OmegaConf.to_container(value)
        else:
            leaves[dotted] = value
    return leaves


def read_variant(path: Path) -> Variant:
    """The preset (`override /model: X` of its defaults), `variant` label and values of a
    variant file."""
    config = _load(path)
    label = config.get("variant")
    if not isinstance(label, str) or not label:
        raise StudyDefinitionError(f"{path}: variant must be set to a label (the run directory's)")
    presets = [
        str(value)
        for entry in config.get("defaults") or []
        if isinstance(entry, DictConfig)
        for group, value in entry.items()
        if str(group).split()[-1] == MODEL_GROUP
    ]
    if len(presets) != 1:
        raise StudyDefinitionError(
            f"{path}: expected one `override {MODEL_GROUP}: <preset>` in defaults, "
            f"found {len(presets)}"
        )
    values = {k: _sized(presets[0], k, v) for k, v in _leaves(config).items()
              if k.split(".")[0] not in VARIANT_KEYS}  # fmt: skip
    return Variant(path.stem, presets[0], label, values)


def _sized(preset: str, key: str, value):
    """`value`, or for `${preset_default:SIZE}` the preset's setting at that named size (a
    family's sizes are written once: models.registry), as the composed config has it."""
    named = re.fullmatch(r"\$\{preset_default:(\w+)\}", value) if isinstance(value, str) else None
    if named is None or not key.startswith("model.net."):
        return value
    from models.registry import preset_settings

    return preset_settings(preset, named[1])[key.removeprefix("model.net.")][1]


def _names(path: Path, field: str, value) -> tuple[str, ...]:
    if not isinstance(value, ListConfig) or not value or not all(
        isinstance(item, str) and item for item in value
    ):
        raise StudyDefinitionError(f"{path}: {field} must be a non-empty list of names")
    return tuple(value)


def _matched(path: Path, patterns: Iterable[str], variants: Mapping[str, Variant]) -> list[str]:
    """The variant names the patterns match, in pattern order, each once."""
    matched: list[str] = []
    for pattern in patterns:
        hits = sorted(fnmatch.filter(variants, pattern))
        if not hits:
            raise StudyDefinitionError(
                f"{path}: ablations: {pattern!r} matches no {ABLATION_DIR}/ file of a config folder"
            )
        matched += [name for name in hits if name not in matched]
    return matched


def _varied_key(path: Path, members: list[Variant]) -> str:
    """The one config key the study's variant files set (base files set none)."""
    keys = set()
    for variant in members:
        if len(variant.values) > 1:
            raise StudyDefinitionError(
                f"{path}: {ABLATION_DIR}/{variant.name}.yaml sets "
                f"{len(variant.values)} values ({', '.join(variant.values)}); a one-factor "
                "study needs one"
            )
        keys |= set(variant.values)
    if len(keys) != 1:
        found = ", ".join(sorted(keys)) or "none"
        raise StudyDefinitionError(
            f"{path}: its ablations must vary one config key, found {found}"
        )
    return keys.pop()


def _registry_order(names: Iterable[str]) -> tuple[str, ...]:
    """Presets in the registry's order; unregistered ones after them, by name."""
    order = {name: i for i, name in enumerate(preset_names())}
    return tuple(sorted(set(names), key=lambda name: (order.get(name, len(order)), name)))


def read_study(path: Path, variants: Mapping[str, Variant], known_presets: set[str]) -> Ablation:
    """One study file, its key and presets derived from its variant files."""
    config = _load(path)
    unknown = sorted(set(config) - {"title", "axis", "ablations", "presets"})
    if unknown:
        raise StudyDefinitionError(f"{path}: unknown field {unknown[0]!r}")
    for field in ("title", "axis"):
        if not isinstance(config.get(field), str) or not config.get(field):
            raise StudyDefinitionError(f"{path}: {field} must be set to a text")
    if ("ablations" in config) == ("presets" in config):
        raise StudyDefinitionError(f"{path}: give either ablations or presets")
    if "presets" in config:
        presets = _names(path, "presets", config.presets)
        missing = [name for name in presets if name not in known_presets]
        if missing:
            raise StudyDefinitionError(
                f"{path}: presets: {missing[0]!r} has no model/{missing[0]}.yaml"
            )
        return Ablation(path.stem, config.title, presets, None, config.axis)
    names = _matched(path, _names(path, "ablations", config.ablations), variants)
    members = [variants[name] for name in names]
    for variant in members:
        if variant.preset not in known_presets:
            raise StudyDefinitionError(
                f"{path}: {ABLATION_DIR}/{variant.name}.yaml: preset {variant.preset!r} "
                f"has no model/{variant.preset}.yaml"
            )
    return Ablation(
        path.stem,
        config.title,
        _registry_order(variant.preset for variant in members),
        _varied_key(path, members),
        config.axis,
        tuple(names),
        frozenset((variant.preset, variant.label) for variant in members),
    )


def load_studies(
    conf_dir: Path | None = None, study_dir: Path | None = None
) -> tuple[Ablation, ...]:
    """Every study defined in `study_dir` (default: the `STUDY_GROUP` files of every config
    folder), its variant files and presets in `conf_dir` (default: every config folder),
    by file name."""
    folders = None if conf_dir is None else [conf_dir]
    variants = {path.stem: read_variant(path) for path in group_files(ABLATION_DIR, folders)}
    known_presets = {path.stem for path in group_files("model", folders)}
    return tuple(
        read_study(path, variants, known_presets)
        for path in (
            group_files(STUDY_GROUP) if study_dir is None else sorted(study_dir.glob("*.yaml"))
        )
    )


@cache
def ablation_studies() -> tuple[Ablation, ...]:
    """The repository's studies (`STUDY_GROUP` files; read once)."""
    return load_studies()
