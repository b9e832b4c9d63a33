"""Group-aware, stratified, deterministic splitting and the Document record."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from data.document import Document
from data.errors import DataFormatError
from data.splits import apportion, group_split

APPORTION_CASES = [(10, [8, 1, 1]), (9, [7, 1, 1]), (6, [4, 1, 1]), (3, [1, 1, 1]), (2, [2, 0, 0])]


@pytest.mark.parametrize("n, expected", [*APPORTION_CASES, (0, [0, 0, 0])])
def test_apportion(n: int, expected: list[int]) -> None:
    assert apportion(n, (0.8, 0.1, 0.1)) == expected


@given(st.integers(0, 300), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5))
def test_apportion_sums(n: int, fractions: list[float]) -> None:
    if sum(fractions) <= 0:
        with pytest.raises(ValueError):
            apportion(n, fractions)
        return
    counts = apportion(n, fractions)
    assert sum(counts) == n and min(counts) >= 0


def items(n_groups: int, per_group: int = 3) -> list[tuple[str, str, int]]:
    """(group, stratum, k) items: strata s0/s1 alternate over the groups."""
    return [(f"g{g:03d}", f"s{g % 2}", k) for g in range(n_groups) for k in range(per_group)]


def test_group_split_keeps_groups_whole_and_stratifies() -> None:
    data = items(100)
    splits = group_split(data, group_of=lambda x: x[0], stratum_of=lambda x: x[1], seed=3)
    groups = {name: {x[0] for x in part} for name, part in splits.items()}
    assert sum(len(g) for g in groups.values()) == 100
    assert not groups["train"] & groups["valid"] and not groups["valid"] & groups["test"]
    assert not groups["train"] & groups["test"]
    for name, expected in {"train": 40, "valid": 5, "test": 5}.items():
        strata = [x[1] for x in splits[name] if x[2] == 0]
        assert strata.count("s0") == strata.count("s1") == expected
    assert splits["train"] == sorted(splits["train"])  # input order kept


def test_group_split_deterministic_and_seeded() -> None:
    data = items(50)
    a = group_split(data, group_of=lambda x: x[0], seed=0)
    assert a == group_split(list(data), group_of=lambda x: x[0], seed=0)
    assert a != group_split(data, group_of=lambda x: x[0], seed=1)


def test_group_split_rejects_group_in_two_strata() -> None:
    with pytest.raises(ValueError, match="group 'g' spans strata"):
        group_split([("g", "a"), ("g", "b")], group_of=lambda x: x[0], stratum_of=lambda x: x[1])


def test_document_validation() -> None:
    doc = Document("d1", ["A.", "B."], {"genre": "news"})
    assert doc.sentences == ("A.", "B.") and doc.source == "d1" and len(doc) == 2
    with pytest.raises(DataFormatError, match="document 'd2' has no sentences"):
        Document("d2", ())
    with pytest.raises(DataFormatError, match="document 'd3': sentence 1 is NoneType"):
        Document("d3", ("A.", None))
    with pytest.raises(DataFormatError, match="non-empty string"):
        Document("", ("A.",))
