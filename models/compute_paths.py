"""Which compute path the models take: the fast paths (the default) or the reference paths
they replaced (docs/performance.md, "Training at the published sizes").

Each fast path computes the same function as its reference, with the same parameters and
the same random numbers (dropout draws), so a checkpoint, a seed or a config means the
same on either; the outputs differ only by floating-point rounding. The reference paths
stay so that tests can compare the two (`tests/models/blocks/test_training_paths.py`) and the
bench can time both in one process (`benchmark.bench.paper`). Nothing outside tests and
benchmarks needs to switch.
"""

from collections.abc import Iterator
from contextlib import contextmanager

_REFERENCE = [False]


def use_reference() -> bool:
    """True inside `reference_paths()`."""
    return _REFERENCE[0]


@contextmanager
def reference_paths(enabled: bool = True) -> Iterator[None]:
    """Within the block, every model part takes its reference path (`enabled=False`: its
    fast path)."""
    previous = _REFERENCE[0]
    _REFERENCE[0] = enabled
    try:
        yield
    finally:
        _REFERENCE[0] = previous
