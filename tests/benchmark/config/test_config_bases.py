"""Shared config defaults are written once: conf/model_base, conf/dataset_base, the
per-dataset depth of ATTOrderNet's published settings (Cui et al. 2018), and a preset's
published numbers, which the `*_paper` experiments take from the preset
(`${preset_default:}`, benchmark/config/resolvers.py) instead of writing them again."""

from __future__ import annotations

import pytest
import yaml
from omegaconf.errors import InterpolationResolutionError
from repo_root import ROOT

from benchmark.config.compose import compose_config
from benchmark.config.config_folders import group_files
from models.registry import preset_settings

CONF = ROOT / "conf"


PAPER_LAYERS = [("aan", 6), ("nsf", 4), ("arxiv", 4), ("nips", 2), ("accident", 2), ("brown", 2)]


@pytest.mark.parametrize(("dataset", "layers"), PAPER_LAYERS)
def test_attordernet_paper_takes_the_published_depth_of_each_dataset(dataset, layers):
    cfg = compose_config(["+experiment=attordernet_paper", f"dataset={dataset}"])
    assert cfg.model.net.paragraph_layers == layers
    assert cfg.model.optimizer._target_ == "torch.optim.Adadelta"


def test_no_model_or_dataset_config_repeats_its_base():
    """No model YAML (models/families/*/conf/model) or conf/dataset file built on its base
    sets a key to the base's value again."""
    for group in ("model", "dataset"):
        base = yaml.safe_load((CONF / f"{group}_base" / "default.yaml").read_text())
        for path in group_files(group):
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


def _written_nets() -> list[tuple[str, str, dict]]:
    """(file, its preset, the `model.net` it writes) for every model YAML and every
    experiment file that picks a model (`override /model`) and writes settings of its
    network (`tiny` resizes any model: its values are its own)."""
    found = []
    for path in group_files("model"):
        net = (yaml.safe_load(path.read_text()) or {}).get("net") or {}
        found.append((f"conf/model/{path.name}", net["_target_"].rsplit(".", 1)[-1], net))
    for path in group_files("experiment"):
        config = yaml.safe_load(path.read_text()) or {}
        net = (config.get("model") or {}).get("net") or {}
        if net and "override /model" in str(config.get("defaults")):
            cfg = compose_config([f"+experiment={path.stem}"])
            found.append((f"conf/experiment/{path.name}",
                          cfg.model.net._target_.rsplit(".", 1)[-1], net))  # fmt: skip
    return found


def test_no_config_writes_a_preset_default_again():
    """A value a model or experiment file writes under `model.net` is either
    `${preset_default:}` (kept where a file always wrote the setting, so that its runs keep
    their config id) or one that differs from the preset's declared default: the number
    lives in the preset once."""
    checked, files = 0, set()
    for name, preset, net in _written_nets():
        defaults = {key: default for key, (_, default) in preset_settings(preset).items()}
        for key, value in net.items():
            written = value if not isinstance(value, list) else tuple(value)
            if isinstance(value, str) and value.startswith("${"):
                continue
            assert key not in defaults or written != defaults[key], (
                f"{name}: model.net.{key}: {value!r} is the {preset} preset's default: "
                "leave it out, or write ${preset_default:}"
            )
            checked += 1
        files.add(name.split("/")[1])
    assert checked >= 20 and files == {"model", "experiment"}  # the CPU sizes, the recipes


@pytest.mark.parametrize(("experiment", "key", "default"), [
    ("han_paper", "hidden_dim", 512), ("han_paper", "word_lstm_layers", 2),
    ("attordernet_paper", "ff_dim", 1024), ("minilm_finetune_gpu", "encoder_lr", 2e-5),
])  # fmt: skip
def test_preset_default_takes_the_presets_declared_value(experiment, key, default):
    net = compose_config([f"+experiment={experiment}"]).model.net
    preset = net._target_.rsplit(".", 1)[-1]
    assert net[key] == preset_settings(preset)[key][1] == default


def test_preset_default_of_a_setting_the_preset_lacks_names_the_key():
    cfg = compose_config(["model=han", "+model.net.width=${preset_default:}"])
    with pytest.raises(InterpolationResolutionError, match=r"model\.net\.width: .*'han'"):
        _ = cfg.model.net.width
