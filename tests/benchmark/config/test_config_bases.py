"""Shared config defaults are written once: conf/model_base, conf/dataset_base, and the
per-dataset depth of ATTOrderNet's published settings (Cui et al. 2018)."""

from __future__ import annotations

import pytest
import yaml
from repo_root import ROOT

from benchmark.config.compose import compose_config

CONF = ROOT / "conf"


PAPER_LAYERS = [("aan", 6), ("nsf", 4), ("arxiv", 4), ("nips", 2), ("accident", 2), ("brown", 2)]


@pytest.mark.parametrize(("dataset", "layers"), PAPER_LAYERS)
def test_attordernet_paper_takes_the_published_depth_of_each_dataset(dataset, layers):
    cfg = compose_config(["+experiment=attordernet_paper", f"dataset={dataset}"])
    assert cfg.model.net.paragraph_layers == layers
    assert cfg.model.optimizer._target_ == "torch.optim.Adadelta"


def test_no_model_or_dataset_config_repeats_its_base():
    """No conf/model or conf/dataset file built on its base sets a key to the base's value
    again."""
    for group in ("model", "dataset"):
        base = yaml.safe_load((CONF / f"{group}_base" / "default.yaml").read_text())
        for path in sorted((CONF / group).glob("*.yaml")):
            config = yaml.safe_load(path.read_text()) or {}
            if f"/{group}_base@_here_: default" not in config.get("defaults", []) and not any(
                isinstance(entry, dict) and f"/{group}_base@_here_" in entry
                for entry in config.get("defaults", [])
            ):
                continue
            for key, value in base.items():
                if isinstance(value, dict):
                    own = config.get(key) or {}
                    same = [k for k, v in value.items() if k in own and own[k] == v]
                    assert not same or key == "optimizer", (path.name, key, same)
                else:
                    assert config.get(key, object()) != value or path.stem == "random", (
                        path.name, key,
                    )  # fmt: skip


def test_every_model_composes_with_the_base_optimiser():
    cfg = compose_config(["model=lstm_ptrnet"])
    assert cfg.model.optimizer._target_ == "torch.optim.Adam" and cfg.model.beam_size == 16
    assert cfg.dataset.datamodule.min_freq == 2  # brown's own, over the base's 1
    assert compose_config(["model=random"]).model.optimizer is None
