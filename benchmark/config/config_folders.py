"""The folders a run's config is composed from: `conf/` (the library's groups) and the
`conf/` folder of every study (`studies/<name>/conf/`: a study's own sweeps and settings,
beside its code). The study folders are found by folder, so the library names no study;
Hydra searches them after `conf/` (`hydra_plugins/orderbench_studies.py`), so a group's
options are the files of that group in any of them. Standard library only: `orderbench
train --help` lists the groups without importing Hydra.
"""

from __future__ import annotations

from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]
CONF_DIR = SOURCE_ROOT / "conf"
STUDIES_DIR = SOURCE_ROOT / "studies"


def study_config_folders() -> list[Path]:
    """The `conf/` folder of every study that has one, by study name."""
    return sorted(path for path in STUDIES_DIR.glob("*/conf") if path.is_dir())


def config_folders() -> list[Path]:
    """`conf/`, then the studies' config folders: Hydra's search order."""
    return [CONF_DIR, *study_config_folders()]


def group_files(group: str) -> list[Path]:
    """The YAML files of the config group `group` in every config folder, by option name
    (a study's file never shadows one of `conf/`: the first found is Hydra's)."""
    found: dict[str, Path] = {}
    for folder in config_folders():
        for path in sorted((folder / group).glob("*.yaml")):
            found.setdefault(path.stem, path)
    return [found[name] for name in sorted(found)]
