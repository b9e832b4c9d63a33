"""Tokenise documents, build the vocabulary from the training split (or the splits named)
and write every sentence's word ids, streaming: the documents pass once, in record batches,
and never all at once in memory.

``prepare_columns`` reads each split's documents as the reader yields them and writes, per
split, the columns of ``data.columns`` (text, and word ids as flat int32 with sentence and
document offsets). One pass tokenises, counts the words of the vocabulary's splits, hashes
each document's text for the duplicate check (``data.duplicates``, 32 bytes a document)
and each document for the data digest (``DocumentsDigest``). A word gets a provisional id
when first seen; once the pass is over the vocabulary is built from the counts (exactly
``Vocab.build``'s: most frequent first, ties alphabetical) and a second pass over the
written int32 columns, never over the text again, maps the provisional ids to the
vocabulary's. The word ids, vocabulary and digests are those of tokenising every document
in memory and encoding it with the finished vocabulary.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import json.encoder
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from data.columns import (
    TEXT_FILE,
    TEXT_SCHEMA,
    TOKENS_FILE,
    TOKENS_SCHEMA,
    ColumnWriter,
    SplitColumns,
    flat_values,
    record_batches,
    token_column,
    with_values,
)
from data.document import Document
from data.duplicates import DIGEST, DuplicateReport, duplicate_report, text_digest
from data.progress import StageProgress
from data.splits import SPLIT_NAMES
from data.tokenize import DEFAULT_TOKENIZER, tokenizer_named
from data.vocab import Vocab

log = logging.getLogger(__name__)

VOCAB_SPLITS = ("train",)  # the default: the vocabulary never sees evaluation text
BATCH_DOCUMENTS = 8192  # documents per record batch
BATCH_BYTES = 64 << 20  # ... or fewer, once their text passes this many bytes
PROVISIONAL_FILE = "provisional_ids.arrow"  # word ids in order of first sight, until mapped


_SORTED_JSON = json.JSONEncoder(sort_keys=True).encode
_STRING = json.encoder.encode_basestring_ascii  # json.dumps's own escape of a string


class DocumentsDigest:
    """SHA-256 over every document as one JSON record ``[split, id, sentences, meta,
    source]`` (``json.dumps(record, sort_keys=True)``, written out here string by string,
    twice as fast, byte for byte the same): the data digest of a run's identity
    (``documents_sha256``, docs/design.md, section 8)."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()

    def update(self, split: str, document: Document) -> None:
        self.update_fields(split, document.id, document.sentences,
                           _SORTED_JSON(document.meta), document.source)  # fmt: skip

    def update_fields(self, split: str, doc_id: str, sentences: Sequence[str], meta: str,
                      source: str) -> None:
        """``update`` of a document given by its fields, ``meta`` as JSON with sorted keys."""
        record = (f"[{_STRING(split)}, {_STRING(doc_id)}, [{', '.join(map(_STRING, sentences))}"
                  f"], {meta}, {_STRING(source)}]")  # fmt: skip
        self._digest.update(record.encode("utf-8"))

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


def documents_sha256(splits: Mapping[str, Iterable[Document]]) -> str:
    """``DocumentsDigest`` of the documents of ``SPLIT_NAMES`` (other splits are not read)."""
    digest = DocumentsDigest()
    for split in SPLIT_NAMES:
        for document in splits.get(split, ()):
            digest.update(split, document)
    return digest.hexdigest()


def columns_sha256(splits: Mapping[str, SplitColumns]) -> str:
    """``documents_sha256`` of the documents of written columns, computed from their text
    column (the digest a run's record holds: of what was read, never a stored copy)."""
    digest = DocumentsDigest()
    for split in SPLIT_NAMES:
        for doc_id, sentences, meta, source in splits[split].fields():
            meta = meta if meta == "{}" else _SORTED_JSON(json.loads(meta))  # keys sorted
            digest.update_fields(split, doc_id, sentences, meta, source)
    return digest.hexdigest()


@dataclass
class Prepared:
    """What ``prepare_columns`` found besides the columns it wrote."""

    vocab: Vocab
    n_docs: dict[str, int]
    documents_sha256: str
    duplicates: DuplicateReport


class _Words:
    """Provisional word ids (in order of first sight) and the counts of the vocabulary's."""

    def __init__(self, tokenizer: str) -> None:
        self.tokenize = tokenizer_named(tokenizer)
        self.ids: dict[str, int] = {}
        self.counts = np.zeros(0, np.int64)

    def encode(self, sentence: str) -> list[int]:
        tokens = self.tokenize(sentence)
        encoded = list(map(self.ids.get, tokens))
        if None in encoded:  # a word seen for the first time
            ids = self.ids
            encoded = [ids.setdefault(token, len(ids)) for token in tokens]
        return encoded

    def count(self, values: np.ndarray) -> None:
        seen = np.bincount(values, minlength=len(self.ids))
        if len(seen) > len(self.counts):
            self.counts = np.concatenate([self.counts, np.zeros(len(seen) - len(self.counts),
                                                                np.int64)])
        self.counts[: len(seen)] += seen

    def vocabulary(self, min_freq: int, max_vocab: int | None) -> tuple[Vocab, np.ndarray]:
        """The vocabulary of the counted words, and the vocabulary id of every provisional id."""
        words = list(self.ids)  # in provisional-id order
        counts = {words[i]: int(self.counts[i]) for i in np.flatnonzero(self.counts)}
        vocab = Vocab.from_counts(counts, min_freq, max_vocab)
        return vocab, np.asarray(vocab.encode(words), dtype=np.int32)


@dataclass
class _Batch:
    """Documents waiting to be written as one record batch."""

    ids: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    metas: list[str] = field(default_factory=list)
    sentences: list[tuple[str, ...]] = field(default_factory=list)
    sentence_counts: list[int] = field(default_factory=list)
    sentence_lengths: list[int] = field(default_factory=list)
    word_ids: list[int] = field(default_factory=list)
    text_bytes: int = 0

    def add(self, document: Document, encoded: list[list[int]]) -> None:
        self.ids.append(document.id)
        self.sources.append(document.source)
        self.metas.append(json.dumps(document.meta))  # as the reader ordered it
        self.sentences.append(document.sentences)
        self.sentence_counts.append(len(encoded))
        for ids in encoded:
            self.sentence_lengths.append(len(ids))
            self.word_ids.extend(ids)
        self.text_bytes += sum(len(s) for s in document.sentences)

    def full(self) -> bool:
        return len(self.ids) >= BATCH_DOCUMENTS or self.text_bytes >= BATCH_BYTES


class _SplitPass:
    """One split through the streaming pass: its text and provisional word ids written in
    record batches, its documents hashed."""

    def __init__(self, split: str, folder: Path, words: _Words, count_words: bool,
                 digests: bytearray, data_digest: DocumentsDigest) -> None:
        self.split, self.words, self.count_words = split, words, count_words
        self.digests, self.data_digest = digests, data_digest
        folder.mkdir()
        self.text = ColumnWriter(folder / TEXT_FILE, TEXT_SCHEMA)
        self.word_ids = ColumnWriter(folder / PROVISIONAL_FILE, TOKENS_SCHEMA)

    def run(self, documents: Iterable[Document], progress: StageProgress) -> int:
        batch, count = _Batch(), 0
        try:
            for document in documents:
                self.data_digest.update(self.split, document)
                self.digests += text_digest(document.sentences)
                batch.add(document, [self.words.encode(s) for s in document.sentences])
                count += 1
                if batch.full():
                    progress.update(self._write(batch))
                    batch = _Batch()
            if batch.ids:
                progress.update(self._write(batch))
        except BaseException:
            for writer in (self.text, self.word_ids):  # the folder goes; the error stays
                with contextlib.suppress(OSError):
                    writer.close()
            raise
        self.text.close()
        self.word_ids.close()
        return count

    def _write(self, batch: _Batch) -> int:
        values = np.asarray(batch.word_ids, dtype=np.int32)
        self.text.write([
            pa.array(batch.ids, pa.string()),
            pa.array(batch.sources, pa.string()),
            pa.array(batch.metas, pa.string()),
            pa.array(batch.sentences, pa.list_(pa.string())),
        ])  # fmt: skip
        self.word_ids.write([token_column(batch.sentence_counts, batch.sentence_lengths, values)])
        if self.count_words:
            self.words.count(values)
        return len(batch.ids)


def _map_word_ids(folder: Path, mapping: np.ndarray, progress: StageProgress) -> None:
    """``folder``'s provisional word ids through ``mapping`` into its ``TOKENS_FILE``."""
    provisional = folder / PROVISIONAL_FILE
    writer = ColumnWriter(folder / TOKENS_FILE, TOKENS_SCHEMA)
    try:
        for batch in record_batches(provisional):
            column = batch.column(0)
            writer.write([with_values(column, mapping[flat_values(column)])])
            progress.update(len(column))
    finally:
        writer.close()
    provisional.unlink()


def prepare_columns(
    name: str,
    splits: Mapping[str, Iterable[Document]],
    folder: Path,
    min_freq: int = 1,
    max_vocab: int | None = None,
    vocab_splits: Sequence[str] = VOCAB_SPLITS,
    tokenizer: str = DEFAULT_TOKENIZER,
    expected: Mapping[str, int] | None = None,
) -> Prepared:
    """Write ``folder/<split>/`` (``data.columns``) for the documents of each split of
    ``SPLIT_NAMES`` (``splits``: lists, or iterables read once, in order) of the dataset
    ``name``; the vocabulary sees ``vocab_splits`` (default ``train`` only) with
    ``min_freq`` and ``max_vocab``. ``vocab_splits=("train", "valid", "test")`` is the
    released ATTOrderNet code's vocabulary (hwxcby/ATTOrderNet, ``data_vocab.py``: the words
    of all three files), a deviation: evaluation words then get their own rows (and
    pretrained vectors) instead of ``<unk>``; no order information passes. ``tokenizer``
    names one of ``data.tokenize.TOKENIZERS``; ``expected`` (documents per split, a hint)
    gives the progress bar its total. Raises ``ValueError`` for a split without documents
    and ``DataFormatError`` (``data.duplicates``) for a text in two splits."""
    unknown = sorted(set(vocab_splits) - set(splits))
    if unknown or not vocab_splits:
        raise ValueError(
            f"vocab_splits must name splits of the dataset ({sorted(splits)}), got "
            f"{list(vocab_splits)}"
        )
    words, digests, data_digest = _Words(tokenizer), bytearray(), DocumentsDigest()
    n_docs = {}
    for split in SPLIT_NAMES:
        stage = f"{name} {split}: read and tokenised"
        with StageProgress(log, stage, (expected or {}).get(split)) as progress:
            split_pass = _SplitPass(split, folder / split, words, split in vocab_splits,
                                    digests, data_digest)  # fmt: skip
            n_docs[split] = split_pass.run(splits.get(split, ()), progress)
    missing = [split for split, count in n_docs.items() if not count]
    if missing:
        raise ValueError(f"dataset {name!r}: no documents in split(s) {missing}")
    vocab, mapping = words.vocabulary(min_freq, max_vocab)
    log.info("%s: vocabulary of %s words (with <pad> and <unk>) from %s, %s distinct in all",
             name, f"{len(vocab):,}", "+".join(vocab_splits), f"{len(words.ids):,}")
    stage = f"{name}: word ids mapped to the vocabulary"
    with StageProgress(log, stage, sum(n_docs.values())) as progress:
        for split in SPLIT_NAMES:
            _map_word_ids(folder / split, mapping, progress)
    with StageProgress(log, f"{name}: duplicates checked") as progress:
        columns = {split: SplitColumns.open(folder / split) for split in SPLIT_NAMES}
        duplicates = duplicate_report(
            np.frombuffer(digests, dtype=DIGEST), list(n_docs.items()),
            lambda split, row: columns[split][row],
        )  # fmt: skip
        progress.update(sum(n_docs.values()))
        progress.detail = f"; repeats within a split: {duplicates.counts()}"
    return Prepared(vocab, n_docs, data_digest.hexdigest(), duplicates)
