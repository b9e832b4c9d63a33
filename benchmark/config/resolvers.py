"""OmegaConf resolvers of the configs.

Launcher resources tied to the trainer profile (`conf/hydra/launcher/*.yaml`):

- `${tasks_per_node:${trainer.devices}}`: one task (process) per device;
- `${gpus_per_node:${trainer.accelerator},${trainer.devices}}`: as many GPUs, or none for
  a CPU profile.

The noise setting (`dataset.noise`, docs/design.md, section 4; `conf/config.yaml`):

- `${noise_label:${dataset.name},${dataset.noise}}`: the dataset's name in run
  directories, run records and W&B (`brown`, `brown_noise1`, `brown_noise0-1`);
- `${selection_metric:${dataset.noise}}`: the valid metric that selects the checkpoint.

- `${cache_dir:minilm}`: a folder of the git-ignored data cache (`data/paths.py`).

A preset's settings (`model.net`):

- `${preset_default:}`: the setting whose key holds it at the default the preset (the
  `_target_` beside it) declares at the model's named size `model.size` (its family's
  `SIZES`, `models.registry.preset_settings`; no `model.size`: the declared default), so
  that a model YAML lists the settings its runs record without writing a number, and an
  experiment picks another size with one key (`model.size: paper`) instead of restating
  them. `${preset_default:SIZE}`: that setting at the named size SIZE alone (an ablation
  that takes one setting of another size). A size whose settings the YAML does not all list
  is refused, naming the missing key (the size would be half applied). It reads the
  registry, which imports no torch (models/families/).

- `${encoder_width:}`: the hidden width of the pretrained encoder that the `encoder` key
  beside it names (`models.blocks.pretrained.encoder_width`, its own config.json), so that a
  width that follows the encoder is written nowhere; null when the name cannot be resolved
  (the config check then refuses `model.net.encoder` in one line).

The run directory (`hydra.run.dir`, `hydra.sweep.subdir`):

- `${config_id:}`: the digest of everything in the config that changes what a run computes
  beyond the dataset label, model, variant and seed (`benchmark.config.identity.config_id`).
"""

from __future__ import annotations

import re
from typing import Any

from hydra.utils import get_object
from omegaconf import DictConfig, Node, OmegaConf

from benchmark.config.identity import config_id
from benchmark.config.run_path import path_problems
from data.noise import has_noise, noise_label
from data.paths import CACHE_ROOT
from models.registry import NO_DEFAULT, preset_of, preset_settings

GPU_ACCELERATORS = ("gpu", "cuda")
MODEL_SIZE = "model.size"  # the named size `${preset_default:}` reads (models.registry)
VALID_PREFIX = "val"  # the valid split's logged figures: `val/tau` (docs/design.md, section 7)


def tasks_per_node(devices) -> int:
    """`trainer.devices` as a task count; the launcher needs a number, not `auto` or a list."""
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ValueError(
            f"trainer.devices must be a positive integer for the sweep launcher to reserve "
            f"one task per device, got {devices!r}"
        )
    return devices


def gpus_per_node(accelerator: str, devices) -> int | None:
    """GPUs to reserve per node: `trainer.devices` for a GPU profile, None otherwise."""
    return tasks_per_node(devices) if accelerator in GPU_ACCELERATORS else None


def run_dir_noise_label(dataset: str, noise) -> str:
    """`noise_label` for the run directory (`paths.dataset`). A value that is no noise
    setting still gives a name (`<dataset>_noise<value>`), so that Hydra can make the run
    directory and the config check refuses `dataset.noise` in one line, where a resolver's
    error would end Hydra with a traceback."""
    try:
        return noise_label(dataset, noise)
    except ValueError:
        return f"{dataset}_noise{re.sub(r'[^A-Za-z0-9.-]+', '-', str(noise))}"


def selection_metric(noise) -> str:
    """`val/tau`; with distractors `val/pm_f`: tau only counts the documents whose kept
    sentences are exactly the gold ones (NaN while there is none), pm_f counts every
    document and rewards both the order and leaving the distractors out."""
    return f"{VALID_PREFIX}/{'pm_f' if has_noise(noise) else 'tau'}"


def cache_dir(name: str) -> str:
    """The folder `name` of the data cache, as an absolute path."""
    return str(CACHE_ROOT / name)


def preset_default(
    size: str | None = None, *, _node_: Node, _parent_: DictConfig, _root_: DictConfig
) -> Any:
    """The default the preset named by `_parent_._target_` declares for the setting the key
    of `_node_` names, at the named size `size`, else `model.size` (module docstring);
    ValueError naming the key when the target is no registered preset, the size none of
    its sizes, a setting of `model.size` missing beside the key, or no default declared."""
    key, setting, target = _node_._get_full_key(None), str(_node_._key()), _parent_.get("_target_")
    preset = preset_of(get_object(target)) if isinstance(target, str) else None  # imports it
    if preset is None:
        raise ValueError(f"{key}: ${{preset_default:}} needs a registered preset beside it "
                         f"(_target_), got {target!r}")
    named = size if size is not None else OmegaConf.select(_root_, MODEL_SIZE, default=None)
    try:
        declared = preset_settings(preset.name, named)
    except KeyError as error:
        raise ValueError(f"{key}: {error.args[0]}") from None
    listed = set(_parent_.keys())  # keys only: `in` would resolve each (and recurse)
    unlisted = [k for k in preset.sizes.get(named, {}) if size is None and k not in listed]
    if unlisted:
        raise ValueError(
            f"{MODEL_SIZE}={named} sets {unlisted[0]}, which model.net does not list: add "
            f"`{unlisted[0]}: ${{preset_default:}}` to the model's YAML"
        )
    default = declared.get(setting, (None, NO_DEFAULT))[1]
    if default is NO_DEFAULT:
        raise ValueError(
            f"{key}: ${{preset_default:}} but preset {preset.name!r} declares no default for "
            f"{setting!r} (its declared settings: docs/models.md)"
        )
    return list(default) if isinstance(default, tuple) else default


def encoder_width(*, _parent_: DictConfig) -> int | None:
    """The width of the encoder named by `encoder` beside the key (module docstring)."""
    from models.blocks.pretrained import EncoderError
    from models.blocks.pretrained import encoder_width as width

    try:
        return width(_parent_.get("encoder"))
    except EncoderError:
        return None


def run_config_id(*, _root_: DictConfig) -> str:
    """`config_id` of the whole config the interpolation sits in, once the other components
    of the run directory are known to be plain folder names (`run_path.path_problems`)."""
    problems = path_problems(_root_)
    if problems:
        raise ValueError("; ".join(problems))
    return config_id(_root_)


def register_resolvers() -> None:
    """Make the resolvers known to OmegaConf (idempotent)."""
    for name, resolver in (
        ("tasks_per_node", tasks_per_node),
        ("gpus_per_node", gpus_per_node),
        ("noise_label", run_dir_noise_label),
        ("selection_metric", selection_metric),
        ("cache_dir", cache_dir),
        ("preset_default", preset_default),
        ("encoder_width", encoder_width),
        ("config_id", run_config_id),
    ):
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, resolver)
