"""The readers on the real published files (see the README of the datasets folder): counts
as published, no published line id left in the text, the published archive layout,
duplicates reported, the published permutations mapped back to gold positions, NIPS in
the layout of the SE-Graph release. The files
are found through ``ORDERBENCH_DATASETS`` (``.ci/run`` sets it when ``../shared/datasets``
exists); without it every test here is skipped, saying why."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmark.datacard import main
from data.duplicates import check_duplicates
from data.readers.barzilay_lapata import BarzilayLapataReader
from data.readers.nips import NipsReader
from data.readers.published_ids import split_published_id
from data.readers.roc import RocReader
from data.readers.sind import SindReader
from data.readers.sources import DatasetNotFoundError

ROOT = os.environ.get("ORDERBENCH_DATASETS")
pytestmark = pytest.mark.skipif(
    not ROOT,
    reason="ORDERBENCH_DATASETS (the folder of the real published datasets) is not set",
)


def folder(name: str) -> Path:
    path = Path(ROOT or "") / name
    if not path.is_dir():
        pytest.skip(f"{path} is not there")
    return path


def sizes(splits: dict) -> list[int]:
    return [len(splits[s]) for s in ("train", "valid", "test")]


def sentences(splits: dict) -> list[str]:
    return [s for docs in splits.values() for doc in docs for s in doc.sentences]


@pytest.mark.parametrize("corpus, test_size", [("accident", 100), ("earthquake", 99)])
def test_barzilay_lapata_counts_and_no_ids(
    corpus: str, test_size: int, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = folder(corpus)
    main([f"dataset={corpus}", f"dataset.path={path}", f"+dataset.datamodule.cache_dir={tmp_path}"])
    card = json.loads(capsys.readouterr().out)
    assert [card["splits"][s]["n_docs"] for s in ("train", "valid", "test")] == [90, 10, test_size]
    assert card["vs_published"]["train+valid"] == {"published": 100, "ours": 100}
    assert card["vs_published"]["test"] == {"published": test_size, "ours": test_size}
    assert card["published_ids_left"] == 0
    splits = BarzilayLapataReader(str(path), corpus).read_splits()
    kept = BarzilayLapataReader(str(path), corpus, strip_ids=False).read_splits()
    assert all(split_published_id(s)[0] is not None for s in sentences(kept))  # every line had one
    assert not any(s.startswith(("ntsb", "apws")) for s in sentences(splits))


def test_earthquake_duplicates_reported_and_kept_in_one_fold() -> None:
    path = folder("earthquake")
    for fold in range(10):
        splits = BarzilayLapataReader(str(path), "earthquake", fold=fold).read_splits()
        report = check_duplicates(splits)  # raises if a text were in two splits
        assert report.counts()["test"] == 1 and sum(report.counts().values()) == 3
    (pair,) = report.groups["test"]
    assert [name[:16] for name in pair] == ["apwsE941114.0536", "apwsE941114.0538"]


def test_published_archive_layout() -> None:
    perms = folder("accident_perms")
    with pytest.raises(DatasetNotFoundError, match="published archive layout.*1986 copies"):
        BarzilayLapataReader(str(perms), "accident").read_splits()
    reader = BarzilayLapataReader(str(perms), "accident", test_folder="train")
    splits = reader.read_splits()
    assert sizes(splits) == [90, 10, 100]  # the articles it holds, perm-1 only
    assert reader.skipped_copies()["train"] == 2000


def test_published_accident_test_permutations() -> None:
    reader = BarzilayLapataReader(str(folder("accident")), "accident")
    perm_folder = folder("accident_perms") / "test"
    orders = reader.published_test_permutations(perm_folder)
    assert len(orders) == 100 and sum(len(o) for o in orders.values()) == 1986  # Table 5
    # the Accidents ids end in the gold position: an independent check of the text matching
    for path in sorted(perm_folder.iterdir()):
        article, n = path.name.split(".perm-")
        ids = [line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line]
        positions = [int(i.rsplit("-", 1)[1]) - 1 for i in ids]
        assert orders[f"{article}.perm-1"][int(n)] == positions


@pytest.mark.parametrize("corpus", ["accident", "earthquake"])
def test_cross_validation_tests_every_training_article_once(corpus: str) -> None:
    """dataset.protocol=cross_validation on the published files: folds 0-9 test each of the
    100 training articles once, never with its text (or an identical one) in training or
    validation; Accidents' held-out folds have their published permutations (20 each)."""
    path = folder(corpus)
    tested = []
    for fold in range(10):
        reader = BarzilayLapataReader(str(path), corpus, fold=fold, protocol="cross_validation")
        splits = reader.read_splits()
        check_duplicates(splits)  # raises if a text were in two splits
        assert sum(sizes(splits)) == 100 and 9 <= len(splits["test"]) <= 11
        tested += [doc.id for doc in splits["test"]]
        if corpus == "accident" and fold in (0, 7):
            orders = reader.published_test_permutations(folder("accident_perms") / "train")
            assert set(orders) == {doc.id for doc in splits["test"]}
            assert {len(copies) for copies in orders.values()} == {20}
    assert len(tested) == len(set(tested)) == 100


def test_sind_arxiv_layout_counts() -> None:
    reader = SindReader(str(folder("sind_arxivfmt")), layout="arxiv")
    splits = {split: reader.read_split(split) for split in ("valid", "test")}
    assert [len(splits["valid"]), len(splits["test"])] == [4990, 5055]
    assert {len(doc) for docs in splits.values() for doc in docs} == {5}
    report = check_duplicates(splits)  # no story in both valid and test
    assert report.counts() == {"valid": 0, "test": 5}
    with pytest.raises(DatasetNotFoundError, match="train.txt is missing"):
        reader.read_splits()  # the release has no train file


def test_roc_sample() -> None:
    splits = RocReader(str(folder("roc_sample"))).read_splits()
    assert sum(sizes(splits)) == 111
    texts = sentences(splits)
    assert len(texts) == 555 and all(texts)
    assert any('"' in s for s in texts)  # a "" escape inside a quoted field
    assert any("," in s for s in texts)  # quoted commas stay inside their sentence
    assert any(not s.endswith((".", "!", "?", '"')) for s in texts)  # no final punctuation


def test_nips_nseg_counts_and_sentences(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = folder("nips_nseg")
    main(["dataset=nips", f"dataset.path={path}", f"+dataset.datamodule.cache_dir={tmp_path}"])
    card = json.loads(capsys.readouterr().out)
    assert card["layout"] == "nseg"
    assert [card["splits"][s]["n_docs"] for s in ("train", "valid", "test")] == [2427, 408, 377]
    assert all(v["published"] == v["ours"] for v in card["vs_published"].values())
    assert min(card["splits"][s]["min"] for s in card["splits"]) == 2
    assert max(card["splits"][s]["max"] for s in card["splits"]) == 15
    # two abstracts repeated within their split, none across splits (else the card fails)
    assert card["duplicate_ids"] == {"train": [["train-2360", "train-2362"]],
                                     "test": [["test-266", "test-268"]]}  # fmt: skip
    splits = NipsReader(str(path)).read_splits()
    assert {2 <= len(doc) <= 15 for docs in splits.values() for doc in docs} == {True}
    assert not any("<eos>" in s for s in sentences(splits))
    assert splits["test"][0].id == "test-1" and splits["test"][-1].id == "test-377"
