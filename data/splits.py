"""Deterministic, group-aware, stratified train/valid/test splitting.

Whole groups (e.g. the source file of a paragraph) go to one split, so no text is
shared between splits (docs/design.md, section 2). Within each stratum (e.g. a genre) the groups
are sorted, shuffled with a generator seeded from (seed, stratum) and cut by the
fractions; adding or removing a stratum never moves the groups of another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")

SPLIT_NAMES = ("train", "valid", "test")


def apportion(n: int, fractions: Sequence[float]) -> list[int]:
    """Split ``n`` items into counts proportional to ``fractions`` (largest remainder).

    When ``n`` is at least the number of positive fractions, every such part gets at
    least one item (taken from the largest part), so small strata still reach every split.
    """
    total = float(sum(fractions))
    if total <= 0 or any(f < 0 for f in fractions):
        raise ValueError(f"split fractions must be non-negative and sum > 0, got {fractions}")
    quotas = [n * f / total for f in fractions]
    counts = [int(q) for q in quotas]
    by_remainder = sorted(range(len(quotas)), key=lambda i: (counts[i] - quotas[i], i))
    for i in by_remainder[: n - sum(counts)]:
        counts[i] += 1
    positive = [i for i, f in enumerate(fractions) if f > 0]
    if n >= len(positive):
        for i in positive:
            if counts[i] == 0:
                donor = max(range(len(counts)), key=lambda j: (counts[j], -j))
                counts[donor] -= 1
                counts[i] += 1
    return counts


def _stratum_rng(seed: int, stratum: Hashable) -> np.random.Generator:
    digest = hashlib.sha256(repr((seed, stratum)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest, "big"))


def group_split(
    items: Sequence[T],
    group_of: Callable[[T], str],
    stratum_of: Callable[[T], Hashable] | None = None,
    fractions: Sequence[float] = (0.8, 0.1, 0.1),
    seed: int = 0,
    names: Sequence[str] = SPLIT_NAMES,
) -> dict[str, list[T]]:
    """Assign whole groups of ``items`` to the splits ``names`` in the given ``fractions``.

    ``group_of(item)`` is the grouping key (all items of a group land in one split);
    ``stratum_of(item)`` (optional) stratifies: fractions are applied within each stratum.
    Every item of a group must have the same stratum. Items keep their input order
    within each split. Deterministic in (items, fractions, seed).
    """
    if len(fractions) != len(names):
        raise ValueError(f"{len(fractions)} fractions given for splits {list(names)}")
    stratum_of_group: dict[str, Hashable] = {}
    for item in items:
        group = group_of(item)
        stratum = stratum_of(item) if stratum_of is not None else None
        if stratum_of_group.setdefault(group, stratum) != stratum:
            raise ValueError(
                f"group {group!r} spans strata {stratum_of_group[group]!r} and {stratum!r}"
            )
    groups_by_stratum: dict[Hashable, list[str]] = {}
    for group, stratum in stratum_of_group.items():
        groups_by_stratum.setdefault(stratum, []).append(group)

    split_of_group: dict[str, str] = {}
    for stratum, groups in groups_by_stratum.items():
        ordered = sorted(groups)
        shuffled = [ordered[i] for i in _stratum_rng(seed, stratum).permutation(len(ordered))]
        start = 0
        for name, count in zip(names, apportion(len(shuffled), fractions), strict=True):
            for group in shuffled[start : start + count]:
                split_of_group[group] = name
            start += count

    splits: dict[str, list[T]] = {name: [] for name in names}
    for item in items:
        splits[split_of_group[group_of(item)]].append(item)
    return splits
