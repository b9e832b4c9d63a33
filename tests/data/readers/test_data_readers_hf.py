"""Hugging Face reader on local datasets made with `datasets` (the hub is not reachable in
tests): save_to_disk folders, folders of data files, column mapping, sentence splitters."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from fixtures_readers import TRICKY

from benchmark.datacard import main
from data.errors import DataFormatError
from data.readers.hf import HFReader, split_lines
from data.readers.sources import DatasetNotFoundError


@pytest.fixture(autouse=True)
def offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))


def rows(split: str, n: int) -> dict[str, list]:
    return {
        "doc": [f"{split}-doc-{i}" for i in range(n)],
        "sents": [[f"First of {split} {i}.", *TRICKY, f"Last of {split} {i}."] for i in range(n)],
    }


def saved(tmp_path: Path, names=("train", "validation", "test")) -> Path:
    splits = datasets.DatasetDict(
        {name: datasets.Dataset.from_dict(rows(name, 3 + k)) for k, name in enumerate(names)}
    )
    splits.save_to_disk(str(tmp_path / "saved"))
    return tmp_path / "saved"


def test_save_to_disk_folder_with_column_mapping(tmp_path: Path) -> None:
    reader = HFReader(str(saved(tmp_path)), id_column="doc", sentences_column="sents")
    splits = reader.read_splits()
    assert {s: len(d) for s, d in splits.items()} == {"train": 3, "valid": 4, "test": 5}
    doc = splits["valid"][2]
    assert doc.id == "validation-doc-2"
    assert doc.sentences == ("First of validation 2.", *TRICKY, "Last of validation 2.")


def test_split_mapping_and_default_ids(tmp_path: Path) -> None:
    path = saved(tmp_path, names=("train", "dev", "eval"))
    mapping = {"train": "train", "valid": "dev", "test": "eval"}
    splits = HFReader(str(path), splits=mapping, sentences_column="sents").read_splits()
    assert [d.id for d in splits["test"]] == [f"test-{i}" for i in range(5)]
    with pytest.raises(
        DatasetNotFoundError, match=r"no split\(s\) \['validation', 'test'\].*dataset.reader.splits"
    ):
        HFReader(str(path), sentences_column="sents").read_splits()


def test_folder_of_data_files_with_text_column(tmp_path: Path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    for split in ("train", "validation", "test"):
        records = [
            {
                "key": f"{split}{i}",
                "story": f'Mr. Brown came home. He said "hi!" Then {TRICKY[1]} Done.',
            }
            for i in range(2)
        ]
        (folder / f"{split}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    reader = HFReader(
        str(folder), id_column="key", sentences_column=None, text_column="story",
        sentence_splitter="rules",
    )  # fmt: skip
    doc = reader.read_splits()["test"][1]
    assert doc.id == "test1"
    assert doc.sentences == ("Mr. Brown came home.", 'He said "hi!"', f"Then {TRICKY[1]}", "Done.")


def test_errors(tmp_path: Path) -> None:
    path = str(saved(tmp_path))
    with pytest.raises(
        DataFormatError, match=r"no column\(s\) \['sentences'\].*\['doc', 'sents'\]"
    ):
        HFReader(path).read_splits()
    with pytest.raises(DataFormatError, match=r"\[train\] row 0: 'doc' is not a list of strings"):
        HFReader(path, sentences_column="doc").read_splits()
    with pytest.raises(
        DatasetNotFoundError, match="(?s)cannot load 'someone/absent'.*save_to_disk"
    ):
        HFReader("someone/absent").read_splits()
    with pytest.raises(DatasetNotFoundError, match="dataset.path is not set"):
        HFReader(None).read_splits()
    with pytest.raises(ValueError, match="exactly one of"):
        HFReader(path, text_column="doc")


def test_split_lines() -> None:
    assert split_lines("One.\n\n  Two.  \r\nThree.") == ["One.", "Two.", "Three."]


def stories_train_only(tmp_path: Path, n: int = 20, sources: int = 0) -> Path:
    """A ROCStories-like dataset with only ``train``: storyid, storytitle, sentence1..5 (the
    fifth empty in one row) and, with ``sources``, a ``source`` column of that many values."""
    columns: dict[str, list] = {
        "storyid": [f"story-{i:02d}" for i in range(n)],
        "storytitle": [f"Title, {i}" for i in range(n)],
    }
    for k in range(1, 6):
        columns[f"sentence{k}"] = [f'Sentence {k} of story {i}, "quoted".' for i in range(n)]
    columns["sentence5"][3] = ""
    if sources:
        columns["source"] = [f"src{i % sources}" for i in range(n)]
    path = tmp_path / "stories"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(columns)}).save_to_disk(str(path))
    return path


SENTENCE_COLUMNS = [f"sentence{k}" for k in range(1, 6)]


def test_sentence_columns_and_seeded_split_of_a_train_only_dataset(tmp_path: Path) -> None:
    path = str(stories_train_only(tmp_path))
    options = dict(
        id_column="storyid", sentences_column=None, sentence_columns=SENTENCE_COLUMNS,
        split_from="train",
    )  # fmt: skip
    splits = HFReader(path, **options).read_splits()
    assert {s: len(d) for s, d in splits.items()} == {"train": 16, "valid": 2, "test": 2}
    ids = [d.id for docs in splits.values() for d in docs]
    assert sorted(ids) == [f"story-{i:02d}" for i in range(20)]
    story = {d.id: d for docs in splits.values() for d in docs}
    assert story["story-07"].sentences == tuple(
        f'Sentence {k} of story 7, "quoted".' for k in range(1, 6)
    )
    assert len(story["story-03"]) == 4  # the empty fifth cell is skipped
    again = HFReader(path, **options).read_splits()
    assert {s: [d.id for d in docs] for s, docs in again.items()} == {
        s: [d.id for d in docs] for s, docs in splits.items()
    }
    other = HFReader(path, **options, split_seed=1).read_splits()
    assert [d.id for d in other["test"]] != [d.id for d in splits["test"]]


def test_split_keeps_each_source_in_one_split(tmp_path: Path) -> None:
    path = str(stories_train_only(tmp_path, n=40, sources=10))
    splits = HFReader(
        path, sentences_column=None, sentence_columns=SENTENCE_COLUMNS, group_column="source",
        split_from="train", split_fractions=[0.6, 0.2, 0.2],
    ).read_splits()  # fmt: skip
    sources = {s: {d.source for d in docs} for s, docs in splits.items()}
    assert [len(sources[s]) for s in ("train", "valid", "test")] == [6, 2, 2]
    assert not (sources["train"] & sources["valid"] or sources["train"] & sources["test"])
    assert not sources["valid"] & sources["test"]
    assert sum(len(d) for d in splits.values()) == 40


def test_split_options_errors(tmp_path: Path) -> None:
    path = str(stories_train_only(tmp_path))
    with pytest.raises(ValueError, match="exactly one of"):
        HFReader(path, sentence_columns=SENTENCE_COLUMNS)  # sentences_column still set
    with pytest.raises(ValueError, match="one fraction for each of"):
        HFReader(path, sentences_column=None, sentence_columns=SENTENCE_COLUMNS,
                 split_from="train", split_fractions=[0.9, 0.1])  # fmt: skip
    with pytest.raises(DatasetNotFoundError, match=r"no split\(s\) \['validation', 'test'\]"):
        HFReader(path, sentences_column=None, sentence_columns=SENTENCE_COLUMNS).read_splits()
    with pytest.raises(DataFormatError, match=r"no column\(s\) \['sentence6'\]"):
        HFReader(path, sentences_column=None, sentence_columns=["sentence1", "sentence6"],
                 split_from="train").read_splits()  # fmt: skip


def test_train_only_dataset_through_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = stories_train_only(tmp_path, n=30, sources=6)
    main([
        "dataset=hf", f"dataset.path={path}", "dataset.reader.sentences_column=null",
        f"dataset.reader.sentence_columns=[{','.join(SENTENCE_COLUMNS)}]",
        "dataset.reader.group_column=source", "dataset.reader.split_from=train",
        f"+dataset.datamodule.cache_dir={tmp_path / 'c'}",
    ])  # fmt: skip
    card = json.loads(capsys.readouterr().out)
    assert sum(card["splits"][s]["n_docs"] for s in ("train", "valid", "test")) == 30
    assert card["splits"]["test"]["n_docs"] == 5  # one of six sources
