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

from hydra.utils import instantiate
from omegaconf import DictConfig

from benchmark.config.checks import discrimination_settings_problem
from benchmark.metrics.discrimination import PublishedPermutations


def published_permutations(cfg: DictConfig) -> PublishedPermutations | None:
    """None for `discrimination.permutations=own`; else the published test permutations
    of `dataset.perm_path` (a folder of `*.perm-N` files), or a one-line error naming the
    config key that is missing or wrong (`discrimination_settings_problem`)."""
    problem = discrimination_settings_problem(cfg)
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
