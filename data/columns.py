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

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
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


def read_table(path: Path, mapped: bool = True) -> pa.Table:
    """The table of an Arrow IPC file: memory-mapped (zero-copy), or read into memory."""
    source = pa.memory_map(str(path), "r") if mapped else pa.OSFile(str(path), "rb")
    return pa.ipc.open_file(source).read_all()


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


def _int32_values(array: pa.Array) -> np.ndarray:
    """The values of an int32 array, zero-copy."""
    buffer = array.buffers()[1]
    if buffer is None:  # no values at all
        return np.zeros(0, np.int32)
    return np.frombuffer(buffer, dtype=np.int32)[array.offset : array.offset + len(array)]


@dataclass(frozen=True)
class _Batch:
    """Numpy views of one record batch of both files (offsets are batch-local)."""

    ids: pa.StringArray
    sources: pa.StringArray
    metas: pa.StringArray
    document_offsets: np.ndarray  # (documents + 1,) first sentence of each document
    token_offsets: np.ndarray  # (sentences + 1,) first word id of each sentence
    token_values: np.ndarray  # (word ids,) int32
    text_offsets: np.ndarray  # (sentences + 1,) first byte of each sentence
    text_bytes: np.ndarray  # (bytes,) uint8, UTF-8


def _batch(text: pa.RecordBatch, tokens: pa.RecordBatch) -> _Batch:
    token_ids = tokens.column(0)
    sentences = text.column(3)
    document_offsets = _offsets(token_ids)
    if not np.array_equal(_offsets(sentences), document_offsets):
        raise ValueError("the text and the word ids of a record batch disagree")
    words, strings = token_ids.values, sentences.values
    return _Batch(
        ids=text.column(0),
        sources=text.column(1),
        metas=text.column(2),
        document_offsets=document_offsets,
        token_offsets=_offsets(words),
        token_values=_int32_values(words.values),
        text_offsets=_offsets(strings),
        text_bytes=np.frombuffer(strings.buffers()[2] or b"", dtype=np.uint8),
    )


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
        self._batches = [_batch(t, w) for t, w in zip(text_batches, token_batches, strict=True)]
        self._starts = np.cumsum([0] + [len(b) for b in text_batches])  # (batches + 1,)
        self.sentence_counts = np.concatenate(
            [np.diff(b.document_offsets) for b in self._batches] or [np.zeros(0, np.int32)]
        )  # (documents,) int32

    @classmethod
    def open(cls, folder: Path, mapped: bool = True) -> SplitColumns:
        """The split in ``folder``: memory-mapped, or read into memory (``mapped=False``)."""
        return cls(
            read_table(folder / TEXT_FILE, mapped),
            read_table(folder / TOKENS_FILE, mapped),
            folder if mapped else None,
        )

    def __reduce__(self):
        """Pickled as its folder (a loader worker started by spawn maps the same files)."""
        if self._folder is not None:
            return SplitColumns.open, (self._folder,)
        return SplitColumns, self._tables

    def __len__(self) -> int:
        return int(self._starts[-1])

    def _locate(self, index: int) -> tuple[_Batch, int]:
        if not -len(self) <= index < len(self):
            raise IndexError(f"document {index} of {len(self)}")
        index %= len(self)
        batch = int(np.searchsorted(self._starts, index, side="right")) - 1
        return self._batches[batch], index - int(self._starts[batch])

    def doc_id(self, index: int) -> str:
        batch, row = self._locate(index)
        return batch.ids[row].as_py()

    def doc_ids(self) -> Iterator[str]:
        """The id of every document, in order."""
        for batch in self._batches:
            yield from batch.ids.to_pylist()

    def _sentences(self, index: int) -> tuple[_Batch, int, int]:
        batch, row = self._locate(index)
        return batch, int(batch.document_offsets[row]), int(batch.document_offsets[row + 1])

    def token_ids(self, index: int) -> list[list[int]]:
        """The word ids of each sentence of document ``index``, in gold order."""
        batch, first, end = self._sentences(index)
        offsets = batch.token_offsets[first : end + 1]
        values = batch.token_values[offsets[0] : offsets[-1]].tolist()
        bounds = (offsets - offsets[0]).tolist()
        return [values[a:b] for a, b in pairwise(bounds)]

    def texts(self, index: int) -> list[str]:
        """The sentences of document ``index``, in gold order."""
        batch, first, end = self._sentences(index)
        offsets = batch.text_offsets[first : end + 1]
        raw = batch.text_bytes[offsets[0] : offsets[-1]].tobytes()
        bounds = (offsets - offsets[0]).tolist()
        return [raw[a:b].decode("utf-8") for a, b in pairwise(bounds)]

    def sentence(self, index: int, sentence: int) -> tuple[list[int], str]:
        """(word ids, text) of one sentence of document ``index``."""
        batch, first, end = self._sentences(index)
        if not 0 <= sentence < end - first:
            raise IndexError(f"sentence {sentence} of a document of {end - first}")
        k = first + sentence
        ids = batch.token_values[batch.token_offsets[k] : batch.token_offsets[k + 1]].tolist()
        text = batch.text_bytes[batch.text_offsets[k] : batch.text_offsets[k + 1]].tobytes()
        return ids, text.decode("utf-8")

    def longest_sentences(self, cap: int) -> np.ndarray:
        """(documents,) the most word ids of a sentence of each document, each sentence
        counted as ``min(max(length, 1), cap)``: its length once truncated to ``cap`` (an
        empty one becomes one ``<unk>``, ``data.collate.make_example``)."""
        parts = []
        for batch in self._batches:
            lengths = np.clip(np.diff(batch.token_offsets), 1, cap)
            parts.append(np.maximum.reduceat(lengths, batch.document_offsets[:-1]))
        return np.concatenate(parts) if parts else np.zeros(0, np.int32)

    def __getitem__(self, index: int) -> Document:
        if not isinstance(index, int | np.integer):
            raise TypeError(f"a document is indexed by an int, got {type(index).__name__}")
        batch, row = self._locate(int(index))
        return Document(
            id=batch.ids[row].as_py(),
            sentences=tuple(self.texts(int(index))),
            meta=json.loads(batch.metas[row].as_py()),
            source=batch.sources[row].as_py(),
        )

    def __iter__(self) -> Iterator[Document]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        """Equal to another sequence of the same documents in the same order."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        where = self._folder if self._folder is not None else "memory"
        return f"SplitColumns({len(self)} documents, {where})"
