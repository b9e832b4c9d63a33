"""Compose the Hydra configuration outside a Hydra app (for tools that make no run)."""

from __future__ import annotations

import difflib

from hydra import compose, initialize_config_dir
from hydra.errors import HydraException, MissingConfigException
from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from benchmark.config.config_folders import CONF_DIR
from benchmark.config.resolvers import register_resolvers

# what composing raises for a bad override (an unknown key or option, a malformed value)
COMPOSE_ERRORS = (HydraException, OmegaConfBaseException)


def compose_error(error: Exception) -> str:
    """The message of a COMPOSE_ERRORS error in one line, without Hydra's config search
    path; an option that no config group has names the group and its options."""
    options = getattr(error, "options", None)
    if isinstance(error, MissingConfigException) and options:
        group, _, name = str(error.missing_cfg_file).rpartition("/")
        close = difflib.get_close_matches(name, options, n=1)
        hint = f" (did you mean {group}={close[0]}?)" if close else ""
        return (f"{group}={name}: no such option of the config group {group}{hint}; its "
                f"options: {', '.join(options)}")  # fmt: skip
    return " ".join(str(error).split("Config search path:")[0].split())


def compose_config(overrides: list[str], return_hydra_config: bool = False) -> DictConfig:
    """The config `python -m benchmark.train` would see with these overrides (with
    Hydra's own `hydra` node if asked)."""
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose(
            config_name="config", overrides=overrides, return_hydra_config=return_hydra_config
        )
