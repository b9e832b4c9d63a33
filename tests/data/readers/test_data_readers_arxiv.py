"""arXiv reader (Chen et al. 2016 format): blank-line separated documents, two header lines,
one sentence per line."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fixtures_readers import TRICKY, abstract, write_arxiv

from data.readers.arxiv import ArxivReader
from data.readers.sources import DatasetNotFoundError

SIZES = {"train": 7, "valid": 3, "test": 4}


def test_documents_headers_and_text(tmp_path: Path) -> None:
    splits = ArxivReader(str(write_arxiv(tmp_path / "arxiv", SIZES))).read_splits()
    assert {split: len(docs) for split, docs in splits.items()} == SIZES
    doc = splits["train"][4]
    assert doc.id == "train-4"
    assert doc.sentences == tuple(abstract("train4", 2 + 4 % 5))
    assert doc.sentences[1:3] == TRICKY
    assert doc.meta == {"header": ["http://arxiv.org/abs/train.4", "Title 4"]}
    assert [d.id for d in splits["test"]] == ["test-0", "test-1", "test-2", "test-3"]


def test_repeated_blank_lines_and_headers_without_sentences(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = write_arxiv(tmp_path / "arxiv", SIZES)
    text = "\n\n\nid-a\nTitle a\nOne.\nTwo.\n\n\n\nid-b\nTitle b\n\nid-c\nTitle c\nThree.\n\n"
    (root / "valid.txt").write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        docs = ArxivReader(str(root)).read_splits()["valid"]
    assert [(d.id, d.sentences) for d in docs] == [
        ("valid-0", ("One.", "Two.")),
        ("valid-1", ("Three.",)),
    ]
    assert "skipped 1 block(s)" in caplog.text


def test_missing_split_file_names_layout(tmp_path: Path) -> None:
    root = write_arxiv(tmp_path / "arxiv", SIZES)
    (root / "valid.txt").unlink()
    with pytest.raises(DatasetNotFoundError) as info:
        ArxivReader(str(root)).read_splits()
    message = str(info.value)
    assert "valid.txt is missing" in message
    assert "two header lines followed by one sentence per line" in message
    assert "FudanNLP/NeuralSentenceOrdering" in message


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    root = write_arxiv(tmp_path / "arxiv", SIZES)
    (root / "test.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(DatasetNotFoundError, match="test.txt holds no document"):
        ArxivReader(str(root)).read_splits()
