"""When two resolved configs describe the same run, and the config id that names a run
directory (docs/design.md, section 8).

A run directory is `<dataset label>/<model>/<variant>/<config id>/seed_<seed>`. The config
id (`config_id`) is a digest of everything else that changes what the run computes, so two
configs that differ in anything but the seed never share a directory: a `make train` and a
sweep of another budget, two JSONL folders, two learning rates. What a directory holds is
valid for a new launch only when the new config equals the stored one (`identity_config`),
leaving out:

- `IGNORED_KEYS`, which change where and how a run is stored, shown or logged but not what
  it computes;
- the *locations* of data and caches (`LOCATION_KEYS`: keys named `path`, `*_path` or
  `directory`) are compared as real paths, so `../shared/datasets` and its absolute form
  are one dataset, while a cache folder (content-addressed) is not compared at all;
- the module part of a `_target_` (`models.presets.attordernet` counts as `attordernet`):
  moving code computes the same thing;
- `RESOLVED_KEYS`, which only name the values of other keys (`model.size`: the settings
  of `model.net` at a named size, `${preset_default:}`), dropped once the config is
  resolved: what they choose is in the resolved keys.

A key of `ADDED_DEFAULTS` that a config lacks (one stored before the key existed) counts as
its default, the value such runs were made with; in the config id such a key at its
default is left out, so adding a key with a default that keeps old behaviour keeps every
existing id.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from typing import Any

from omegaconf import DictConfig, OmegaConf

IGNORED_KEYS = (
    "hydra",  # Hydra's runtime (output dir, job name, overrides as typed)
    "paths",  # where run directories live
    "logger",  # where curves go (W&B, CSV); never what is trained or scored
    "rerun",  # the switch that forces a new run itself
    "keep_last_checkpoint",  # what a finished run keeps on disk; never its figures
    "max_document_sentences",  # a refusal of unexpected sizes; never what is computed
    "verbose",  # what the console shows
    "trainer.enable_progress_bar",
    "trainer.log_every_n_steps",
    "dataset.datamodule.num_workers",  # loader processes; batches are the same
    "cpu_memory",  # how freed memory is kept (benchmark/config/cpu_memory.py); never a figure
    "cpu_threads",  # like the machine: recorded in `environment`, not part of the id (rounding
    #                 can differ with it: docs/design.md, section 8)
)

RESOLVED_KEYS = ("model.size",)

ADDED_DEFAULTS = {
    "dataset.noise": 0,  # no distractors (docs/design.md, section 4)
    "dataset.protocol": "published_test",  # Accidents/Earthquakes: test = the test articles
    "dataset.reader.protocol": "published_test",
    "dataset.datamodule.vocab_splits": ["train"],  # the vocabulary sees the training split
    "dataset.datamodule.drop_last": False,  # every training document in every epoch
    "dataset.datamodule.tokenizer": "regex",  # the suite's regex tokenizer
    "dataset.datamodule.bucket_by": "shape",  # batches sorted by sentences, longest sentence
    "test_shuffles": 1,  # one test pass on the fixed permutations
    "compile": False,  # the training step eager (rounds as before)
    "cuda_graphs": False,  # training batches as collated, not padded to fixed shapes
    "model.net.encoder": None,  # a pretrained preset's default encoder (all-MiniLM-L6-v2)
}

# keys that name the run directory itself (conf/config.yaml `hydra.run.dir`), so the config
# id leaves them out, with what they stand at while it is computed (a key that takes its
# value from one, like the random baseline's `model.net.seed: ${seed}`, follows it): the
# label (and noise setting) of the dataset, the model, the variant label and the seed
DIRECTORY_KEYS = {
    "dataset.label": "-", "dataset.noise": 0, "model.name": "-", "variant": "-", "seed": 0,
}
CONFIG_ID_LENGTH = 8  # hex digits of the digest in the directory name
LOCATION_KEYS = re.compile(r"^(path|.+_path)$")  # data locations, compared as real paths
CACHE_KEYS = ("directory",)  # cache folders: content-addressed, never compared

_MISSING = "<absent>"
_ABSENT_KEY = object()


def comparable_config(cfg: DictConfig | Mapping) -> dict:
    """`cfg` resolved to plain containers, without the `IGNORED_KEYS` and the
    `RESOLVED_KEYS`, with the `ADDED_DEFAULTS` it lacks.

    The keys are dropped before resolving, so interpolations that only work inside a
    running Hydra job (`${hydra:runtime.output_dir}` in the logger) are never evaluated.
    """
    cfg = OmegaConf.create(OmegaConf.to_container(cfg) if OmegaConf.is_config(cfg) else cfg)
    for dotted in IGNORED_KEYS:
        *parents, leaf = dotted.split(".")
        node = OmegaConf.select(cfg, ".".join(parents)) if parents else cfg
        if isinstance(node, DictConfig) and leaf in node:
            del node[leaf]
    for dotted, default in ADDED_DEFAULTS.items():
        *parents, leaf = dotted.split(".")
        node = OmegaConf.select(cfg, ".".join(parents))
        if isinstance(node, DictConfig) and leaf not in node:
            node[leaf] = default
    plain = OmegaConf.to_container(cfg, resolve=True)
    for dotted in RESOLVED_KEYS:
        node, leaf = _parent(plain, dotted)
        if node is not None:
            node.pop(leaf, None)
    return plain


def _normalise(node: Any, key: str = "") -> Any:
    """Locations as real paths, caches dropped, `_target_` by its last name (recursive)."""
    if isinstance(node, Mapping):
        return {
            k: _normalise(v, str(k)) for k, v in node.items() if str(k) not in CACHE_KEYS
        }
    if isinstance(node, list):
        return [_normalise(v) for v in node]
    if key == "_target_" and isinstance(node, str):
        return node.rsplit(".", 1)[-1]
    if LOCATION_KEYS.match(key) and isinstance(node, str) and node and "://" not in node:
        expanded = os.path.expanduser(node)
        # a name that is not a folder here (e.g. a Hugging Face dataset id) stays as it is
        return os.path.realpath(expanded) if os.path.exists(expanded) else node
    return node


def identity_config(cfg: DictConfig | Mapping) -> dict:
    """`comparable_config` with locations, caches and `_target_` normalised (see the module
    docstring): two launches may share a run directory's results iff these are equal."""
    return _normalise(comparable_config(cfg))


def _parent(config: dict, dotted: str) -> tuple[dict | None, str]:
    """The mapping that holds the dotted key `dotted` (None if there is none) and its leaf."""
    *parents, leaf = dotted.split(".")
    node = config
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    return (node if isinstance(node, dict) else None), leaf


def config_id(cfg: DictConfig | Mapping) -> str:
    """The run directory's config id: the first `CONFIG_ID_LENGTH` hex digits of the sha256
    of `identity_config(cfg)` without the `DIRECTORY_KEYS` (already in the path) and without
    `ADDED_DEFAULTS` keys at their defaults."""
    plain = OmegaConf.create(OmegaConf.to_container(cfg) if OmegaConf.is_config(cfg) else cfg)
    for dotted, placeholder in DIRECTORY_KEYS.items():
        if OmegaConf.select(plain, dotted, default=_ABSENT_KEY) is not _ABSENT_KEY:
            OmegaConf.update(plain, dotted, placeholder)
    config = identity_config(plain)
    for dotted in DIRECTORY_KEYS:
        node, leaf = _parent(config, dotted)
        if node is not None:
            node.pop(leaf, None)
    for dotted, default in ADDED_DEFAULTS.items():
        node, leaf = _parent(config, dotted)
        if node is not None and node.get(leaf, default) == default:
            node.pop(leaf, None)
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:CONFIG_ID_LENGTH]


def changed_keys(old: Any, new: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """Every dotted key where two plain configs differ, as `(key, old value, new value)`
    (a key missing on one side has the value `<absent>` there)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        changes = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            changes += changed_keys(old.get(key, _MISSING), new.get(key, _MISSING), path)
        return changes
    return [] if old == new else [(prefix or "<config>", old, new)]


def config_differences(old: Any, new: Any) -> list[str]:
    """Every dotted key where two plain configs differ, as `key: old -> new`."""
    return [f"{key}: {was!r} -> {now!r}" for key, was, now in changed_keys(old, new)]
