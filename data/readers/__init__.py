"""Dataset readers. A reader is any object with

- ``read_splits() -> dict[str, list[Document]]`` with keys ``train``, ``valid``, ``test``;
- optionally ``iter_splits() -> dict[str, Iterable[Document]]``: the same documents, each
  split read lazily as it is iterated (a generator), so that a corpus of a million
  documents is never in memory at once (``data.processing`` goes through each split once);
- optionally ``fingerprint() -> dict``: a JSON-serialisable description of everything that
  determines its output (options, file hashes, a format version). The processed-data
  cache is keyed on it; a reader without one is fingerprinted by hashing its documents;
- optionally ``size_hint() -> dict[str, int] | None``: about how many documents each split
  holds, for the progress bar of a long preparation;
- optionally ``TEXT_SHAREABLE``, a class attribute: True when its documents' text may be
  published beside results (a page that shows a run's documents with their sentences:
  ``orderbench site``); by default it may not (a published corpus whose files must not be
  committed: positions and ids only). ``text_shareable`` reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from data.document import Document


class Reader(Protocol):
    def read_splits(self) -> dict[str, list[Document]]: ...


def text_shareable(reader_class: type) -> bool:
    """Whether the documents a reader of `reader_class` reads may be published with results
    (its ``TEXT_SHAREABLE``; False when it does not say)."""
    return getattr(reader_class, "TEXT_SHAREABLE", False) is True


def split_documents(reader: Reader) -> Mapping[str, Iterable[Document]]:
    """The reader's documents per split, lazily where it can (``iter_splits``)."""
    iter_splits = getattr(reader, "iter_splits", None)
    return iter_splits() if iter_splits is not None else reader.read_splits()


def materialise(splits: Mapping[str, Iterable[Document]]) -> dict[str, list[Document]]:
    """``iter_splits`` as ``read_splits``: every split read into a list, in order."""
    return {split: list(documents) for split, documents in splits.items()}
