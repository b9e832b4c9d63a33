"""Per-dataset published settings (`+experiment=attordernet_paper dataset=<name>`): ATTOrderNet's
training settings and its paragraph-encoder depth per dataset (Cui et al. 2018), from the one
depth table of models/families/attordernet/conf/experiment/attordernet_paper.yaml."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from benchmark.config.compose import compose_config
from benchmark.config.config_folders import group_files

ATTORDERNET = next(path for path in group_files("model") if path.stem == "attordernet")
LAYERS_KEY = "paragraph_layers"
PUBLISHED_LAYERS = {
    "nips": 2,
    "aan": 6,
    "nsf": 4,
    "arxiv": 4,
    "sind": 2,
    "accident": 2,
    "earthquake": 2,
}


@pytest.mark.parametrize("name, layers", sorted(PUBLISHED_LAYERS.items()))
def test_attordernet_experiment(name: str, layers: int) -> None:
    assert LAYERS_KEY in OmegaConf.load(ATTORDERNET).net  # overrides a key the preset has
    cfg = compose_config(["+experiment=attordernet_paper", f"dataset={name}", "dataset.path=/data"])
    assert cfg.dataset.name == name and cfg.dataset.reader.path == "/data"
    assert cfg.model.name == "attordernet" and cfg.model.net[LAYERS_KEY] == layers
    assert cfg.model.batch_size == 16 and cfg.model.beam_size == 64  # attordernet_paper
