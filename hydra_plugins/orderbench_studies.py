"""Hydra searches the config folder of every study after `conf/` (`studies/<name>/conf/`,
found by folder: `benchmark.config.config_folders`), so `sweep=reproduction_e100` or
`+reproduce=nips` compose from the study that holds them."""

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

from benchmark.config.config_folders import study_config_folders


class StudyConfigFolders(SearchPathPlugin):
    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        for folder in study_config_folders():
            search_path.append(provider="orderbench-study", path=f"file://{folder}")
