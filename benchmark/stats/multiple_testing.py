"""Holm's step-down correction of a family of p-values (Holm 1979, "A simple sequentially
rejective multiple test procedure", Scand. J. Statist. 6:65-70).

The leaderboard tests several rows of a dataset at once; rejecting where the Holm-adjusted
p-value is below alpha keeps the chance of any false "better"/"worse" in the family at
most alpha (family-wise error rate), under any dependence between the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values, in input order; NaN entries stay NaN and are not counted.

    With m tests sorted p_(1) <= ... <= p_(m), the adjusted p_(i) is
    max_{j <= i} min(1, (m - j + 1) p_(j)).
    """
    p = np.asarray(p_values, dtype=float)  # (m,)
    adjusted = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    if tested.size == 0:
        return adjusted
    if np.any((p[tested] < 0) | (p[tested] > 1)):
        raise ValueError(f"p-values must lie in [0, 1], got {p[tested].tolist()}")
    order = tested[np.argsort(p[tested], kind="stable")]  # indices, smallest p first
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])  # (m - j + 1) p_(j), j from 1
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted
