"""Any Hugging Face dataset as an ordering dataset (``datasets.load_from_disk`` /
``datasets.load_dataset``, Lhoest et al. 2021, "Datasets: A Community Library for NLP").

``path`` is a folder written by ``Dataset(Dict).save_to_disk`` (loaded with
``load_from_disk``), or anything ``load_dataset`` accepts: a folder of data files
(json/jsonl/csv/parquet ...) or a hub id (with ``name`` its configuration). ``splits`` maps
our split names to the dataset's (default ``train``/``validation``/``test``). Each row is
one document:

- ``sentences_column``: a list of strings in gold order; or
- ``text_column`` + ``sentence_splitter``: one text, split into sentences, one per line
  (``newline``) or by the rule-based English splitter ``data.sentence_split``
  (``rules``: sentence-final punctuation, abbreviations and initials kept whole);
- ``id_column``: document ids (default ``<split>-<row>``), unique per split.

The reader has no ``fingerprint()``: the DataModule keys the processed cache on a hash of
the documents, so a changed dataset is never served stale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import datasets

from data.document import Document
from data.errors import DataFormatError
from data.readers.sources import SOURCES
from data.sentence_split import split_sentences
from data.splits import SPLIT_NAMES

SOURCE = SOURCES["hf"]
DEFAULT_SPLITS = {"train": "train", "valid": "validation", "test": "test"}
SAVED_MARKERS = ("dataset_dict.json", "state.json")  # written by save_to_disk


def split_lines(text: str) -> list[str]:
    """One sentence per line (blank lines dropped)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


SPLITTERS: dict[str, Callable[[str], list[str]]] = {
    "newline": split_lines,
    "rules": split_sentences,
}


def load(path: str, name: str | None) -> datasets.DatasetDict:
    """The dataset at ``path`` (see the module docstring); unreachable or absent data raises
    the error naming the accepted layouts."""
    local = Path(path).expanduser()
    try:
        if any((local / marker).is_file() for marker in SAVED_MARKERS):
            loaded = datasets.load_from_disk(str(local))
        else:
            loaded = datasets.load_dataset(path, name)
    except OSError as err:  # FileNotFoundError, ConnectionError (hub unreachable) ...
        raise SOURCE.not_found(f"cannot load {path!r}: {err}") from None
    if not isinstance(loaded, datasets.DatasetDict):
        raise SOURCE.not_found(f"{path!r} is a single Dataset; save a DatasetDict with splits")
    return loaded


class HFReader:
    """Reads a Hugging Face dataset with a configurable column mapping (see the module
    docstring)."""

    def __init__(
        self,
        path: str | None,
        name: str | None = None,
        splits: dict[str, str] | None = None,
        id_column: str | None = None,
        sentences_column: str | None = "sentences",
        text_column: str | None = None,
        sentence_splitter: str = "newline",
    ) -> None:
        self.splits = dict(DEFAULT_SPLITS if splits is None else splits)
        if sorted(self.splits) != sorted(SPLIT_NAMES):
            raise ValueError(
                f"splits maps {list(SPLIT_NAMES)} to dataset splits, got {self.splits}"
            )
        if (sentences_column is None) == (text_column is None):
            raise ValueError(
                "set exactly one of dataset.reader.sentences_column and "
                "dataset.reader.text_column (the other to null)"
            )
        if sentence_splitter not in SPLITTERS:
            raise ValueError(f"sentence_splitter must be one of {sorted(SPLITTERS)}")
        self.path, self.name = path, name
        self.id_column = id_column
        self.sentences_column, self.text_column = sentences_column, text_column
        self.sentence_splitter = sentence_splitter

    def __repr__(self) -> str:
        return f"HFReader({vars(self)})"

    def _documents(self, split: str, table: datasets.Dataset) -> list[Document]:
        where = f"{self.path} [{self.splits[split]}]"
        content = self.sentences_column or self.text_column
        columns = [c for c in (self.id_column, content) if c is not None]
        missing = [c for c in columns if c not in table.column_names]
        if missing:
            raise DataFormatError(
                f"{where}: no column(s) {missing} (dataset.reader.*_column); the dataset has "
                f"{table.column_names}"
            )
        rows = table.select_columns(columns).to_dict()
        split_text = SPLITTERS[self.sentence_splitter]
        documents, first_row = [], {}
        for k, value in enumerate(rows[content]):
            doc_id = str(rows[self.id_column][k]) if self.id_column else f"{split}-{k}"
            if doc_id in first_row:
                raise DataFormatError(
                    f"{where} row {k}: duplicate id {doc_id!r} (first at row {first_row[doc_id]})"
                )
            first_row[doc_id] = k
            if self.text_column is not None:
                if not isinstance(value, str):
                    raise DataFormatError(f"{where} row {k}: {content!r} is not a string")
                value = split_text(value)
            elif not isinstance(value, list):
                raise DataFormatError(f"{where} row {k}: {content!r} is not a list of strings")
            try:
                documents.append(Document(id=doc_id, sentences=value))
            except DataFormatError as err:
                raise DataFormatError(f"{where} row {k}: {err}") from None
        return documents

    def read_splits(self) -> dict[str, list[Document]]:
        if self.path is None:
            raise SOURCE.not_found("dataset.path is not set")
        loaded = load(self.path, self.name)
        absent = [s for s in self.splits.values() if s not in loaded]
        if absent:
            raise SOURCE.not_found(
                f"{self.path!r} has no split(s) {absent} (it has {list(loaded)}); map them "
                "with dataset.reader.splits"
            )
        return {split: self._documents(split, loaded[name]) for split, name in self.splits.items()}
