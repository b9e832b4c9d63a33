"""Hydra searches the config folder of every model family and of every study after `conf/`
(`models/families/<family>/conf/`, `studies/<name>/conf/`, found by folder:
`benchmark.config.config_folders`), so `model=han`, `+ablation=han_heads_2`,
`sweep=reproduction_e100` or `+reproduce=nips` compose from the folder that holds them. An
option in two folders stops Hydra before it composes (no first-found wins)."""

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

from benchmark.config.config_folders import (
    ConfigFolderError,
    duplicate_options,
    family_config_folders,
    study_config_folders,
)


class FamilyAndStudyConfigFolders(SearchPathPlugin):
    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        duplicates = duplicate_options()
        if duplicates:
            raise ConfigFolderError("; ".join(duplicates))
        for folder in family_config_folders():
            search_path.append(provider="orderbench-family", path=f"file://{folder}")
        for folder in study_config_folders():
            search_path.append(provider="orderbench-study", path=f"file://{folder}")
