"""Accidents / Earthquakes reader (Barzilay & Lapata 2008): one article per file, one
sentence per line; train/test only, so fold k of a 10-fold cross-validation on train is
the validation split."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_readers import (
    TRICKY,
    abstract,
    published_article,
    published_copy_order,
    write_barzilay,
    write_barzilay_published,
    write_lines,
)

from data.duplicates import check_duplicates
from data.errors import DataFormatError
from data.readers.barzilay_lapata import BarzilayLapataReader, fold_of
from data.readers.published_ids import split_published_id
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


@pytest.mark.parametrize("style", ["ntsb", "apws"])
def test_published_ids_are_stripped(tmp_path: Path, style: str) -> None:
    root = write_barzilay_published(tmp_path / style, {"train": 12, "test": 3}, style=style)
    splits = BarzilayLapataReader(str(root), "accident").read_splits()
    assert sum(len(splits[s]) for s in ("train", "valid")) == 12 and len(splits["test"]) == 3
    for doc in splits["test"]:
        i = int(doc.id[4:8]) - 2600
        assert doc.sentences == tuple(published_article("test", i))  # text intact, no id
    every = [s for docs in splits.values() for d in docs for s in d.sentences]
    assert not any(s.startswith(("ntsb", "apws")) for s in every)
    kept = BarzilayLapataReader(str(root), "accident", strip_ids=False).read_splits()
    assert kept["test"][0].sentences[0].startswith(style)


def test_published_id_forms() -> None:
    assert split_published_id("ntsb2643txt-1-5-5-0-3 On January 13, 1994.") == (
        "ntsb2643txt-1-5-5-0-3",
        "On January 13, 1994.",
    )
    assert split_published_id("apwsE950112.0297-0: JERUSALEM (AP) A quake.") == (
        "apwsE950112.0297-0:",
        "JERUSALEM (AP) A quake.",
    )
    assert split_published_id("apwsE9510240020-2-2-1 BC-China-Quake|x") == (
        "apwsE9510240020-2-2-1",
        "BC-China-Quake|x",
    )
    assert split_published_id("ntsbX is a word.") == (None, "ntsbX is a word.")


def test_line_without_the_id_of_its_file_is_refused(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "a", {"train": 10, "test": 1})
    article = next((root / "test").iterdir())
    lines = article.read_text(encoding="utf-8").splitlines()
    write_lines(article, [*lines, "A sentence without its id."])
    with pytest.raises(DataFormatError, match=rf"{article.name}:{len(lines) + 1}: no published id"):
        BarzilayLapataReader(str(root), "accident").read_splits()


def test_published_archive_layout_reads_the_gold_copies(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "a", {"train": 12, "test": 4}, copies=3)
    reader = BarzilayLapataReader(str(root), "accident")
    splits = reader.read_splits()
    assert [len(splits[s]) for s in ("train", "valid", "test")] == [10, 2, 4]
    assert all(d.id.endswith(".perm-1") for docs in splits.values() for d in docs)
    assert reader.skipped_copies() == {"train": 36, "test": 12}
    assert len(reader.files()) == 16  # the fingerprint hashes the articles only


def test_copies_without_their_gold_article_are_refused(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "a", {"train": 12}, copies=2)
    write_barzilay_published(root, {"test": 4}, copies=2, gold=False)
    with pytest.raises(DatasetNotFoundError) as info:
        BarzilayLapataReader(str(root), "accident").read_splits()
    message = str(info.value)
    assert "published archive layout" in message and "8 copies of 4 articles" in message
    assert "ntsb2600.txt-1-5-5-0-out.perm-1 is missing" in message


def test_published_test_permutations(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "a", {"train": 12, "test": 5})
    perms = write_barzilay_published(tmp_path / "perms", {"test": 5}, copies=4, gold=False)
    reader = BarzilayLapataReader(str(root), "accident")
    orders = reader.published_test_permutations(perms / "test")
    test = reader.read_splits()["test"]
    assert list(orders) == [d.id for d in test]
    for doc in test:
        expected = {copy: published_copy_order(len(doc), copy) for copy in range(2, 6)}
        assert orders[doc.id] == expected
    # copies beside the articles (the default folder) give the same orders
    beside = write_barzilay_published(tmp_path / "b", {"train": 12, "test": 5}, copies=4)
    assert BarzilayLapataReader(str(beside), "accident").published_test_permutations() == orders
    stray = perms / "test" / "ntsb2700.txt-1-5-5-0-out.perm-2"
    write_lines(stray, ["ntsb2700txt-1-5-5-0-1 Unknown."])
    with pytest.raises(DataFormatError, match="not a test article"):
        reader.published_test_permutations(perms / "test")


def test_split_folders_with_other_names(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "a", {"train_staging": 10, "test_staging": 2})
    with pytest.raises(DatasetNotFoundError, match=r"test_staging', 'train_staging'"):
        BarzilayLapataReader(str(root), "earthquake").read_splits()
    reader = BarzilayLapataReader(
        str(root), "earthquake", train_folder="train_staging", test_folder="test_staging"
    )
    assert len(reader.read_splits()["test"]) == 2


def copy_article(root: Path, source: str, target: str) -> None:
    """A published duplicate: the file ``source`` again as ``target`` (same text)."""
    (root / target).write_bytes((root / source).read_bytes())


def test_identical_test_articles_are_kept_and_counted(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "q", {"train": 12, "test": 4}, style="apws")
    copy_article(
        root, "test/apws2601.txt-1-5-5-0-out.perm-1", "test/apws2699.txt-1-5-5-0-out.perm-1"
    )
    splits = BarzilayLapataReader(str(root), "earthquake").read_splits()
    assert len(splits["test"]) == 5  # kept as published
    report = check_duplicates(splits)
    assert report.counts() == {"train": 0, "valid": 0, "test": 1}
    assert report.groups["test"] == [
        ["apws2601.txt-1-5-5-0-out.perm-1", "apws2699.txt-1-5-5-0-out.perm-1"]
    ]


def test_identical_training_articles_share_a_fold(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "q", {"train": 20, "test": 2})
    for k in range(3):  # three copies of one article: whichever fold, never train and valid
        copy_article(root, "train/ntsb2605.txt-1-5-5-0-out.perm-1", f"train/ntsb27{k}.perm-1")
    for fold in range(10):
        splits = BarzilayLapataReader(str(root), "accident", fold=fold).read_splits()
        assert sum(check_duplicates(splits).counts().values()) == 3  # never raises
        assert sum(len(splits[s]) for s in ("train", "valid")) == 23


def test_the_same_article_in_train_and_test_is_refused(tmp_path: Path) -> None:
    root = write_barzilay_published(tmp_path / "a", {"train": 12, "test": 3})
    copy_article(
        root, "train/ntsb2604.txt-1-5-5-0-out.perm-1", "test/ntsb2999.txt-1-5-5-0-out.perm-1"
    )
    splits = BarzilayLapataReader(str(root), "accident").read_splits()
    with pytest.raises(DataFormatError) as info:
        check_duplicates(splits)
    message = str(info.value)
    assert (
        "'ntsb2999.txt-1-5-5-0-out.perm-1' (file test/ntsb2999.txt-1-5-5-0-out.perm-1)" in message
    )
    assert (
        "'ntsb2604.txt-1-5-5-0-out.perm-1' (file train/ntsb2604.txt-1-5-5-0-out.perm-1)" in message
    )
