"""Hugging Face reader on local datasets made with `datasets` (the hub is not reachable in
tests): save_to_disk folders, folders of data files, column mapping, sentence splitters."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from fixtures_readers import TRICKY

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
