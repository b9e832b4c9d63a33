"""Every figure a run record can hold, declared once (docs/design.md, section 4): its
per-document function(s), which way is better, the range it lies in, its axis label and how
its corpus value is aggregated. Scoring (`ORDER_METRICS`, `NOISE_METRICS`,
`benchmark.metrics.corpus`), the leaderboards and `compare` (`benchmark.metrics.directions`),
the plots' labels (`benchmark.report.plot_style`) and the records' range checks
(`benchmark.records.seal`) all read this table.

- `order`: the function of (gold, pred) defined when pred holds exactly the gold sentences
  (`benchmark.metrics.order`); `kept`: the function defined for any kept subset of gold +
  distractors (`benchmark.metrics.noise`). `pmr` has both (equal on a permutation).
- `direction`: `higher` or `lower` is better; `not_ranked` for counts and for figures that
  describe a model without measuring its quality (`disc_ties_frac` is 1 for the random
  baseline, which scores every order alike; docs/metrics.md). A key not declared here is
  not ranked either.
- `bounds`: the values the figure can take; a record holding a figure outside them was not
  computed by the suite and every reader refuses it.
- `aggregation`: `mean` over the scored documents, `pooled` over their sentences (the
  per-document figure it `pools` times each document's sentences, summed, over the
  sentences: `acc_pooled` = correct positions / sentences, `lcs_pooled` = longest common
  subsequences / sentences), `pairs` over the (original, shuffle) pairs of order
  discrimination, or `count`.

Standard library only (the functions too), so every report and command reads it cheaply.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from benchmark.metrics.noise import exact_match, noise_accuracy, pm_f
from benchmark.metrics.order import (
    coherence_l,
    head_match,
    kendall_tau,
    lcs_ratio,
    perfect_match,
    position_accuracy,
    tail_match,
)
from benchmark.metrics.sentence_ids import Ids

HIGHER, LOWER, NOT_RANKED = "higher", "lower", "not_ranked"
MEAN, POOLED, PAIRS, COUNT = "mean", "pooled", "pairs", "count"
SIGNED = (-1.0, 1.0)  # a correlation
RATE = (0.0, 1.0)  # a share of documents, positions or pairs
COUNTED = (0.0, math.inf)  # a count, or a distance


@dataclass(frozen=True)
class Metric:
    key: str
    direction: str
    bounds: tuple[float, float]
    aggregation: str
    label: str | None = None  # axis label (name and range or unit); None: the key
    order: Callable[[Ids, Ids], float] | None = None  # per document, pred permutes gold
    kept: Callable[[Ids, Ids], float] | None = None  # per document, any kept subset
    pools: str | None = None  # a `pooled` figure: the per-document figure it pools


# The figures every summary shows first, in this order (a leaderboard's intervals, the console
# after a run, a presentation's spread, the figures of cut documents): Kendall's tau, PMR and
# the per-document accuracy (docs/design.md, section 4: corpus figures are means over
# documents unless named `_pooled`; acc_pooled is reported beside it for the tables that
# pooled positions over the corpus, docs/metrics.md).
HEADLINE_ACCURACY = "acc"
HEADLINE: tuple[str, ...] = ("tau", "pmr", HEADLINE_ACCURACY)

METRICS: tuple[Metric, ...] = (  # in report order
    Metric("tau", HIGHER, SIGNED, MEAN, "Kendall's τ (−1 to 1)", order=kendall_tau),
    Metric("acc", HIGHER, RATE, MEAN, "accuracy (fraction)", order=position_accuracy),
    Metric("pmr", HIGHER, RATE, MEAN, "PMR (fraction of docs)", order=perfect_match,
           kept=exact_match),
    Metric("head", HIGHER, RATE, MEAN, "first right (fraction)", order=head_match),
    Metric("tail", HIGHER, RATE, MEAN, "last right (fraction)", order=tail_match),
    Metric("lcs", HIGHER, RATE, MEAN, "LCS / length (fraction)", order=lcs_ratio),
    Metric("coherence_L", LOWER, COUNTED, MEAN, "displacement L", order=coherence_l),
    Metric("acc_pooled", HIGHER, RATE, POOLED, "pooled accuracy (fraction)", pools="acc"),
    Metric("lcs_pooled", HIGHER, RATE, POOLED, "pooled LCS / length (fraction)", pools="lcs"),
    Metric("pm_f", HIGHER, RATE, MEAN, "PM-F (0 to 1)", kept=pm_f),
    Metric("noise_acc", HIGHER, RATE, MEAN, "noise accuracy (fraction)", kept=noise_accuracy),
    Metric("disc_acc", HIGHER, RATE, PAIRS),
    Metric("disc_ties", NOT_RANKED, COUNTED, COUNT),
    Metric("disc_ties_frac", NOT_RANKED, RATE, PAIRS),
    Metric("disc_n_pairs", NOT_RANKED, COUNTED, COUNT),
    Metric("disc_n_docs", NOT_RANKED, COUNTED, COUNT),
    Metric("n_docs", NOT_RANKED, COUNTED, COUNT),
    Metric("n_docs_order", NOT_RANKED, COUNTED, COUNT),
    Metric("n_trivial", NOT_RANKED, COUNTED, COUNT),
    Metric("n_sentences", NOT_RANKED, COUNTED, COUNT),
)  # fmt: skip
BY_KEY: dict[str, Metric] = {metric.key: metric for metric in METRICS}

# the per-document functions by key: defined when pred permutes gold / for any kept subset
ORDER_METRICS: dict[str, Callable[[Ids, Ids], float]] = {
    m.key: m.order for m in METRICS if m.order is not None
}
NOISE_METRICS: dict[str, Callable[[Ids, Ids], float]] = {
    m.key: m.kept for m in METRICS if m.kept is not None
}
# the pooled figures by key -> the per-document figure each pools over sentences
POOLED_METRICS: dict[str, str] = {m.key: m.pools for m in METRICS if m.pools is not None}
