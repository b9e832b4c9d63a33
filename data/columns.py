"""One split's documents as flat Arrow columns on disk, read through a memory map.

A split is a folder of two Arrow IPC files written in the same record batches (a batch is a
run of consecutive documents):

- ``text.arrow``: ``id``, ``source``, ``meta`` (JSON) and ``sentences`` (``list<string>``:
  the raw sentences in gold order, for encoders that read text);
- ``token_ids.arrow``: ``token_ids`` (``list<list<int32>>``: per document its sentences,
  per sentence its word ids).

In Arrow a list column is flat: one buffer of values (the int32 word ids, the UTF-8 bytes
of the sentences) and int32 offsets per sentence and per document, so a document is a
slice. ``SplitColumns`` maps both files (``pyarrow.memory_map``) and hands out one
document at a time: the pages are the operating system's page cache, shared by every
process that maps the files (DDP ranks, loader workers) instead of copied into each. What
a process keeps of its own is a few numpy views per record batch and, per document, its
sentence count (``sentence_counts``).
"""

from __future__ import annotations

import bisect
import itertools
import json
from collections.abc import Iterator, Sequence
from itertools import pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa

from data.document import Document

TEXT_FILE = "text.arrow"
TOKENS_FILE = "token_ids.arrow"
TEXT_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("source", pa.string()),
        ("meta", pa.string()),
        ("sentences", pa.list_(pa.string())),
    ]
)
TOKENS_SCHEMA = pa.schema([("token_ids", pa.list_(pa.list_(pa.int32())))])


def token_column(sentence_counts: Sequence[int], sentence_lengths: Sequence[int],
                 values: np.ndarray) -> pa.ListArray:
    """``list<list<int32>>`` of documents with ``sentence_counts`` sentences of
    ``sentence_lengths`` word ids, ``values`` the ids of them all in order."""
    sentence_offsets = np.zeros(len(sentence_lengths) + 1, dtype=np.int32)
    np.cumsum(sentence_lengths, out=sentence_offsets[1:])
    document_offsets = np.zeros(len(sentence_counts) + 1, dtype=np.int32)
    np.cumsum(sentence_counts, out=document_offsets[1:])
    sentences = pa.ListArray.from_arrays(
        pa.array(sentence_offsets), pa.array(values, type=pa.int32())
    )
    return pa.ListArray.from_arrays(pa.array(document_offsets), sentences)


def with_values(column: pa.ListArray, values: np.ndarray) -> pa.ListArray:
    """``column`` (``list<list<int32>>``) with the same offsets and other word ids."""
    sentences = column.values
    return pa.ListArray.from_arrays(
        column.offsets,
        pa.ListArray.from_arrays(sentences.offsets, pa.array(values, type=pa.int32())),
    )


def flat_values(column: pa.ListArray) -> np.ndarray:
    """The word ids of a ``list<list<int32>>`` column, zero-copy."""
    return column.values.values.to_numpy()


class CacheWriteError(OSError):
    """A cache file that could not be written; names the file."""

    def __str__(self) -> str:
        return f"{self.filename}: processed-data cache not written ({self.strerror})"

    @classmethod
    def of(cls, error: OSError, path: Path) -> CacheWriteError:
        return cls(error.errno, error.strerror or str(error), str(path))


class ColumnWriter:
    """Record batches of one schema into an Arrow IPC file; an ``OSError`` (a full disk)
    comes out as ``CacheWriteError`` naming the file."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path = path
        self.schema = schema
        try:
            self._sink = pa.OSFile(str(path), "wb")
            self._writer = pa.ipc.new_file(self._sink, schema)
        except OSError as error:
            raise CacheWriteError.of(error, path) from error

    def write(self, columns: list[pa.Array]) -> None:
        try:
            self._writer.write_batch(pa.record_batch(columns, schema=self.schema))
        except OSError as error:
            raise CacheWriteError.of(error, self.path) from error

    def close(self) -> None:
        try:
            try:
                self._writer.close()
            finally:
                self._sink.close()
        except OSError as error:
            raise CacheWriteError.of(error, self.path) from error


class ColumnSchemaError(ValueError):
    """A column file whose schema is not the one the code writes; names the file."""


def schema_difference(found: pa.Schema, expected: pa.Schema) -> str | None:
    """What differs between a file's schema and the one the code writes (the columns'
    names, then each column's type, offset widths included: ``large_string`` is not
    ``string``), or None."""
    if found.names != expected.names:
        return f"columns {found.names}, the code writes {expected.names}"
    for field, want in zip(found, expected, strict=True):
        if not field.type.equals(want.type):
            return f"{field.name} is {field.type}, the code writes {want.type}"
    return None


def read_table(path: Path, mapped: bool = True, schema: pa.Schema | None = None) -> pa.Table:
    """The table of an Arrow IPC file: memory-mapped (zero-copy), or read into memory;
    ColumnSchemaError naming the file when ``schema`` is given and the file's differs."""
    source = pa.memory_map(str(path), "r") if mapped else pa.OSFile(str(path), "rb")
    reader = pa.ipc.open_file(source)
    if schema is not None and (difference := schema_difference(reader.schema, schema)):
        raise ColumnSchemaError(f"{path}: {difference}")
    return reader.read_all()


def record_batches(path: Path) -> Iterator[pa.RecordBatch]:
    """The record batches of an Arrow IPC file, read one at a time (not mapped)."""
    with pa.OSFile(str(path), "rb") as source:
        reader = pa.ipc.open_file(source)
        for index in range(reader.num_record_batches):
            yield reader.get_batch(index)


def _offsets(array: pa.Array) -> np.ndarray:
    """The int32 offsets of a list or string array, zero-copy, ``len(array) + 1`` of them."""
    buffer = array.buffers()[1]
    return np.frombuffer(buffer, dtype=np.int32)[array.offset : array.offset + len(array) + 1]


def _bytes(array: pa.Array) -> np.ndarray:
    """The data of a string array as uint8, zero-copy (its offsets index it)."""
    buffer = array.buffers()[2]
    return np.zeros(0, np.uint8) if buffer is None else np.frombuffer(buffer, dtype=np.uint8)


def _int32_values(array: pa.Array) -> np.ndarray:
    """The values of an int32 array, zero-copy."""
    buffer = array.buffers()[1]
    if buffer is None:  # no values at all
        return np.zeros(0, np.int32)
    return np.frombuffer(buffer, dtype=np.int32)[array.offset : array.offset + len(array)]


def _split(raw: bytes, bounds: list[int]) -> list[str]:
    """The strings of ``raw`` (UTF-8) between consecutive ``bounds`` (from ``bounds[0]``)."""
    base = bounds[0]
    return [raw[a - base : b - base].decode("utf-8") for a, b in pairwise(bounds)]


class _Batch:
    """Numpy views of one record batch of both files (offsets are batch-local), and one
    document's parts from them."""

    __slots__ = ("metas", "sources", "id_offsets", "id_bytes", "document_offsets",
                 "token_offsets", "token_values", "text_offsets", "text_bytes")  # fmt: skip

    def __init__(self, text: pa.RecordBatch, tokens: pa.RecordBatch) -> None:
        token_ids, sentences, ids = tokens.column(0), text.column(3), text.column(0)
        self.document_offsets = _offsets(token_ids)  # (documents + 1,) first sentence of each
        if not np.array_equal(_offsets(sentences), self.document_offsets):
            raise ValueError("the text and the word ids of a record batch disagree")
        self.metas, self.sources = text.column(2), text.column(1)
        self.id_offsets, self.id_bytes = _offsets(ids), _bytes(ids)
        self.token_offsets = _offsets(token_ids.values)  # (sentences + 1,) first word id of each
        self.token_values = _int32_values(token_ids.values.values)  # (word ids,)
        self.text_offsets = _offsets(sentences.values)  # (sentences + 1,) first byte of each
        self.text_bytes = _bytes(sentences.values)  # (bytes,) UTF-8

    def doc_id(self, row: int) -> str:
        start, end = self.id_offsets[row : row + 2].tolist()
        return self.id_bytes[start:end].tobytes().decode("utf-8")

    def sentences(self, row: int) -> tuple[int, int]:
        """The batch-local range of the sentences of document ``row``."""
        first, end = self.document_offsets[row : row + 2].tolist()
        return first, end

    def words(self, first: int, end: int) -> list[np.ndarray]:
        """The word ids of sentences ``first`` to ``end`` (excluded): int32 views of the
        mapped column, no copy."""
        bounds = self.token_offsets[first : end + 1].tolist()
        return [self.token_values[a:b] for a, b in pairwise(bounds)]

    def texts(self, first: int, end: int) -> list[str]:
        """The text of sentences ``first`` to ``end`` (excluded)."""
        bounds = self.text_offsets[first : end + 1].tolist()
        return _split(self.text_bytes[bounds[0] : bounds[-1]].tobytes(), bounds)


class SplitColumns(Sequence):
    """The documents of one split (a folder written as the module docstring says), as a
    sequence of ``Document``, with fast access to one document's word ids and text."""

    def __init__(self, text: pa.Table, tokens: pa.Table, folder: Path | None = None) -> None:
        if text.num_rows != tokens.num_rows:
            raise ValueError(f"{text.num_rows} documents of text but {tokens.num_rows} of ids")
        text_batches, token_batches = text.to_batches(), tokens.to_batches()
        if [len(b) for b in text_batches] != [len(b) for b in token_batches]:
            raise ValueError("the text and the word ids are not in the same record batches")
        self._folder = folder  # None: read into memory (pickled by value)
        self._tables = (text, tokens)
        self._batches = [_Batch(t, w) for t, w in zip(text_batches, token_batches, strict=True)]
        self._starts = [0, *itertools.accumulate(len(b) for b in text_batches)]  # (batches + 1)
        self.sentence_counts = np.concatenate(
            [np.diff(b.document_offsets) for b in self._batches] or [np.zeros(0, np.int32)]
        )  # (documents,) int32

    @classmethod
    def open(cls, folder: Path, mapped: bool = True) -> SplitColumns:
        """The split in ``folder``: memory-mapped, or read into memory (``mapped=False``);
        ColumnSchemaError for a file of another schema than the code writes."""
        return cls(
            read_table(folder / TEXT_FILE, mapped, TEXT_SCHEMA),
            read_table(folder / TOKENS_FILE, mapped, TOKENS_SCHEMA),
            folder if mapped else None,
        )

    def __reduce__(self):
        """Pickled as its folder (a loader worker started by spawn maps the same files)."""
        if self._folder is not None:
            return SplitColumns.open, (self._folder,)
        return SplitColumns, self._tables

    def __len__(self) -> int:
        return self._starts[-1]

    def _locate(self, index: int) -> tuple[_Batch, int]:
        """The record batch of document ``index`` and its row there."""
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"document {index} of {len(self)}")
        batch = bisect.bisect_right(self._starts, index) - 1
        return self._batches[batch], index - self._starts[batch]

    def doc_id(self, index: int) -> str:
        batch, row = self._locate(index)
        return batch.doc_id(row)

    def doc_ids(self) -> Iterator[str]:
        """The id of every document, in order."""
        for batch in self._batches:
            yield from (batch.doc_id(row) for row in range(len(batch.document_offsets) - 1))

    def token_ids(self, index: int) -> list[np.ndarray]:
        """The word ids of each sentence of document ``index``, in gold order (int32
        views of the mapped column)."""
        batch, row = self._locate(index)
        return batch.words(*batch.sentences(row))

    def texts(self, index: int) -> list[str]:
        """The sentences of document ``index``, in gold order."""
        batch, row = self._locate(index)
        return batch.texts(*batch.sentences(row))

    def parts(self, index: int) -> tuple[str, list[np.ndarray], list[str]]:
        """(id, word ids of each sentence, text of each sentence) of document ``index``."""
        batch, row = self._locate(index)
        first, end = batch.sentences(row)
        return batch.doc_id(row), batch.words(first, end), batch.texts(first, end)

    def sentence(self, index: int, sentence: int) -> tuple[np.ndarray, str]:
        """(word ids, text) of one sentence of document ``index``."""
        batch, row = self._locate(index)
        first, end = batch.sentences(row)
        if not 0 <= sentence < end - first:
            raise IndexError(f"sentence {sentence} of a document of {end - first}")
        k = first + sentence
        return batch.words(k, k + 1)[0], batch.texts(k, k + 1)[0]

    def longest_sentences(self, cap: int) -> np.ndarray:
        """(documents,) the most word ids of a sentence of each document, each sentence
        counted as ``min(max(length, 1), cap)``: its length once truncated to ``cap`` (an
        empty one becomes one ``<unk>``, ``data.collate.make_example``)."""
        parts = []
        for batch in self._batches:
            lengths = np.clip(np.diff(batch.token_offsets), 1, cap)
            parts.append(np.maximum.reduceat(lengths, batch.document_offsets[:-1]))
        return np.concatenate(parts) if parts else np.zeros(0, np.int32)

    def document_tokens(self) -> np.ndarray:
        """(documents,) the word ids of each document, its sentences counted whole (an empty
        one as one): what a model reading the joined paragraph encodes (bucketing)."""
        parts = []
        for batch in self._batches:
            lengths = np.maximum(np.diff(batch.token_offsets), 1)
            parts.append(np.add.reduceat(lengths, batch.document_offsets[:-1]))
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def __getitem__(self, index: int) -> Document:
        if not isinstance(index, int | np.integer):
            raise TypeError(f"a document is indexed by an int, got {type(index).__name__}")
        batch, row = self._locate(int(index))
        return Document(
            id=batch.doc_id(row),
            sentences=tuple(batch.texts(*batch.sentences(row))),
            meta=json.loads(batch.metas[row].as_py()),
            source=batch.sources[row].as_py(),
        )

    def __iter__(self) -> Iterator[Document]:
        return (self[i] for i in range(len(self)))

    def fields(self) -> Iterator[tuple[str, list[str], str, str]]:
        """(id, sentences, meta as JSON text, source) of every document, in order: the
        text column a record batch at a time, faster than ``Document`` by document."""
        text = self._tables[0]
        for batch in text.to_batches():
            yield from zip(*(batch.column(name).to_pylist()
                             for name in ("id", "sentences", "meta", "source")), strict=True)

    def __eq__(self, other: object) -> bool:
        """Equal to another sequence of the same documents in the same order."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        where = self._folder if self._folder is not None else "memory"
        return f"SplitColumns({len(self)} documents, {where})"
