"""When two resolved configs describe the same run: the rule that lets a re-launched sweep
skip finished runs and resume interrupted ones.

A run directory is named by (dataset, model, variant, seed); what it holds is valid for a
new launch only when the new resolved config equals the stored one, leaving out the keys in
`IGNORED_KEYS`, which change where and how a run is stored, shown or logged but not what it
computes. A key of `ADDED_DEFAULTS` that a config lacks (one stored before the key
existed) counts as its default, the value such runs were made with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omegaconf import DictConfig, OmegaConf

IGNORED_KEYS = (
    "hydra",  # Hydra's runtime (output dir, job name, overrides as typed)
    "paths",  # where run directories live
    "logger",  # where curves go (W&B, CSV); never what is trained or scored
    "rerun",  # the switch that forces a new run itself
    "trainer.enable_progress_bar",
    "trainer.log_every_n_steps",
    "dataset.datamodule.num_workers",  # loader processes; batches are the same
    "cpu_threads",  # intra-op threads of one process; the same computation
)

ADDED_DEFAULTS = {
    "dataset.noise": 0,  # no distractors (DESIGN section 4)
    "dataset.protocol": "published_test",  # Accidents/Earthquakes: test = the test articles
    "dataset.reader.protocol": "published_test",
    "dataset.datamodule.vocab_splits": ["train"],  # the vocabulary sees the training split
    "dataset.datamodule.drop_last": False,  # every training document in every epoch
    "test_shuffles": 1,  # one test pass on the fixed permutations
}

_MISSING = "<absent>"


def comparable_config(cfg: DictConfig | Mapping) -> dict:
    """`cfg` resolved to plain containers, without the `IGNORED_KEYS`, with the
    `ADDED_DEFAULTS` it lacks.

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
    return OmegaConf.to_container(cfg, resolve=True)


def config_differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Every dotted key where two plain configs differ, as `key: old -> new`."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        differences = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            differences += config_differences(old.get(key, _MISSING), new.get(key, _MISSING), path)
        return differences
    return [] if old == new else [f"{prefix or '<config>'}: {old!r} -> {new!r}"]
