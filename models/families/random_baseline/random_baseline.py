"""The `random` baseline preset: a uniformly random permutation of the presented sentences
(`models.orderers.random_orderer`).

The reference point every ordering table reports (expected Kendall tau 0); there is
nothing to train (its kind is `baseline`: no parameters).

With distractors (`dataset.noise`, docs/design.md, section 4) it orders every presented sentence,
distractors included: it never predicts noise, so its `noise_acc` is the share of
documents without a distractor (0 under noise 1, about 0.5 under 0/1), and its `pm_f` and
`pmr` are those of a random order that keeps everything (the harness does not wrap it
in `models.noise.noise_wrapper`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from models.orderers.random_orderer import RandomOrderer


@register_preset(
    "random",
    colour="#9e9e9e",
    kind="baseline",
    summary=Summary(
        sentences="—",
        paragraph="—",
        decoder="uniform random permutation",
    ),
)
def random(seed: int = 0, **_) -> RandomOrderer:
    """Uniform random permutation baseline; other preset arguments are ignored."""
    from models.orderers.random_orderer import RandomOrderer

    return RandomOrderer(seed=seed)
