"""Which permutations order discrimination scores against (`discrimination.permutations`).

`own` (default): up to 20 seeded permutations per test document
(`benchmark.metrics.discrimination`).
`published`: the dataset's published test permutations, read by its reader's
`published_test_permutations(folder)` from `dataset.perm_path` (e.g. the Accidents
permutation files of Barzilay & Lapata 2008, the 1,986 pairs of Cui et al. 2018, Table 5),
so the figure is comparable pair for pair with the published tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from hydra.utils import get_object, instantiate
from omegaconf import DictConfig

from benchmark.metrics.discrimination import PublishedPermutations

CHOICES = ("own", "published")


def settings_problem(cfg: DictConfig) -> str | None:
    """What makes the config's `discrimination.permutations` unusable, one line naming
    the key, or None; from the config alone (no file is read), so the config check says
    it before training, not after the test."""
    choice = cfg.get("discrimination", {}).get("permutations", "own")
    if choice not in CHOICES:
        return f"discrimination.permutations must be one of {CHOICES}, got {choice!r}"
    if choice == "own":
        return None
    folder = cfg.dataset.get("perm_path")
    if not folder:
        return (
            f"discrimination.permutations=published needs dataset.perm_path (the folder of "
            f"the published test permutation files of {cfg.dataset.name})"
        )
    if not Path(folder).is_dir():
        return f"dataset.perm_path={folder} is not a folder"
    reader = get_object(cfg.dataset.reader._target_)
    if not hasattr(reader, "published_test_permutations"):
        return (
            f"discrimination.permutations=published: the {cfg.dataset.name} reader "
            f"({reader.__name__}) reads no published permutations"
        )
    return None


def published_permutations(cfg: DictConfig) -> PublishedPermutations | None:
    """None for `discrimination.permutations=own`; else the published test permutations
    of `dataset.perm_path` (a folder of `*.perm-N` files), or a one-line error naming the
    config key that is missing or wrong (`settings_problem`)."""
    problem = settings_problem(cfg)
    if problem:
        raise ValueError(problem)
    if cfg.get("discrimination", {}).get("permutations", "own") == "own":
        return None
    folder = cfg.dataset.perm_path
    reader = instantiate(cfg.dataset.reader)
    return PublishedPermutations(by_copy(reader.published_test_permutations(folder)), str(folder))


def by_copy(orders: Mapping[str, Mapping[int, Sequence[int]] | Sequence]) -> dict[str, list]:
    """`{doc id: {N: order}}` (orders by copy number N of `*.perm-N`) or `{doc id: [order]}`
    -> `{doc id: [order, ...]}` in increasing N."""
    return {
        doc_id: [copies[n] for n in sorted(copies)] if isinstance(copies, Mapping) else list(copies)
        for doc_id, copies in orders.items()
    }
