"""ROCStories reader: the published CSV columns, the seeded 80/10/10 split of the pooled
releases (78,529 / 9,816 / 9,817 for 98,162 stories), a given split, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_readers import TRICKY, roc_stories, write_roc

from data.errors import DataFormatError
from data.readers.roc import RocReader, split_sizes
from data.readers.sources import SOURCES, DatasetNotFoundError


def test_published_split_sizes() -> None:
    sizes = SOURCES["roc"].sizes
    assert split_sizes(98162) == [sizes["train"], sizes["valid"], sizes["test"]]
    assert split_sizes(10) == [8, 1, 1] and split_sizes(9) == [7, 0, 2]


def test_pooled_releases_split_at_random(tmp_path: Path) -> None:
    write_roc(tmp_path / "roc" / "ROCStories_spring2016.csv", roc_stories("s", 30))
    write_roc(tmp_path / "roc" / "ROCStories_winter2017.csv", roc_stories("w", 20))
    splits = RocReader(str(tmp_path / "roc")).read_splits()
    ids = {split: [d.id for d in docs] for split, docs in splits.items()}
    assert [len(v) for v in ids.values()] == [40, 5, 5]
    assert sorted(sum(ids.values(), [])) == sorted(
        s for s, _, _ in roc_stories("s", 30) + roc_stories("w", 20)
    )
    assert ids["train"] == sorted(ids["train"])  # input order kept within a split
    assert RocReader(str(tmp_path / "roc")).read_splits() == splits
    reseeded = RocReader(str(tmp_path / "roc"), split_seed=1).read_splits()
    assert {d.id for d in reseeded["test"]} != set(ids["test"])
    # the split depends on the stories, not on how the files are named
    (tmp_path / "roc" / "ROCStories_winter2017.csv").rename(tmp_path / "roc" / "a_first.csv")
    again = RocReader(str(tmp_path / "roc")).read_splits()
    assert {s: {d.id for d in v} for s, v in again.items()} == {s: set(v) for s, v in ids.items()}


def test_text_intact_and_title_kept(tmp_path: Path) -> None:
    sentences = ['Ann said, "yes".', *TRICKY, "Then, she left.", "The end."]
    write_roc(tmp_path / "roc" / "train.csv", [("a1", "Ann's day", sentences)])
    write_roc(tmp_path / "roc" / "valid.csv", [("b1", "B", sentences)])
    write_roc(tmp_path / "roc" / "test.csv", [("c1", "C", sentences), ("c2", "C2", sentences)])
    files = {"train": "train.csv", "valid": "valid.csv", "test": "test.csv"}
    splits = RocReader(str(tmp_path / "roc"), split_files=files).read_splits()
    assert [[d.id for d in v] for v in splits.values()] == [["a1"], ["b1"], ["c1", "c2"]]
    assert splits["train"][0].sentences == tuple(sentences)
    assert splits["train"][0].meta == {"title": "Ann's day"}


def test_errors_name_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "roc"
    write_roc(root / "a.csv", roc_stories("a", 3))
    write_roc(root / "b.csv", roc_stories("a", 2))
    with pytest.raises(
        DataFormatError, match=r"b\.csv:2: duplicate story id 'a-0000' \(first at .*a\.csv:2\)"
    ):
        RocReader(str(root)).read_splits()
    (root / "b.csv").write_text("storyid,storytitle,InputSentence1\nx,y,z\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"b\.csv:1: missing column\(s\) \['sentence1'"):
        RocReader(str(root)).read_splits()
    write_roc(root / "b.csv", [("b-1", "t", ["One.", "Two.", "", "Four.", "Five."])])
    with pytest.raises(DataFormatError, match=r"b\.csv:2: empty story id or sentence"):
        RocReader(str(root)).read_splits()


def test_missing_data_names_layout(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        DatasetNotFoundError, match="(?s)holds no .csv file.*storyid, storytitle.*rocstories"
    ):
        RocReader(str(tmp_path / "empty")).read_splits()
    files = {"train": "train.csv", "valid": "valid.csv", "test": "test.csv"}
    with pytest.raises(DatasetNotFoundError, match="train.csv is missing"):
        RocReader(str(tmp_path / "empty"), split_files=files).read_splits()
    with pytest.raises(ValueError, match="three different files"):
        RocReader("x", split_files={"train": "a.csv", "valid": "a.csv", "test": "b.csv"})


def test_published_csv_quirks(tmp_path: Path) -> None:
    """As in the spring 2016 release: a file name with spaces, quoted fields with commas, a
    ``""`` escape, sentences without final punctuation (written by hand, not csv.writer)."""
    root = tmp_path / "roc"
    root.mkdir()
    header = "storyid,storytitle,sentence1,sentence2,sentence3,sentence4,sentence5"
    rows = [
        'q-1,"Rain, again",One day it rained.,"Then, later, it stopped.",Kim ran out,'
        '"She said ""wow"".","The coach said ""Was it, really?"""',
        *(f"q-{i},T{i},A {i}.,B {i}.,C {i}.,D {i}.,E {i}." for i in range(2, 11)),
    ]
    (root / "ROCStories__spring2016 - ROCStories_spring2016.csv").write_text(
        "\n".join([header, *rows]) + "\n", encoding="utf-8"
    )
    stories = {d.id: d for docs in RocReader(str(root)).read_splits().values() for d in docs}
    assert len(stories) == 10
    assert stories["q-1"].meta == {"title": "Rain, again"}
    assert stories["q-1"].sentences == (
        "One day it rained.",
        "Then, later, it stopped.",
        "Kim ran out",
        'She said "wow".',
        'The coach said "Was it, really?"',
    )
