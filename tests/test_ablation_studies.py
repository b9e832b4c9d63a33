"""Each ablation study is defined once, in conf/ablation_study/: its key and presets come
from the conf/ablation/ files it names (`benchmark.report.ablation_studies`)."""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path

import pytest
from fixtures_runs import write_run
from omegaconf import OmegaConf

from benchmark.harness.config import CONF_DIR, compose_config
from benchmark.report import plots
from benchmark.report.ablation_studies import (
    StudyDefinitionError,
    ablation_studies,
    load_studies,
    read_variant,
)
from models.registry import get_preset

ABLATION_FILES = sorted(path.stem for path in (CONF_DIR / "ablation").glob("*.yaml"))


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
        assert (CONF_DIR / "model" / f"{preset}.yaml").is_file(), preset
        if study.key is not None:
            parameters = inspect.signature(get_preset(preset).build).parameters
            assert study.key.removeprefix("model.net.") in parameters, (preset, study.key)


@pytest.mark.parametrize("name", ["han_heads_1", "attordernet_positions"])
def test_an_ablation_file_composes_to_the_values_it_sets(name: str):
    variant = read_variant(CONF_DIR / "ablation" / f"{name}.yaml")
    cfg = compose_config(["dataset=synthetic", f"+ablation={name}"])
    assert cfg.model.name == variant.preset
    assert variant.values  # a variant file sets its value
    for key, value in variant.values.items():
        assert OmegaConf.select(cfg, key) == value


@pytest.fixture
def conf(tmp_path: Path) -> Path:
    """A copy of the config folders the studies read."""
    for folder in ("ablation", "ablation_study", "model"):
        shutil.copytree(CONF_DIR / folder, tmp_path / folder)
    return tmp_path


def test_a_new_level_is_one_ablation_file(conf: Path):
    (conf / "ablation" / "han_blocks_8.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /model: han\n\n"
        "variant: blocks_8\nmodel:\n  net:\n    num_blocks: 8\n"
    )
    blocks = next(study for study in load_studies(conf) if study.name == "han_blocks")
    assert "han_blocks_8" in blocks.ablations
    assert blocks.key == "model.net.num_blocks"


@pytest.mark.parametrize(("study", "text", "message"), [
    ("han_blocks", "title: t\naxis: a\nablations: [han_blockz_*]\n",
     "han_blocks.yaml: ablations: 'han_blockz_*' matches no file of conf/ablation/"),
    ("mixed", "title: t\naxis: a\nablations: [han_blocks_1, han_heads_1]\n",
     "mixed.yaml: its ablations must vary one config key, found model.net.heads, "
     "model.net.num_blocks"),
    ("gone", "title: t\naxis: a\npresets: [lstm_ptrnet, no_such_model]\n",
     "gone.yaml: presets: 'no_such_model' has no conf/model/no_such_model.yaml"),
    ("both", "title: t\naxis: a\npresets: [han]\nablations: [han_base]\n",
     "both.yaml: give either ablations or presets"),
    ("untitled", "axis: a\npresets: [han]\n", "untitled.yaml: title must be set to a text"),
])
def test_a_broken_study_is_one_error_naming_its_file(conf: Path, study, text, message):
    (conf / "ablation_study" / f"{study}.yaml").write_text(text)
    with pytest.raises(StudyDefinitionError) as caught:
        load_studies(conf)
    assert message in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


def test_a_variant_file_without_its_label_is_named(conf: Path):
    (conf / "ablation" / "han_blocks_8.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /model: han\n\n"
        "model:\n  net:\n    num_blocks: 8\n"
    )
    with pytest.raises(StudyDefinitionError, match=r"han_blocks_8\.yaml: variant must be set"):
        load_studies(conf)


def test_the_plots_command_refuses_a_broken_study_in_one_line(monkeypatch, capsys, tmp_path):
    def broken():
        raise StudyDefinitionError("conf/ablation_study/x.yaml: give either ablations or presets")

    write_run(tmp_path / "runs", "han", 0, 0.7)
    monkeypatch.setattr(plots, "ablation_studies", broken)
    assert plots.main(["--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "plots")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "orderbench plots: error: conf/ablation_study/x.yaml: give either ablations or "
        "presets"
    ]
    assert not (tmp_path / "plots").exists()
