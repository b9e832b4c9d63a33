"""Reader for the generic dataset format (docs/design.md, section 3).

A directory holds ``train.jsonl``, ``valid.jsonl`` and ``test.jsonl``; each non-blank line
is one JSON object ``{"id": "doc-17", "sentences": ["First.", "Second.", ...]}`` with
the sentences in their correct order, optional ``"meta": {...}`` and optional
``"source": "..."`` (the text the paragraph comes from; defaults to the id). Every error
names the file and line; ids must be unique within a split.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from data.document import Document
from data.errors import DataFormatError, json_lines, location
from data.readers import materialise
from data.readers.base import OptionsReader
from data.readers.content_hash import file_sha256
from data.readers.dataset_source import DatasetNotFoundError
from data.splits import SPLIT_NAMES

LAYOUT = (
    "expected a directory containing train.jsonl, valid.jsonl and test.jsonl, one JSON "
    'object per line: {"id": "doc-17", "sentences": ["First.", "Second."], "meta": {...}}'
)


def _document(record: object, where: str) -> Document:
    if not isinstance(record, dict):
        raise DataFormatError(f"{where}: expected a JSON object, got {type(record).__name__}")
    for key in ("id", "sentences"):
        if key not in record:
            raise DataFormatError(f"{where}: missing key {key!r}")
    doc_id, sentences = record["id"], record["sentences"]
    if not isinstance(doc_id, str) or not doc_id:
        raise DataFormatError(f"{where}: 'id' must be a non-empty string, got {doc_id!r}")
    if not isinstance(sentences, list):
        raise DataFormatError(f"{where}: document {doc_id!r}: 'sentences' must be a list")
    source = record.get("source", doc_id)
    if not isinstance(source, str):
        raise DataFormatError(f"{where}: document {doc_id!r}: 'source' must be a string")
    try:
        return Document(id=doc_id, sentences=sentences, meta=record.get("meta", {}), source=source)
    except DataFormatError as err:
        raise DataFormatError(f"{where}: {err}") from None


def iter_jsonl(path: Path) -> Iterator[Document]:
    """Documents of one ``.jsonl`` file, yielded as they are read; errors name
    ``file:line``, a file without documents is refused once read."""
    first_line: dict[str, int] = {}
    for lineno, record in json_lines(path):
        where = location(path, lineno)
        document = _document(record, where)
        if document.id in first_line:
            raise DataFormatError(
                f"{where}: duplicate id {document.id!r} (first seen at line "
                f"{first_line[document.id]})"
            )
        first_line[document.id] = lineno
        yield document
    if not first_line:
        raise DataFormatError(f"{path}: no documents")


def read_jsonl(path: Path) -> list[Document]:
    """Documents of one ``.jsonl`` file; errors name ``file:line``."""
    return list(iter_jsonl(path))


def count_lines(path: Path) -> int:
    """Line breaks in ``path`` (about its documents, for a progress bar)."""
    with path.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


class JsonlReader(OptionsReader):
    """Reads ``<path>/{train,valid,test}.jsonl`` (see the module docstring). Its fingerprint
    is the content of the files, so moving the folder keeps the processed cache valid."""

    KIND = "jsonl"

    def __init__(self, path: str | None) -> None:
        self.path = None if path is None else str(path)

    def _files(self) -> dict[str, Path]:
        if not self.path:
            raise DatasetNotFoundError(f"dataset.path is not set: {LAYOUT}")
        root = Path(self.path).expanduser()
        if not root.is_dir():
            raise DatasetNotFoundError(
                f"dataset directory {root} not found (dataset.path): {LAYOUT}"
            )
        files = {split: root / f"{split}.jsonl" for split in SPLIT_NAMES}
        missing = [p.name for p in files.values() if not p.is_file()]
        if missing:
            raise DatasetNotFoundError(
                f"{root} lacks {', '.join(missing)} (dataset.path): {LAYOUT}"
            )
        return files

    def files(self) -> list[Path]:
        """The three files it reads; DatasetNotFoundError naming what is missing."""
        return list(self._files().values())

    def fingerprint(self) -> dict:
        hashes = {split: file_sha256(path) for split, path in self._files().items()}
        return {"reader": self.KIND, "version": self.VERSION, "sha256": hashes}

    def iter_splits(self) -> dict[str, Iterator[Document]]:
        """Each split read as it is iterated (every file is there before any is read)."""
        return {split: iter_jsonl(path) for split, path in self._files().items()}

    def read_splits(self) -> dict[str, list[Document]]:
        return materialise(self.iter_splits())

    def size_hint(self) -> dict[str, int]:
        return {split: count_lines(path) for split, path in self._files().items()}
