"""The `random` baseline preset: a uniform random permutation."""

from models.presets.random_baseline import RandomOrderer
from models.registry import Summary, register_preset


@register_preset(
    "random",
    colour="#9e9e9e",
    trainable=False,
    summary=Summary(
        sentences="—",
        paragraph="—",
        decoder="uniform random permutation",
    ),
)
def random(seed: int = 0, **_) -> RandomOrderer:
    """Uniform random permutation baseline; other preset arguments are ignored."""
    return RandomOrderer(seed=seed)
