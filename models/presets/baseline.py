"""The `random` baseline preset: a uniform random permutation."""

from models.presets.random_baseline import RandomOrderer
from models.registry import register_preset


@register_preset("random", colour="#9e9e9e", trainable=False)
def random(seed: int = 0, **_) -> RandomOrderer:
    """Uniform random permutation baseline; other preset arguments are ignored."""
    return RandomOrderer(seed=seed)
