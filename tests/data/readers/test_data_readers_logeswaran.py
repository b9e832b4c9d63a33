"""NIPS / AAN / NSF reader (Logeswaran et al. 2018 layout): splits from split/ listings,
documents from txt_tokenized/, text intact, errors naming the layout and the listing line."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_readers import TRICKY, abstract, write_lines, write_logeswaran

from data.errors import DataFormatError
from data.readers.logeswaran import LogeswaranReader
from data.readers.sources import DatasetNotFoundError

NAMES = {
    "train": ["5011", "5012", "5013", "5101"],
    "valid": ["5401", "5402"],
    "test": ["5911", "5912", "5999"],
}


@pytest.mark.parametrize("corpus", ["nips", "aan", "nsf"])
def test_splits_order_and_text(tmp_path: Path, corpus: str) -> None:
    root = write_logeswaran(tmp_path / corpus, corpus, NAMES)
    splits = LogeswaranReader(str(root), corpus).read_splits()
    assert {split: [d.id for d in docs] for split, docs in splits.items()} == NAMES
    doc = splits["valid"][1]
    assert doc.sentences == tuple(abstract("5402", 3 + len("5402") % 4))
    assert doc.sentences[1:3] == TRICKY
    assert doc.meta == {"corpus": corpus} and doc.source == "5402"


def test_nips_uses_year_listings_and_a_prefix(tmp_path: Path) -> None:
    root = write_logeswaran(tmp_path / "nips", "nips", NAMES)
    assert (root / "split" / "2013le_papers").is_file()
    assert (root / "txt_tokenized" / "a5011.txt").is_file()
    with pytest.raises(DatasetNotFoundError, match="split/train is missing"):
        LogeswaranReader(str(root), "aan").read_splits()


def test_blank_lines_ignored(tmp_path: Path) -> None:
    root = write_logeswaran(tmp_path / "aan", "aan", NAMES)
    write_lines(root / "split" / "test", ["", "5911", "  ", "5912", "5999", ""])
    write_lines(root / "txt_tokenized" / "5911", ["First.", "", "Second.  "])
    (doc, *_) = LogeswaranReader(str(root), "aan").read_splits()["test"]
    assert doc.sentences == ("First.", "Second.")


def test_missing_folder_names_layout_and_source(tmp_path: Path) -> None:
    with pytest.raises(DatasetNotFoundError) as info:
        LogeswaranReader(str(tmp_path / "nowhere"), "nsf").read_splits()
    message = str(info.value)
    assert "is not a folder" in message
    assert "split/train, split/valid, split/test" in message and "txt_tokenized/<name>" in message
    assert "Logeswaran" in message and "dataset.path=" in message


def test_unset_path_names_layout() -> None:
    with pytest.raises(DatasetNotFoundError, match="(?s)dataset.path is not set.*2013le_papers"):
        LogeswaranReader(None, "nips").read_splits()


def test_listed_document_missing_names_listing_line(tmp_path: Path) -> None:
    root = write_logeswaran(tmp_path / "nips", "nips", NAMES)
    (root / "txt_tokenized" / "a5402.txt").unlink()
    with pytest.raises(
        DatasetNotFoundError, match=r"a5402\.txt is missing \(listed at .*2014_papers:2\)"
    ):
        LogeswaranReader(str(root), "nips").read_splits()


def test_duplicate_listing_and_empty_document(tmp_path: Path) -> None:
    root = write_logeswaran(tmp_path / "aan", "aan", NAMES)
    write_lines(root / "split" / "valid", ["5401", "5402", "5401"])
    with pytest.raises(DataFormatError, match=r"valid:3: '5401' listed twice \(first at line 1\)"):
        LogeswaranReader(str(root), "aan").read_splits()
    write_lines(root / "split" / "valid", ["5401"])
    write_lines(root / "txt_tokenized" / "5401", [""])
    with pytest.raises(DataFormatError, match=r"txt_tokenized/5401: no sentences"):
        LogeswaranReader(str(root), "aan").read_splits()


def test_fingerprint_follows_content(tmp_path: Path) -> None:
    a = LogeswaranReader(str(write_logeswaran(tmp_path / "a", "nsf", NAMES)), "nsf").fingerprint()
    b = LogeswaranReader(str(write_logeswaran(tmp_path / "b", "nsf", NAMES)), "nsf").fingerprint()
    assert a == b and "path" not in a
    write_lines(tmp_path / "b" / "txt_tokenized" / "5999", ["Changed."])
    assert LogeswaranReader(str(tmp_path / "b"), "nsf").fingerprint() != a


def test_unknown_corpus() -> None:
    with pytest.raises(ValueError, match="corpus must be one of"):
        LogeswaranReader("x", "acl")
