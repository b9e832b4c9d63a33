"""Named models not yet in a family folder (models/families/: attordernet, han, ptrnet):
plain functions composing the building blocks, one file per family (minilm; finetuned;
paragraph_finetuned; pairwise; random_baseline: random; calibration: bow_position,
overlap_chain). The models that are not an `OrderingModel` of blocks are in models/orderers/.

A preset module imports what it builds inside its functions (torch and the blocks only for
the type checker at the top), so that reading the registry, and so a config's
`${preset_default:}` or a `sweep list`, does not import torch
(`tests/models/test_registry.py` checks it).

Every preset takes `vocab_size` and `pretrained_embeddings` ((V, d) tensor or None)
plus keyword hyperparameters, and returns a module with the OrderingModel interface
(forward / loss / log_prob / decode); each registers itself (`models.registry`). Hydra
configs (`conf/model/*.yaml`) point at them with `_target_: models.presets.<name>`; the
keyword defaults are the papers' settings where the papers give them (docs/models.md says
each number's source), while the YAML files pick CPU-friendly sizes and
`conf/experiment/*_paper.yaml` restores the published ones.

Every trainable preset accepts `hidden_dim` (the width of the paragraph encoder and the
decoder; the sentence encoders' widths follow it unless set) and `dropout`, so one override
(e.g. `+experiment=tiny`) resizes any of them.
"""

from models.presets.calibration import bow_position, overlap_chain
from models.presets.minilm import minilm_ptrnet
from models.presets.random_baseline import random

__all__ = [
    "minilm_ptrnet",
    "random",
    "bow_position",
    "overlap_chain",
]


def __getattr__(name: str):
    """`models.presets.<name>`: the registered preset `name` (the address the YAMLs give:
    configs name a preset, not the module it lives in)."""
    from models.registry import presets

    known = presets()
    if name in known:
        return known[name].build
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
