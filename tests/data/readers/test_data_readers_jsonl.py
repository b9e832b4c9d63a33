"""JSONL reader (docs/design.md, section 3): round trip and errors that name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_data import small_jsonl_splits, write_jsonl_dataset

from data.document import Document
from data.errors import DataFormatError, json_lines
from data.readers.jsonl import JsonlReader


def write_split(root: Path, name: str, lines: list[str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for split in ("train", "valid", "test"):
        good = json.dumps({"id": f"{split}-0", "sentences": ["A.", "B."]})
        (root / f"{split}.jsonl").write_text(good + "\n")
    (root / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_round_trip(tmp_path: Path) -> None:
    records = small_jsonl_splits()
    splits = JsonlReader(str(write_jsonl_dataset(tmp_path / "d", records))).read_splits()
    assert list(splits) == ["train", "valid", "test"]
    for split, docs in splits.items():
        assert [(d.id, list(d.sentences), d.meta) for d in docs] == [
            (r["id"], r["sentences"], r["meta"]) for r in records[split]
        ]
        assert all(d.source == d.id for d in docs)


def test_optional_source_and_blank_lines(tmp_path: Path) -> None:
    line = json.dumps({"id": "x", "sentences": ["A.", "B."], "source": "book-1"})
    root = write_split(tmp_path / "d", "valid", ["", line, "  "])
    (doc,) = JsonlReader(str(root)).read_splits()["valid"]
    assert doc == Document("x", ("A.", "B."), {}, "book-1")


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    good = json.dumps({"id": "a", "sentences": ["A."]})
    root = write_split(tmp_path / "d", "train", [good, good.replace('"a"', '"b"'), '{"id": "c",'])
    with pytest.raises(DataFormatError, match=r"train\.jsonl:3: malformed JSON"):
        JsonlReader(str(root)).read_splits()


@pytest.mark.parametrize("ending", ["\n", "\r\n", ""])
def test_a_line_cut_short_is_malformed_at_its_last_column(tmp_path: Path, ending: str) -> None:
    """The column is the line's, not that of the line break after it (issue 64)."""
    cut = json.dumps({"id": "a", "sentences": ["A.", "B."]})[:-1]  # its closing brace lost
    (tmp_path / "train.jsonl").write_text(cut + ending, encoding="utf-8", newline="")
    with pytest.raises(DataFormatError) as caught:
        list(json_lines(tmp_path / "train.jsonl"))
    assert str(caught.value) == (f"{tmp_path / 'train.jsonl'}:1: malformed JSON (Expecting ',' "
                                 f"delimiter at column {len(cut) + 1})")


@pytest.mark.parametrize(
    "record, message",
    [
        ({"sentences": ["A."]}, "missing key 'id'"),
        ({"id": "a"}, "missing key 'sentences'"),
        ({"id": "a", "sentences": ["A.", 3]}, "document 'a': sentence 1 is int"),
        ({"id": "a", "sentences": "A. B."}, "'sentences' must be a list"),
        ({"id": 7, "sentences": ["A."]}, "'id' must be a non-empty string"),
        (["a", ["A."]], "expected a JSON object"),
    ],
)
def test_bad_records_name_file_and_line(tmp_path: Path, record: object, message: str) -> None:
    good = json.dumps({"id": "ok", "sentences": ["A."]})
    root = write_split(tmp_path / "d", "test", [good, json.dumps(record)])
    with pytest.raises(DataFormatError, match=rf"test\.jsonl:2: .*{message}"):
        JsonlReader(str(root)).read_splits()


def test_empty_document_rejected_with_id_and_line(tmp_path: Path) -> None:
    root = write_split(tmp_path / "d", "valid", [json.dumps({"id": "doc-9", "sentences": []})])
    with pytest.raises(DataFormatError, match=r"valid\.jsonl:1: document 'doc-9' has no sentences"):
        JsonlReader(str(root)).read_splits()


def test_duplicate_ids_rejected(tmp_path: Path) -> None:
    line = json.dumps({"id": "d", "sentences": ["A."]})
    root = write_split(tmp_path / "d", "train", [line, line])
    with pytest.raises(DataFormatError, match=r"train\.jsonl:2: duplicate id 'd'.*line 1"):
        JsonlReader(str(root)).read_splits()


def test_empty_split_file_rejected(tmp_path: Path) -> None:
    root = write_split(tmp_path / "d", "test", [""])
    with pytest.raises(DataFormatError, match=r"test\.jsonl: no documents"):
        JsonlReader(str(root)).read_splits()


def test_missing_directory_names_layout(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="train.jsonl, valid.jsonl and test.jsonl"):
        JsonlReader(str(tmp_path / "nowhere")).read_splits()


def test_missing_file_named(tmp_path: Path) -> None:
    root = write_split(tmp_path / "d", "train", [json.dumps({"id": "a", "sentences": ["A."]})])
    (root / "valid.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match="lacks valid.jsonl"):
        JsonlReader(str(root)).read_splits()


def test_fingerprint_follows_content_not_location(tmp_path: Path) -> None:
    records = small_jsonl_splits()
    a = JsonlReader(str(write_jsonl_dataset(tmp_path / "a", records))).fingerprint()
    b = JsonlReader(str(write_jsonl_dataset(tmp_path / "b", records))).fingerprint()
    assert a == b
    records["test"][0]["sentences"][0] = "Changed."
    c = JsonlReader(str(write_jsonl_dataset(tmp_path / "c", records))).fingerprint()
    assert c != a
