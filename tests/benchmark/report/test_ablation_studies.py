"""Each ablation study is defined once, in an ablation_study config file
(studies/ablations/conf/ablation_study/): its key and presets come
from the models/families/*/conf/ablation/ files it names (`benchmark.report.ablation_studies`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixtures_runs import write_run
from omegaconf import OmegaConf

from benchmark.config.checks import OPTIONAL_KEYS
from benchmark.config.compose import compose_config
from benchmark.config.config_folders import group_files
from benchmark.config.identity import comparable_config
from benchmark.report import plots
from benchmark.report.ablation_studies import (
    STUDY_GROUP,
    StudyDefinitionError,
    ablation_studies,
    load_studies,
    read_variant,
)
from benchmark.report.ablations import level_value
from models.registry import preset_settings

ABLATION_PATHS = {path.stem: path for path in group_files("ablation")}  # in every config folder
ABLATION_FILES = sorted(ABLATION_PATHS)
MODEL_FILES = {path.stem: path for path in group_files("model")}


def test_every_ablation_file_belongs_to_a_study():
    members = {name for study in ablation_studies() for name in study.ablations}
    assert sorted(set(ABLATION_FILES) - members) == []


def test_the_varied_keys_come_from_the_ablation_files():
    keys = {study.name: study.key for study in ablation_studies()}
    assert keys["han_blocks"] == "model.net.num_blocks"
    assert keys["han_heads"] == "model.net.heads"
    assert keys["han_word_attention"] == "model.net.word_attention"
    assert keys["attordernet_positions"] == "model.net.paragraph_positions"
    assert keys["attordernet_sentence_encoder"] is None
    positions = next(s for s in ablation_studies() if s.name == "attordernet_positions")
    assert positions.presets == ("attordernet", "attordernet_att", "attordernet_cnn")


@pytest.mark.parametrize("study", ablation_studies(), ids=lambda study: study.name)
def test_each_study_refers_to_existing_presets_that_take_its_key(study):
    for preset in study.presets:
        assert preset in MODEL_FILES, preset
        if study.key is not None and study.key.startswith("model.net."):
            settings = preset_settings(preset)
            assert study.key.removeprefix("model.net.") in settings, (preset, study.key)
        elif study.key is not None:  # a key of the run config (data, selection, schedule)
            cfg = compose_config(["dataset=synthetic", f"model={preset}"])
            assert study.key in OPTIONAL_KEYS or OmegaConf.select(cfg, study.key) is not None


RELEASED = sorted(name for name in ABLATION_FILES if name.startswith("attordernet_released_"))


@pytest.mark.parametrize("name", ["han_heads_1", "attordernet_positions", *RELEASED])
def test_an_ablation_file_composes_to_the_values_it_sets(name: str):
    variant = read_variant(ABLATION_PATHS[name])
    cfg = compose_config(["dataset=synthetic", f"+ablation={name}"])
    assert cfg.model.name == variant.preset
    assert variant.values  # a variant file sets its value
    for key, value in variant.values.items():
        assert OmegaConf.to_object(OmegaConf.select(cfg, key)) == value if isinstance(
            value, (dict, list)
        ) else OmegaConf.select(cfg, key) == value
    assert cfg.variant == variant.label  # no tag outside the reproduction sweep


def test_the_released_code_choices_each_change_one_key_of_the_paper_setting():
    """On top of attordernet_paper, each released-code ablation changes its one key (and the
    run label) and nothing else; attordernet_released changes all of them at once."""
    paper = comparable_config(compose_config(["+experiment=attordernet_paper"]))
    keys = {}
    for name in RELEASED:
        cfg = compose_config(["+experiment=attordernet_paper", f"+ablation={name}"])
        changed = set(differences(paper, comparable_config(cfg)))
        assert changed - {"variant"} == set(read_variant(ABLATION_PATHS[name])
                                            .values), name  # fmt: skip
        keys[name] = changed - {"variant"}
    released = compose_config(["+experiment=attordernet_released"])
    changed = set(differences(paper, comparable_config(released)))
    expected = set().union(*(k for n, k in keys.items() if n != "attordernet_released_test_loop"))
    assert changed == expected | {"variant", "variant_tag"}
    assert released.test_shuffles == 1  # the pick on test is never part of the setting


def differences(old, new, prefix=""):
    """Dotted keys where two plain configs differ (the scheduler, an object, is one key)."""
    if isinstance(old, dict) and isinstance(new, dict) and prefix != "model.scheduler.":
        keys = set(old) | set(new)
        return [d for k in keys for d in differences(old.get(k), new.get(k), f"{prefix}{k}.")]
    return [] if old == new else [prefix.rstrip(".")]


def test_levels_of_lists_and_objects_are_named():
    assert level_value(["train", "valid", "test"]) == "train+valid+test"
    scheduler = {"_target_": "torch.optim.lr_scheduler.ExponentialLR", "_partial_": True,
                 "gamma": 0.95}  # fmt: skip
    assert level_value(scheduler) == "ExponentialLR(gamma=0.95)"
    assert level_value(16) == 16


@pytest.fixture
def conf(tmp_path: Path) -> Path:
    """A copy of the config folders and study definitions the studies read."""
    for folder in ("ablation", "model"):
        (tmp_path / folder).mkdir()
        for path in group_files(folder):
            shutil.copy(path, tmp_path / folder / path.name)
    (tmp_path / "studies").mkdir()
    for path in group_files(STUDY_GROUP):
        shutil.copy(path, tmp_path / "studies" / path.name)
    return tmp_path


def test_a_new_level_is_one_ablation_file(conf: Path):
    (conf / "ablation" / "han_blocks_8.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /model: han\n\n"
        "variant: blocks_8\nmodel:\n  net:\n    num_blocks: 8\n"
    )
    studies = load_studies(conf, conf / "studies")
    blocks = next(study for study in studies if study.name == "han_blocks")
    assert "han_blocks_8" in blocks.ablations
    assert blocks.key == "model.net.num_blocks"


@pytest.mark.parametrize(("study", "text", "message"), [
    ("han_blocks", "title: t\naxis: a\nablations: [han_blockz_*]\n",
     "han_blocks.yaml: ablations: 'han_blockz_*' matches no ablation/ file of a config folder"),
    ("mixed", "title: t\naxis: a\nablations: [han_blocks_1, han_heads_1]\n",
     "mixed.yaml: its ablations must vary one config key, found model.net.heads, "
     "model.net.num_blocks"),
    ("gone", "title: t\naxis: a\npresets: [lstm_ptrnet, no_such_model]\n",
     "gone.yaml: presets: 'no_such_model' has no model/no_such_model.yaml"),
    ("both", "title: t\naxis: a\npresets: [han]\nablations: [han_base]\n",
     "both.yaml: give either ablations or presets"),
    ("untitled", "axis: a\npresets: [han]\n", "untitled.yaml: title must be set to a text"),
])
def test_a_broken_study_is_one_error_naming_its_file(conf: Path, study, text, message):
    (conf / "studies" / f"{study}.yaml").write_text(text)
    with pytest.raises(StudyDefinitionError) as caught:
        load_studies(conf, conf / "studies")
    assert message in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


def test_a_variant_file_without_its_label_is_named(conf: Path):
    (conf / "ablation" / "han_blocks_8.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /model: han\n\n"
        "model:\n  net:\n    num_blocks: 8\n"
    )
    with pytest.raises(StudyDefinitionError, match=r"han_blocks_8\.yaml: variant must be set"):
        load_studies(conf, conf / "studies")


def test_the_plots_command_refuses_a_broken_study_in_one_line(monkeypatch, capsys, tmp_path):
    def broken():
        raise StudyDefinitionError("ablation_study/x.yaml: give either ablations or presets")

    write_run(tmp_path / "runs", "han", 0, 0.7)
    monkeypatch.setattr(plots, "ablation_studies", broken)
    assert plots.main([f"runs={tmp_path / 'runs'}", f"out={tmp_path / 'plots'}"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "orderbench plots: error: ablation_study/x.yaml: give either ablations or "
        "presets"
    ]
    assert not (tmp_path / "plots").exists()
