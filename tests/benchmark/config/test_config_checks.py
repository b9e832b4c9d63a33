"""The run configuration checked before any data is read or any epoch trained
(benchmark/config/checks.py): each bad setting one line naming its key, keys that are read
pass, extra config folders on the search path, splits with nothing to score."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_config import check_overrides
from fixtures_sweep import TINY_LSTM, run_train

from benchmark.config.checks import ConfigError
from benchmark.config.compose import compose_config
from benchmark.run.data_checks import check_scorable_splits
from data.document import Document

# -- configuration: one line naming the key, before any training --------------------------
BAD_CONFIGS = [
    (["seed=abc"], "seed: expected an integer >= 0, got 'abc'"),
    (["protocol_seed=-1"], "protocol_seed: expected an integer >= 0, got -1"),
    (["trainer.max_epochs=-1"], "trainer.max_epochs: expected an integer >= 1, got -1"),
    (["trainer.max_epochs=abc"], "trainer.max_epochs: expected an integer >= 1, got 'abc'"),
    (["model.beam_size=0"], "model.beam_size: expected an integer >= 1, got 0"),
    (["model.val_beam_size=-2"], "model.val_beam_size: expected an integer >= 1, got -2"),
    (["model.batch_size=0"], "model.batch_size: expected an integer >= 1, got 0"),
    (["cpu_threads=0"], "cpu_threads: expected an integer >= 1, got 0"),
    (["include_trivial=maybe"], "include_trivial: expected true or false, got 'maybe'"),
    (["+model.optimzer.lr=0.1"],
     "model.optimzer: unknown key, nothing reads it (did you mean model.optimizer?)"),
    (["+dataset.reader.n_trian=5"], "SyntheticReader takes no argument 'n_trian'"),
    (["+sed=3"], "sed: unknown key, nothing reads it"),
]


check = check_overrides  # `check_config` as a launch calls it


@pytest.mark.parametrize(("overrides", "message"), BAD_CONFIGS)
def test_each_bad_setting_is_one_line_naming_its_key(overrides: list[str], message: str):
    overrides = ["dataset=synthetic", "+experiment=tiny", *overrides]
    with pytest.raises(ConfigError) as caught:
        check(overrides)
    assert message in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


def test_keys_that_are_read_pass():
    """Keys a run reads pass the check, `lr=inf` included: it is a number, and the NaN guard
    stops such a run at its first step (the slow test below); the check lets it through
    without a word, neither refused nor rewritten."""
    overrides = ["dataset=synthetic", "+experiment=tiny", "+dataset.reader.n_train=64",
                 "++model.net.hidden_dim=32", "model.optimizer.lr=inf", "dataset.noise=0/1"]
    assert check(overrides) is None  # no ConfigError
    cfg = compose_config(["dataset=synthetic", "+experiment=tiny", *overrides[2:]])
    assert cfg.model.optimizer.lr == float("inf") and cfg.dataset.reader.n_train == 64
    assert cfg.model.net.hidden_dim == 32 and cfg.dataset.noise == "0/1"


@pytest.fixture
def extra_conf(tmp_path: Path) -> str:
    """`hydra.searchpath` naming a config folder outside conf/ with a group `budget`."""
    group = tmp_path / "extra_conf" / "budget"
    group.mkdir(parents=True)
    (group / "one_epoch.yaml").write_text("# @package _global_\ntrainer:\n  max_epochs: 1\n")
    return f"hydra.searchpath=[file://{group.parent}]"


def test_a_group_of_an_extra_config_folder_passes_and_a_typo_is_still_refused(extra_conf: str):
    overrides = ["dataset=synthetic", "+experiment=tiny", extra_conf]
    check([*overrides, "+budget=one_epoch"])
    with pytest.raises(ConfigError) as caught:
        check([*overrides, "+budget=one_epoch", "+budgte=one_epoch"])
    assert str(caught.value) == "budgte: unknown key, nothing reads it (override +budgte)"


@pytest.mark.slow
def test_the_cli_checks_on_the_search_path_of_the_command_line(tmp_path: Path, extra_conf: str):
    result = run_train(tmp_path / "runs", *TINY_LSTM, extra_conf, "+budget=one_epoch",
                       "+budgte=one_epoch")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: budgte: unknown key, nothing reads it (override +budgte)"
    ]


def test_a_split_with_no_scorable_document_is_refused_naming_dataset_and_split():
    one = [Document(id=f"d{i}", sentences=("Alone.",)) for i in range(3)]
    two = [Document(id="e", sentences=("One.", "Two."))]
    with pytest.raises(ConfigError, match=r"dataset 'toy', split 'valid': all 3 documents"):
        check_scorable_splits("toy", {"train": two, "valid": one, "test": two}, False, False)
    check_scorable_splits("toy", {"train": two, "valid": one, "test": two}, True, False)


@pytest.mark.slow
def test_the_cli_refuses_a_bad_config_in_one_line_before_training(tmp_path: Path):
    result = run_train(tmp_path, *TINY_LSTM, "seed=abc", "+model.optimzer.lr=0.1")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: seed: expected an integer >= 0, got 'abc'",
        "error: model.optimzer: unknown key, nothing reads it (did you mean "
        "model.optimizer?) (override +model.optimzer.lr)",
    ]
    assert not (tmp_path / "synthetic").exists()  # refused before any folder was made
