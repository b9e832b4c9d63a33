"""Which way each figure of a run record is better, declared once for every report.

`higher` or `lower`: the figure measures ordering quality; the leaderboard bolds the best
mean and ranks by it, the plots and `orderbench compare` say when lower is better.
`not_ranked`: counts (`n_docs`, `disc_n_pairs`, ...) and figures that describe a model
without measuring its quality, such as the share of tied pairs in order discrimination
(`disc_ties_frac` is 1 for the random baseline, which scores every order alike;
docs/metrics.md). A figure missing here is not ranked either.

The module imports nothing, so every report and command can read it cheaply.
"""

from __future__ import annotations

HIGHER = "higher"
LOWER = "lower"
NOT_RANKED = "not_ranked"

DIRECTIONS: dict[str, str] = {
    # order metrics (benchmark.metrics.order) and acc_pooled (benchmark.metrics.corpus)
    "tau": HIGHER,
    "acc": HIGHER,
    "pmr": HIGHER,
    "head": HIGHER,
    "tail": HIGHER,
    "lcs": HIGHER,
    "coherence_L": LOWER,
    "acc_pooled": HIGHER,
    # kept-sentence metrics (benchmark.metrics.noise)
    "pm_f": HIGHER,
    "noise_acc": HIGHER,
    # order discrimination (benchmark.metrics.discrimination)
    "disc_acc": HIGHER,
    "disc_ties_frac": NOT_RANKED,
    "disc_ties": NOT_RANKED,
    "disc_n_pairs": NOT_RANKED,
    "disc_n_docs": NOT_RANKED,
    # counts of the corpus figures
    "n_docs": NOT_RANKED,
    "n_docs_order": NOT_RANKED,
    "n_trivial": NOT_RANKED,
    "n_sentences": NOT_RANKED,
}

LOWER_IS_BETTER = frozenset(key for key, way in DIRECTIONS.items() if way == LOWER)


def direction(metric: str) -> str:
    """`higher`, `lower` or `not_ranked` (also for a figure not declared here)."""
    return DIRECTIONS.get(metric, NOT_RANKED)


def is_ranked(metric: str) -> bool:
    """Whether a best value of `metric` means anything."""
    return direction(metric) != NOT_RANKED


def is_better(metric: str, a: float, b: float) -> bool:
    """Whether `a` is strictly better than `b`; False for a metric that is not ranked."""
    way = direction(metric)
    return a > b if way == HIGHER else a < b if way == LOWER else False
