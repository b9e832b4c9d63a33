"""Any Hugging Face dataset as an ordering dataset (``datasets.load_from_disk`` /
``datasets.load_dataset``, Lhoest et al. 2021, "Datasets: A Community Library for NLP").

``path`` is a folder written by ``Dataset(Dict).save_to_disk`` (loaded with
``load_from_disk``), or anything ``load_dataset`` accepts: a folder of data files
(json/jsonl/csv/parquet ...) or a hub id (with ``name`` its configuration). ``splits`` maps
our split names to the dataset's (default ``train``/``validation``/``test``). Each row is
one document, its sentences taken from exactly one of

- ``sentences_column``: a list of strings in gold order;
- ``sentence_columns``: one string column per sentence, in gold order (ROCStories on the
  hub: ``[sentence1, ..., sentence5]``); empty cells are skipped;
- ``text_column`` + ``sentence_splitter``: one text, split into sentences, one per line
  (``newline``) or by the rule-based English splitter ``data.sentence_split``
  (``rules``: pySBD, abbreviations, initials and decimals kept whole);

and ``id_column``: document ids (default ``<split>-<row>``), unique per split;
``group_column``: the text a document comes from (``Document.source``, e.g. an album or a
source file).

A dataset with a single split (e.g. only ``train``) is cut into ours with ``split_from``
(that split's name; ``splits`` is then not used): whole groups of ``group_column`` (each
document its own group without one) go to train/valid/test in ``split_fractions``, shuffled
with ``split_seed`` (``data.splits.group_split``), so no source crosses splits.

The reader has no ``fingerprint()``: the DataModule keys the processed cache on a hash of
the documents, so a changed dataset is never served stale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from data.document import Document
from data.errors import DataFormatError
from data.readers.dataset_source import DatasetSource
from data.sentence_split import split_sentences
from data.splits import SPLIT_NAMES, group_split

if TYPE_CHECKING:  # imported when a dataset is loaded: listing the sources stays quick
    import datasets

SOURCE = DatasetSource(
    name="hf",
    paper="any dataset on the Hugging Face hub or on disk",
    published="https://huggingface.co/datasets, or your own datasets.save_to_disk folder",
    layout=(
        "a folder written by Dataset(Dict).save_to_disk, a folder of data files "
        "(json/csv/parquet), or a hub id; columns named by dataset.reader.*_column"
    ),
    licence="that of the dataset",
    sizes={},
)
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
    import datasets

    local = Path(path).expanduser()
    try:
        if any((local / marker).is_file() for marker in SAVED_MARKERS):
            loaded = datasets.load_from_disk(str(local))
        else:
            loaded = datasets.load_dataset(path, name)
    except OSError as err:  # FileNotFoundError, ConnectionError (hub unreachable) ...
        raise SOURCE.not_found(f"cannot load {path!r}: {err}") from None
    except ValueError as err:  # a configuration `name` the dataset does not have ...
        raise SOURCE.not_found(
            f"cannot load {path!r} with dataset.reader.name={name!r}: {err}"
        ) from None
    if not isinstance(loaded, datasets.DatasetDict):
        raise SOURCE.not_found(f"{path!r} is a single Dataset; save a DatasetDict with splits")
    return loaded


class HFReader:
    """Reads a Hugging Face dataset with a configurable column mapping (see the module
    docstring)."""

    source = SOURCE  # the facts of ``dataset=hf`` (no published sizes)

    def __init__(
        self,
        path: str | None,
        name: str | None = None,
        splits: dict[str, str] | None = None,
        id_column: str | None = None,
        sentences_column: str | None = "sentences",
        text_column: str | None = None,
        sentence_splitter: str = "newline",
        sentence_columns: list[str] | None = None,
        group_column: str | None = None,
        split_from: str | None = None,
        split_fractions: list[float] | tuple[float, ...] = (0.8, 0.1, 0.1),
        split_seed: int = 0,
    ) -> None:
        self.splits = dict(DEFAULT_SPLITS if splits is None else splits)
        if sorted(self.splits) != sorted(SPLIT_NAMES):
            raise ValueError(
                f"splits maps {list(SPLIT_NAMES)} to dataset splits, got {self.splits}"
            )
        sentence_columns = None if sentence_columns is None else [str(c) for c in sentence_columns]
        if sum(c is not None for c in (sentences_column, sentence_columns, text_column)) != 1:
            raise ValueError(
                "set exactly one of dataset.reader.sentences_column, sentence_columns and "
                "text_column (the others to null)"
            )
        if sentence_columns is not None and not sentence_columns:
            raise ValueError("dataset.reader.sentence_columns names no column")
        if sentence_splitter not in SPLITTERS:
            raise ValueError(f"sentence_splitter must be one of {sorted(SPLITTERS)}")
        split_fractions = tuple(float(f) for f in split_fractions)
        if len(split_fractions) != len(SPLIT_NAMES):
            raise ValueError(
                f"dataset.reader.split_fractions: one fraction for each of {list(SPLIT_NAMES)}, "
                f"got {list(split_fractions)}"
            )
        self.path, self.name = path, name
        self.id_column = id_column
        self.sentences_column, self.text_column = sentences_column, text_column
        self.sentence_columns = sentence_columns
        self.sentence_splitter = sentence_splitter
        self.group_column = group_column
        self.split_from, self.split_fractions = split_from, split_fractions
        self.split_seed = int(split_seed)

    def __repr__(self) -> str:
        return f"HFReader({vars(self)})"

    def _sentences(self, rows: dict[str, list], k: int, where: str) -> list[str]:
        """The sentences of row ``k`` (``rows``: column -> values)."""
        if self.sentence_columns is not None:
            cells = {c: rows[c][k] for c in self.sentence_columns}
            bad = [c for c, v in cells.items() if not isinstance(v, str | None)]
            if bad:
                raise DataFormatError(f"{where} row {k}: {bad[0]!r} is not a string")
            return [v.strip() for v in cells.values() if v is not None and v.strip()]
        if self.text_column is not None:
            value = rows[self.text_column][k]
            if not isinstance(value, str):
                raise DataFormatError(f"{where} row {k}: {self.text_column!r} is not a string")
            return SPLITTERS[self.sentence_splitter](value)
        value = rows[self.sentences_column][k]
        if not isinstance(value, list):
            raise DataFormatError(
                f"{where} row {k}: {self.sentences_column!r} is not a list of strings"
            )
        return value

    def _documents(self, split: str, name: str, table: datasets.Dataset) -> list[Document]:
        where = f"{self.path} [{name}]"
        content = self.sentence_columns or [self.sentences_column or self.text_column]
        columns = [c for c in (self.id_column, self.group_column, *content) if c is not None]
        missing = [c for c in columns if c not in table.column_names]
        if missing:
            raise DataFormatError(
                f"{where}: no column(s) {missing} (dataset.reader.*_column(s)); the dataset "
                f"has {table.column_names}"
            )
        rows = table.select_columns(list(dict.fromkeys(columns))).to_dict()
        documents, first_row = [], {}
        for k in range(table.num_rows):
            doc_id = str(rows[self.id_column][k]) if self.id_column else f"{split}-{k}"
            if doc_id in first_row:
                raise DataFormatError(
                    f"{where} row {k}: duplicate id {doc_id!r} (first at row {first_row[doc_id]})"
                )
            first_row[doc_id] = k
            group = str(rows[self.group_column][k]) if self.group_column else ""
            try:
                documents.append(Document(doc_id, self._sentences(rows, k, where), source=group))
            except DataFormatError as err:
                raise DataFormatError(f"{where} row {k}: {err}") from None
        return documents

    def read_splits(self) -> dict[str, list[Document]]:
        if self.path is None:
            raise SOURCE.not_found("dataset.path is not set")
        loaded = load(self.path, self.name)
        wanted = [self.split_from] if self.split_from is not None else list(self.splits.values())
        absent = [s for s in wanted if s not in loaded]
        if absent:
            raise SOURCE.not_found(
                f"{self.path!r} has no split(s) {absent} (it has {list(loaded)}); map them "
                "with dataset.reader.splits, or cut one with dataset.reader.split_from"
            )
        if self.split_from is None:
            return {
                split: self._documents(split, name, loaded[name])
                for split, name in self.splits.items()
            }
        pooled = self._documents(self.split_from, self.split_from, loaded[self.split_from])
        return group_split(
            pooled, lambda doc: doc.source, fractions=self.split_fractions, seed=self.split_seed
        )
