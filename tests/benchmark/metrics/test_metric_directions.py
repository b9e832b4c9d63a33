"""Every figure of a run record is declared once (benchmark/metrics/registry.py) with its
direction and range, and the reports follow it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from benchmark.metrics.corpus import corpus_metrics
from benchmark.metrics.directions import (
    DIRECTIONS,
    HIGHER,
    LOWER,
    METRIC_RANGES,
    NOT_RANKED,
    direction,
    is_better,
)
from benchmark.metrics.discrimination import FIGURES as DISCRIMINATION_FIGURES
from benchmark.metrics.registry import BY_KEY, METRICS, NOISE_METRICS, ORDER_METRICS, POOLED_METRICS
from benchmark.report.plot_style import metric_label


def test_every_figure_the_suite_writes_is_declared():
    noisy = corpus_metrics([([0, 1, 2], [0, 2, 1], [-1]), ([0, 1], [1, 0], [])])
    figures = {*ORDER_METRICS, *NOISE_METRICS, *POOLED_METRICS, *DISCRIMINATION_FIGURES}
    figures |= {key for key, value in noisy.items() if isinstance(value, (int, float))}
    assert figures - set(DIRECTIONS) == set()
    assert set(DIRECTIONS.values()) == {HIGHER, LOWER, NOT_RANKED}
    assert set(DIRECTIONS) - set(METRIC_RANGES) == set()  # and its range, beside it


def test_counts_and_ties_are_not_ranked():
    for key in ("n_docs", "n_docs_order", "n_trivial", "disc_ties", "disc_ties_frac",
                "disc_n_pairs", "disc_n_docs", "some_new_figure"):
        assert direction(key) == NOT_RANKED, key
        assert not is_better(key, 1.0, 0.0) and not is_better(key, 0.0, 1.0)
    assert direction("coherence_L") == LOWER and is_better("coherence_L", 1.0, 2.0)
    assert direction("tau") == HIGHER and is_better("tau", 0.5, 0.2)


def test_plot_labels_follow_the_declaration():
    assert metric_label("coherence_L").endswith("lower is better")
    assert "lower is better" not in metric_label("tau")
    assert "not ranked" in metric_label("disc_ties_frac")


def test_each_figure_is_declared_once_with_what_every_reader_needs():
    keys = [metric.key for metric in METRICS]
    assert len(keys) == len(set(keys))  # one declaration per figure
    for metric in METRICS:
        assert metric.direction in {HIGHER, LOWER, NOT_RANKED}, metric.key
        low, high = metric.bounds
        assert low < high, metric.key
        if metric.direction != NOT_RANKED:  # ranked figures are plotted with their label
            assert metric_label(metric.key).startswith(metric.label or metric.key)


@given(st.permutations(range(6)))
def test_pmr_is_the_same_figure_for_a_permutation_and_a_kept_subset(pred):
    pmr = BY_KEY["pmr"]
    assert pmr.order(list(range(6)), pred) == pmr.kept(list(range(6)), pred)
