"""The config folders (benchmark/config/config_folders.py): conf/, then every model family's
and every study's conf/, found by folder; an option in two folders is an error, for the
library's listings (`group_files`) and for Hydra (the search-path plugin refuses to start)."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_root import ROOT

from benchmark.config.config_folders import (
    CONF_DIR,
    ConfigFolderError,
    config_folders,
    duplicate_options,
    family_config_folders,
    group_files,
    study_config_folders,
)


def test_the_library_first_then_the_families_then_the_studies():
    folders = config_folders()
    assert folders[0] == CONF_DIR
    assert folders[1:] == family_config_folders() + study_config_folders()
    assert all(folder.parent.parent == ROOT / "models" / "families"
               for folder in family_config_folders())  # fmt: skip
    assert duplicate_options() == []


def options(root: Path, *files: str) -> list[Path]:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x: 1\n")
    return root


def test_an_option_in_two_folders_is_refused_naming_both(tmp_path: Path):
    first = options(tmp_path / "a", "model/m.yaml", "hydra/launcher/l.yaml", "config.yaml")
    second = options(tmp_path / "b", "model/n.yaml", "hydra/launcher/l.yaml", "config.yaml")
    assert [p.stem for p in group_files("model", [first, second])] == ["m", "n"]
    [line] = duplicate_options([first, second])  # a top-level file is no option
    assert line.startswith("hydra/launcher/l: in 2 config folders (")
    (second / "model" / "m.yaml").write_text("x: 2\n")
    with pytest.raises(ConfigFolderError, match=r"^model/m: in 2 config folders \("):
        group_files("model", [first, second])


def test_hydra_refuses_an_option_two_folders_hold(tmp_path: Path, monkeypatch):
    """A study folder holding a model option conf/ or a family has: composing stops with
    one line naming the option and both files, before any config is read."""
    from benchmark.config import config_folders as folders
    from benchmark.config.compose import compose_config

    options(tmp_path, "shadow/conf/model/lstm_ptrnet.yaml")
    monkeypatch.setattr(folders, "STUDIES_DIR", tmp_path)
    with pytest.raises(ConfigFolderError, match=r"^model/lstm_ptrnet: in 2 config folders"):
        compose_config(["model=lstm_ptrnet"])
