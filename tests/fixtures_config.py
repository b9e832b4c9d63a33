"""`check_config` as a launch calls it (`benchmark.train.launch_run`): on the config composed
from `base` + `overrides`, with the overrides as typed and the chosen config groups."""

from __future__ import annotations

from collections.abc import Sequence

from omegaconf import open_dict

from benchmark.config.checks import check_config
from benchmark.config.compose import compose_config


def check_overrides(overrides: list[str], base: Sequence[str] = ()) -> None:
    """Raises `ConfigError` as the launch of `base` + `overrides` would."""
    cfg = compose_config([*base, *overrides], return_hydra_config=True)
    with open_dict(cfg):
        choices = cfg.pop("hydra").runtime.choices
    check_config(cfg, overrides, compose_config, choices)
