"""Which way each figure of a run record is better, and the range it lies in, as every
report and every reader of a record asks; both are declared with each figure in
`benchmark.metrics.registry` (a key not declared there is not ranked and unbounded).

A record holding a figure outside its range was not computed by the suite, and every reader
refuses it naming the key and the value (`range_problem`; `benchmark.records.seal`); an
interval over a few values by a normal or Student-t approximation can leave the range and is
clipped to it (`metric_range`). Standard library only, so every report and command reads it
cheaply.
"""

from __future__ import annotations

import math

from benchmark.metrics.registry import HIGHER, LOWER, METRICS, NOT_RANKED

DIRECTIONS: dict[str, str] = {metric.key: metric.direction for metric in METRICS}
LOWER_IS_BETTER = frozenset(key for key, way in DIRECTIONS.items() if way == LOWER)
METRIC_RANGES: dict[str, tuple[float, float]] = {metric.key: metric.bounds for metric in METRICS}
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
