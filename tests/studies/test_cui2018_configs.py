"""The run configs the Cui et al. 2018 study owns (studies/cui2018/conf/experiment/): found by
Hydra after the repository's conf/ (hydra_plugins/orderbench_config_folders.py), they compose to the
configs, and so the config ids, their runs had when they lived in conf/experiment/."""

from __future__ import annotations

import pytest
from repo_root import ROOT

from benchmark.config.compose import compose_config
from benchmark.config.config_folders import group_files
from benchmark.config.identity import config_id

ARCHIVED_DATASETS = "/work/shared/datasets"  # where results/nips_paragraph/records read it
NIPS_JOB = ["+reproduce=nips", "trainer.max_epochs=100", "early_stopping.patience=15",
            "seed=0", "sweep=nips"]  # a job of `orderbench sweep run nips`, as it lists it


@pytest.mark.parametrize(("experiment", "identity"), [
    ("lstm_ptrnet_cui", "98a26991"), ("cnn_ptrnet_cui", "9008f389"),
    ("calibration_bow_position", "fa919e82"), ("calibration_overlap_chain", "99ec2048"),
    ("attordernet_paper", "8667cb60"),  # in conf/: the id of its archived NIPS runs
])  # fmt: skip
def test_a_study_experiment_keeps_its_config_id(experiment: str, identity: str, monkeypatch):
    # the data where the archived runs read it: a config id compares data locations as real
    # paths (benchmark/config/identity.py), so the same runs elsewhere have another id
    monkeypatch.setenv("ORDERBENCH_DATASETS", ARCHIVED_DATASETS)
    assert config_id(compose_config([f"+experiment={experiment}", *NIPS_JOB])) == identity


def test_the_study_s_experiments_are_its_own_and_shadow_nothing():
    found = {path.stem: path for path in group_files("experiment")}
    own = ROOT / "studies" / "cui2018" / "conf" / "experiment"
    mine = sorted(path.stem for path in own.glob("*.yaml"))
    assert mine == ["calibration_bow_position", "calibration_overlap_chain", "cnn_ptrnet_cui",
                    "lstm_ptrnet_cui"]
    assert all(found[name].parent == own for name in mine)  # no copy left in conf/
