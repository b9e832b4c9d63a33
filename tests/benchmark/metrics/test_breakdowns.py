"""Breakdowns by paragraph length and by meta field: buckets, figures, field selection."""

from __future__ import annotations

import numpy as np
import pytest

from benchmark.metrics.breakdowns import (
    MAX_META_VALUES,
    breakdowns,
    by_length,
    by_meta,
    categorical_fields,
    length_bucket,
)
from benchmark.metrics.corpus import corpus_metrics

GENRES = ["news", "fiction", "learned"]


def records_with_meta(count, seed, noisy=False):
    rng = np.random.default_rng(seed)
    records = []
    for index in range(count):
        n = int(rng.integers(1, 16))
        pred = rng.permutation(n).tolist()
        if noisy and rng.random() < 0.5:
            pred = [*pred[1:], -1]
        record = {"id": f"d{index}", "gold": list(range(n)), "pred": pred}
        if noisy:
            record["noise"] = [-1]
        record["meta"] = {"file": f"f{index}", "header": ["title", "x"]}
        if index % 7:  # every seventh document has no genre
            record["meta"]["genre"] = GENRES[index % 3]
        records.append(record)
    return records


def figures_of(records, include_trivial=False):
    """The figures a bucket of these records must have: the split figures of the subset."""
    result = corpus_metrics(
        [(r["gold"], r["pred"], r.get("noise")) for r in records], include_trivial
    )
    return {k: v for k, v in result.items() if k not in ("n_trivial", "trivial_policy")}


@pytest.mark.parametrize(
    ("n", "bucket"),
    [(1, "1"), (2, "2-3"), (3, "2-3"), (4, "4-5"), (5, "4-5"), (6, "6-8"), (8, "6-8")]
    + [(9, "9-12"), (12, "9-12"), (13, "13+"), (40, "13+")],
)
def test_length_bucket(n, bucket):
    assert length_bucket(n) == bucket


def test_length_bucket_rejects_empty_documents():
    with pytest.raises(ValueError, match="at least one sentence"):
        length_bucket(0)


@pytest.mark.parametrize("include_trivial", [False, True])
@pytest.mark.parametrize("noisy", [False, True])
def test_by_length_buckets_hold_the_figures_of_their_documents(include_trivial, noisy):
    records = records_with_meta(300, seed=1, noisy=noisy)
    result = by_length(records, include_trivial)
    expected_buckets = ["2-3", "4-5", "6-8", "9-12", "13+"]
    if include_trivial or noisy:  # one-sentence documents are scored
        expected_buckets.insert(0, "1")
    assert list(result) == expected_buckets
    for bucket, figures in result.items():
        members = [r for r in records if length_bucket(len(r["gold"])) == bucket]
        assert figures == pytest.approx(figures_of(members, include_trivial), nan_ok=True)
    total = figures_of(records, include_trivial)["n_docs"]
    assert sum(figures["n_docs"] for figures in result.values()) == total
    assert ("noise_acc" in result["2-3"]) == noisy
    assert ("n_docs_order" in result["2-3"]) == noisy


def test_by_meta_groups_by_value_and_missing_field():
    records = records_with_meta(140, seed=2)
    result = by_meta(records, "genre")
    assert list(result) == ["(none)", "fiction", "learned", "news"]
    for genre, figures in result.items():
        members = [r for r in records if r["meta"].get("genre", "(none)") == genre]
        assert figures == pytest.approx(figures_of(members), nan_ok=True)


def test_records_without_meta_go_to_none():
    records = [
        {"id": "a", "gold": [0, 1], "pred": [1, 0]},
        {"id": "b", "gold": [0, 1], "pred": [0, 1]},
    ]
    assert by_meta(records, "genre")["(none)"]["n_docs"] == 2


def test_breakdowns_cover_length_and_categorical_fields_only():
    records = records_with_meta(100, seed=3)
    result = breakdowns(records)
    # "file" has 100 distinct values and "header" is a list: neither is broken down.
    assert list(result) == ["length", "meta.genre"]
    assert result["length"] == by_length(records)
    assert result["meta.genre"] == by_meta(records, "genre")


def test_categorical_fields():
    many = [{"meta": {"id": str(i), "genre": "a", "n": i % 3, "x": None}} for i in range(30)]
    assert categorical_fields(many) == ["genre", "n"]
    few = [{"meta": {"id": str(i)}} for i in range(MAX_META_VALUES)]
    assert categorical_fields(few) == ["id"]
    assert categorical_fields([{"id": "a"}, {"meta": None}]) == []
