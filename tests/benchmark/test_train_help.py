"""`orderbench train --help` (benchmark/train_help.py): the groups a run config is composed
from, each with the prefix it needs, and the folders of conf/ that are not groups."""

from __future__ import annotations

import pytest
from hydra.errors import ConfigCompositionException

from benchmark.config.compose import compose_config
from benchmark.config.config_folders import config_folders
from benchmark.train_help import HYDRA_GROUPS, NOT_GROUPS, groups, options, train_help


def test_every_folder_of_conf_is_a_group_or_said_not_to_be():
    chosen, added = groups()
    folders = {  # conf/ and the studies' config folders
        path.name for folder in config_folders() for path in folder.iterdir() if path.is_dir()
    } - {"hydra"}
    assert set(chosen) - set(HYDRA_GROUPS) | set(added) | set(NOT_GROUPS) == folders
    assert not (set(chosen) | set(added)) & set(NOT_GROUPS)
    assert {"dataset", "model", "trainer", "logger", "sweep"} <= set(chosen)
    assert {"experiment", "reproduce", "ablation"} <= set(added)


def test_the_help_lists_the_groups_with_their_prefix_and_options():
    text = train_help()
    assert text.startswith("usage: orderbench train ")
    for group in ("dataset=", "model=", "trainer=", "+experiment=", "+reproduce=", "+ablation="):
        assert f"  {group} " in text, group
    for folder in NOT_GROUPS:
        assert f"{folder}=" not in text and f"{folder}/" in text
    assert "brown_budget" not in options("sweep") and "smoke" in options("sweep")
    assert "--cfg job" in text and "(default lstm_ptrnet)" in text


@pytest.mark.parametrize("group", ["experiment", "reproduce", "ablation", "dataset", "model"])
def test_each_group_composes_as_the_help_writes_it(group):
    chosen, _ = groups()
    option = options(group)[0]
    plus = "" if group in chosen else "+"
    config = compose_config([f"{plus}{group}={option}"])
    if group in ("dataset", "model"):  # the option chosen is the one composed
        assert config[group].name == option
    if plus:  # without the + it is refused: the help must say +
        with pytest.raises(ConfigCompositionException):
            compose_config([f"{group}={option}"])


def test_the_default_of_a_group_is_never_cut_by_the_wrapping():
    from benchmark.train_help import _line

    for n in range(1, 30):  # lists of every length: the wrap falls everywhere once
        names = [f"preset_{i}" for i in range(n)]
        assert "(default lstm_ptrnet)" in _line("model=", names, "lstm_ptrnet")
        assert "(with -m)" in _line("sweep=", names)
