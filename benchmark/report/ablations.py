"""Which runs make up each level of an ablation study (`benchmark.report.ablation_studies`
reads their definitions, the files of the `ablation_study` config group).

A study either varies one config value (`key`, e.g. `model.net.num_blocks` of `han`, as in
the HAN parameter study of Wang & Wan 2019; with several presets, each preset's values side
by side), or compares presets that differ in one part (`key=None`, e.g. the sentence
encoder of ATTOrderNet, Cui et al. 2018). A run's value of `key` is its resolved config
value, or, when the config leaves it out, the default the preset named by
`model.net._target_` declares (`models.registry.preset_settings`; so a base run counts at
the preset's own setting), the default of a
key added to the configs later (`benchmark.config.identity.ADDED_DEFAULTS`), or, for
`model.scheduler`, `none`. A list is one level (its items joined by `+`), an object the
config instantiates (a `_target_` node, e.g. a scheduler) is named by its class and
arguments (`ExponentialLR(gamma=0.95)`).

A one-factor study counts the runs of its `models/families/*/conf/ablation/` files (their preset and
`variant`), and of those only the runs at the reference setting of the preset's other
studied factors (the setting of the base-variant runs, else the most common one), so e.g.
the blocks curve is not mixed with runs of a heads or dropout ablation, nor with runs of
other variants.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from benchmark.config.checks import ConfigError, net_preset
from benchmark.config.identity import ADDED_DEFAULTS
from benchmark.records.run_collection import DEFAULT_VARIANT, Run
from benchmark.report.ablation_studies import Ablation, ablation_studies
from models.registry import NO_DEFAULT, preset_settings

NET_PREFIX = "model.net."
ABSENT_MEANS = {"model.scheduler": "none"}  # optional keys whose absence is a setting


def level_value(value):
    """A config value as a level: lists joined by `+`, `_target_` nodes named by class and
    arguments, other mappings by their sorted items; anything else as it is."""
    if isinstance(value, (list, tuple)):
        return "+".join(str(item) for item in value)
    if isinstance(value, dict) and "_target_" in value:
        arguments = ", ".join(
            f"{k}={v}" for k, v in sorted(value.items()) if not str(k).startswith("_")
        )
        return f"{str(value['_target_']).rsplit('.', 1)[-1]}({arguments})"
    if isinstance(value, dict):
        return repr(sorted(value.items()))
    return value


def factor_value(run: Run, key: str):
    """The run's value of config `key` (`level_value`), or its default (see the module
    docstring); None when unknown."""
    return level_value(_raw_factor_value(run, key))


def _raw_factor_value(run: Run, key: str):
    value = run.config_value(key)
    if value is None and key in ADDED_DEFAULTS:
        return ADDED_DEFAULTS[key]
    if value is None and key in ABSENT_MEANS:
        return ABSENT_MEANS[key]
    if value is not None or not key.startswith(NET_PREFIX):
        return value
    target = run.config_value(NET_PREFIX + "_target_")
    if not target:
        return None
    try:
        preset = net_preset(target)
    except ConfigError:  # not a registered preset
        return None
    _, default = preset_settings(preset.name).get(key[len(NET_PREFIX):], (None, NO_DEFAULT))
    return None if default is NO_DEFAULT else default


def _sibling_keys(study: Ablation, preset: str) -> list[str]:
    """The other one-factor keys studied on `preset`."""
    return sorted({
        other.key
        for other in ablation_studies()
        if other.key is not None and other.key != study.key and preset in other.presets
    })


def _reference(runs: Sequence[Run], key: str):
    """The base-variant runs' value of `key`, else the most common value."""
    base = [factor_value(run, key) for run in runs if run.variant == DEFAULT_VARIANT]
    values = base or [factor_value(run, key) for run in runs]
    return Counter(map(repr, values)).most_common(1)[0][0]


def _preset_levels(study: Ablation, preset: str, runs: Sequence[Run]) -> dict[object, list[Run]]:
    """Value of `study.key` -> runs of `preset` at that value and at the reference
    setting of the preset's other factors."""
    reference = {key: _reference(runs, key) for key in _sibling_keys(study, preset)}
    levels: dict[object, list[Run]] = {}
    for run in runs:
        value = factor_value(run, study.key)
        at_reference = all(repr(factor_value(run, k)) == v for k, v in reference.items())
        if value is not None and at_reference:
            levels.setdefault(value, []).append(run)
    return {value: levels[value] for value in sorted(levels, key=_level_order)}


def ablation_levels(study: Ablation, runs: Sequence[Run]) -> dict[object, list[Run]]:
    """The study's levels, in order, -> their runs, from the runs of one dataset.

    Preset studies: preset -> its base-variant runs, in `study.presets` order. One-factor
    studies: value of `study.key` -> the runs of the study's variants at that value and at
    the reference setting of the other factors, or, for a study over several presets,
    (preset, value) -> those runs, presets in `study.presets` order. Runs whose value is
    unknown are left out.
    """
    if study.key is None:
        levels = {
            preset: [run for run in runs if run.preset == preset and run.variant == DEFAULT_VARIANT]
            for preset in study.presets
        }
        return {preset: group for preset, group in levels.items() if group}
    levels: dict[object, list[Run]] = {}
    for preset in study.presets:
        of_preset = [
            run for run in runs if run.preset == preset and (preset, run.variant) in study.variants
        ]
        if not of_preset:
            continue
        for value, group in _preset_levels(study, preset, of_preset).items():
            levels[value if len(study.presets) == 1 else (preset, value)] = group
    return levels


def compared_levels(study: Ablation, levels: Mapping[object, list[Run]]) -> int:
    """How many different settings the levels compare: presets, or values of the key."""
    if study.key is None or len(study.presets) == 1:
        return len(levels)
    return len({value for _, value in levels})


def _level_order(value) -> tuple:
    """Numbers ascending, then anything else (booleans, text) by its text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return 0, float(value), ""
    return 1, 0.0, str(value)
