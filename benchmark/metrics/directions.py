"""Which way each figure of a run record is better, and the range it lies in, declared
once for every report and every reader of a record.

`higher` or `lower`: the figure measures ordering quality; the leaderboard bolds the best
mean and ranks by it, the plots and `orderbench compare` say when lower is better.
`not_ranked`: counts (`n_docs`, `disc_n_pairs`, ...) and figures that describe a model
without measuring its quality, such as the share of tied pairs in order discrimination
(`disc_ties_frac` is 1 for the random baseline, which scores every order alike;
docs/metrics.md). A figure missing here is not ranked either.

`METRIC_RANGES`: the values a figure can take (tau in [-1, 1], rates in [0, 1], counts and
`coherence_L` >= 0). A record holding a figure outside its range was not computed by the
suite, and every reader refuses it naming the key and the value (`range_problem`;
`benchmark.records.seal`); an interval over a few values by a normal or Student-t
approximation can leave the range and is clipped to it (`metric_range`).

The module imports only the standard library, so every report and command can read it
cheaply.
"""

from __future__ import annotations

import math

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

RATE_FIGURES = ("acc", "pmr", "head", "tail", "lcs", "acc_pooled", "pm_f", "noise_acc",
                "disc_acc", "disc_ties_frac")  # shares of documents, positions or pairs
COUNT_FIGURES = ("n_docs", "n_docs_order", "n_trivial", "n_sentences", "disc_ties",
                 "disc_n_pairs", "disc_n_docs")
METRIC_RANGES: dict[str, tuple[float, float]] = {
    "tau": (-1.0, 1.0),
    **{key: (0.0, 1.0) for key in RATE_FIGURES},
    "coherence_L": (0.0, math.inf),
    **{key: (0.0, math.inf) for key in COUNT_FIGURES},
}
# the slack of a range check: a mean of in-range figures may round past a bound by an ulp
RANGE_TOLERANCE = 1e-9


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


def metric_range(metric: str, scale: float = 1.0) -> tuple[float, float]:
    """(low, high) of `metric` (`METRIC_RANGES`), times `scale` (100 for a percentage);
    unbounded for a figure not listed."""
    low, high = METRIC_RANGES.get(metric, (-math.inf, math.inf))
    return low * scale, high * scale


def _bound(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:g}"


def range_problem(metric: str, value) -> str | None:
    """Why `value` cannot be a figure of `metric` ("outside its range [-1, 1]", "not a
    number"), or None; an undefined figure (None or NaN) has no range to leave."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "not a number"
    low, high = metric_range(metric)
    if math.isnan(value) or low - RANGE_TOLERANCE <= value <= high + RANGE_TOLERANCE:
        return None
    closing = ")" if math.isinf(high) else "]"
    return f"outside its range [{_bound(low)}, {_bound(high)}{closing}"
