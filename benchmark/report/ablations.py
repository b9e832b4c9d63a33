"""The ablation studies the plots show, and which runs make up each point of them.

`ABLATIONS` is the one table of studies. A study either varies one config value (`key`,
e.g. `model.net.num_blocks` of `han`, as in the HAN parameter study of Wang & Wan 2019;
with several presets, each preset's values side by side), or compares presets that differ
in one part (`key=None`, e.g. the sentence encoder of ATTOrderNet, Cui et al. 2018). A
run's value of `key` is its resolved config value, or, when the config leaves it out, the
default of the preset function named by `model.net._target_` (so a base run counts at the
preset's own setting).

For a one-factor study, only runs at the reference setting of the preset's other factors
count (the setting of the base-variant runs, else the most common one), so e.g. the
blocks curve is not mixed with runs of a heads or dropout ablation.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hydra.utils import get_method

from benchmark.records.run_collection import DEFAULT_VARIANT, Run

NET_PREFIX = "model.net."


@dataclass(frozen=True)
class Ablation:
    """One ablation study, drawn as one figure per dataset."""

    name: str  # file-name stem
    title: str
    presets: tuple[str, ...]  # the runs of these presets take part
    key: str | None  # the config value varied; None: the presets are the levels
    axis: str  # what the levels are (x-axis label)


ABLATIONS: tuple[Ablation, ...] = (
    Ablation("han_blocks", "HAN: number of gated self-attention blocks", ("han",),
             "model.net.num_blocks", "blocks M"),
    Ablation("han_heads", "HAN: number of attention heads", ("han",),
             "model.net.heads", "attention heads H"),
    Ablation("han_dropout", "HAN: dropout", ("han",), "model.net.dropout", "dropout rate"),
    Ablation("han_word_attention", "HAN with and without word-level attention", ("han",),
             "model.net.word_attention", "word attention"),
    Ablation("attordernet_positions",
             "ATTOrderNet with and without positional encoding of the presented order",
             ("attordernet", "attordernet_att", "attordernet_cnn"),
             "model.net.paragraph_positions", "preset, positional encoding"),
    Ablation("attordernet_sentence_encoder",
             "ATTOrderNet: sentence encoder swap (same paragraph encoder and decoder)",
             ("attordernet", "attordernet_att", "attordernet_cnn", "minilm_ptrnet"), None,
             "preset (sentence encoder)"),
    Ablation("ptrnet_sentence_encoder", "Pointer network: LSTM or CNN sentence encoder",
             ("lstm_ptrnet", "cnn_ptrnet"), None, "preset (sentence encoder)"),
)


def factor_value(run: Run, key: str):
    """The run's value of config `key`, or its preset's default; None when unknown."""
    value = run.config_value(key)
    if value is not None or not key.startswith(NET_PREFIX):
        return value
    target = run.config_value(NET_PREFIX + "_target_")
    if not target:
        return None
    try:
        parameter = inspect.signature(get_method(target)).parameters.get(key[len(NET_PREFIX):])
    except (ImportError, ValueError):  # hydra raises ImportError for an unknown target
        return None
    if parameter is None or parameter.default is inspect.Parameter.empty:
        return None
    return parameter.default


def _sibling_keys(study: Ablation) -> list[str]:
    """The other one-factor keys studied on the same presets."""
    return [
        other.key
        for other in ABLATIONS
        if other.key is not None and other.key != study.key and other.presets == study.presets
    ]


def _reference(runs: Sequence[Run], key: str):
    """The base-variant runs' value of `key`, else the most common value."""
    base = [factor_value(run, key) for run in runs if run.variant == DEFAULT_VARIANT]
    values = base or [factor_value(run, key) for run in runs]
    return Counter(map(repr, values)).most_common(1)[0][0]


def _preset_levels(study: Ablation, runs: Sequence[Run]) -> dict[object, list[Run]]:
    """Value of `study.key` -> runs of one preset at that value and at the reference
    setting of the preset's other factors."""
    reference = {key: _reference(runs, key) for key in _sibling_keys(study)}
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
    studies: value of `study.key` -> the runs at that value and at the reference setting
    of the other factors, or, for a study over several presets, (preset, value) -> those
    runs, presets in table order. Runs whose value is unknown are left out.
    """
    if study.key is None:
        levels = {
            preset: [run for run in runs if run.preset == preset and run.variant == DEFAULT_VARIANT]
            for preset in study.presets
        }
        return {preset: group for preset, group in levels.items() if group}
    levels: dict[object, list[Run]] = {}
    for preset in study.presets:
        of_preset = [run for run in runs if run.preset == preset]
        if not of_preset:
            continue
        for value, group in _preset_levels(study, of_preset).items():
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
