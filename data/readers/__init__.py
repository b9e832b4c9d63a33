"""Dataset readers. A reader is any object with

- ``read_splits() -> dict[str, list[Document]]`` with keys ``train``, ``valid``, ``test``;
- optionally ``fingerprint() -> dict``: a JSON-serialisable description of everything that
  determines its output (options, file hashes, a format version). The processed-data
  cache is keyed on it; a reader without one is fingerprinted by hashing its documents.
"""

from __future__ import annotations

from typing import Protocol

from data.document import Document


class Reader(Protocol):
    def read_splits(self) -> dict[str, list[Document]]: ...
