"""The folders a run's config is composed from: `conf/` (the library's defaults), the
`conf/` folder of every model family (`models/families/<family>/conf/`: its model configs,
paper experiments and ablation variants, beside its code) and of every study
(`studies/<name>/conf/`: a study's own sweeps and settings). Families and studies are found
by folder, so the library names none; Hydra searches them after `conf/`
(`hydra_plugins/orderbench_config_folders.py`), so a group's options are the files of that
group in any of them. An option (`<group>/<name>.yaml`) found in two folders is an error
(`ConfigFolderError`), never the first one found. Standard library only: `orderbench train
--help` lists the groups without importing Hydra.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]
CONF_DIR = SOURCE_ROOT / "conf"
FAMILIES_DIR = SOURCE_ROOT / "models" / "families"
STUDIES_DIR = SOURCE_ROOT / "studies"


class ConfigFolderError(ValueError):
    """Two config folders hold the same option of a group."""


def family_config_folders() -> list[Path]:
    """The `conf/` folder of every model family that has one, by family name."""
    return sorted(path for path in FAMILIES_DIR.glob("*/conf") if path.is_dir())


def study_config_folders() -> list[Path]:
    """The `conf/` folder of every study that has one, by study name."""
    return sorted(path for path in STUDIES_DIR.glob("*/conf") if path.is_dir())


def config_folders() -> list[Path]:
    """`conf/`, then the families' and the studies' config folders: Hydra's search order."""
    return [CONF_DIR, *family_config_folders(), *study_config_folders()]


def _options(folder: Path) -> dict[str, Path]:
    """`<group>/<name>` -> file of every option of every group in `folder` (the files in
    its subfolders, at any depth: `hydra/launcher/local`)."""
    return {
        path.relative_to(folder).with_suffix("").as_posix(): path
        for path in sorted(folder.glob("*/**/*.yaml"))
    }


def duplicate_options(folders: Sequence[Path] | None = None) -> list[str]:
    """One line per option found in more than one config folder, naming its files."""
    seen: dict[str, list[Path]] = {}
    for folder in config_folders() if folders is None else folders:
        for option, path in _options(folder).items():
            seen.setdefault(option, []).append(path)
    return [
        f"{option}: in {len(paths)} config folders ({', '.join(map(str, paths))}); an option "
        "lives in one (rename or remove the others)"
        for option, paths in sorted(seen.items())
        if len(paths) > 1
    ]


def group_files(group: str, folders: Sequence[Path] | None = None) -> list[Path]:
    """The YAML files of the config group `group` in every config folder (or `folders`), by
    option name; ConfigFolderError when a name is in two folders."""
    found: dict[str, Path] = {}
    for folder in config_folders() if folders is None else folders:
        for path in sorted((folder / group).glob("*.yaml")):
            if path.stem in found:
                raise ConfigFolderError(
                    f"{group}/{path.stem}: in 2 config folders ({found[path.stem]}, {path}); "
                    "an option lives in one (rename or remove the other)"
                )
            found[path.stem] = path
    return [found[name] for name in sorted(found)]
