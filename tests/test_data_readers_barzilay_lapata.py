"""Accidents / Earthquakes reader (Barzilay & Lapata 2008): one article per file, one
sentence per line; train/test only, so fold k of a 10-fold cross-validation on train is
the validation split."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_readers import TRICKY, abstract, write_barzilay, write_lines

from data.readers.barzilay_lapata import BarzilayLapataReader, fold_of
from data.readers.sources import DatasetNotFoundError


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_barzilay(tmp_path / "accident", n_train=25, n_test=8)


def test_articles_text_and_test_split(corpus: Path) -> None:
    splits = BarzilayLapataReader(str(corpus), "accident").read_splits()
    assert [d.id for d in splits["test"]] == [f"test{i:03d}.txt" for i in range(8)]
    doc = splits["test"][3]
    assert doc.sentences == tuple(abstract("test3", 2 + 3 % 6))
    assert doc.sentences[1:3] == TRICKY
    assert doc.meta == {"file": "test/test003.txt"}


def test_folds_partition_train(corpus: Path) -> None:
    valid_sets = []
    for fold in range(10):
        splits = BarzilayLapataReader(str(corpus), "earthquake", fold=fold).read_splits()
        train, valid = {d.id for d in splits["train"]}, {d.id for d in splits["valid"]}
        assert not train & valid and len(train | valid) == 25
        assert len(valid) in (2, 3)
        valid_sets.append(valid)
    assert set().union(*valid_sets) == {f"train{i:03d}.txt" for i in range(25)}
    assert sum(len(v) for v in valid_sets) == 25  # every article is valid in exactly one fold
    assert fold_of(["b", "a", "c"], 3, seed=0) == fold_of(["c", "a", "b"], 3, seed=0)


def test_pattern_and_hidden_files(corpus: Path) -> None:
    write_lines(corpus / "train" / ".DS_Store", ["junk"])
    write_lines(corpus / "train" / "train000.txt.perm-1", ["A permutation."])
    reader = BarzilayLapataReader(str(corpus), "accident", pattern="*.txt")
    splits = reader.read_splits()
    assert len(splits["train"]) + len(splits["valid"]) == 25


def test_errors_name_layout(tmp_path: Path, corpus: Path) -> None:
    with pytest.raises(DatasetNotFoundError) as info:
        BarzilayLapataReader(str(tmp_path / "accident" / "train"), "accident").read_splits()
    message = str(info.value)
    assert "train/train is not a folder" in message
    assert "train/ and test/ folders of NTSB accident reports" in message
    assert "Barzilay & Lapata 2008" in message
    with pytest.raises(ValueError, match="0 <= fold < n_folds"):
        BarzilayLapataReader(str(corpus), "accident", fold=10)
    with pytest.raises(ValueError, match="lower dataset.reader.n_folds"):
        BarzilayLapataReader(str(corpus), "accident", n_folds=30).read_splits()
