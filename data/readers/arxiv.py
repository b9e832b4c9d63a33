"""arXiv abstracts of Chen, Qiu & Huang (2016), "Neural Sentence Ordering" (arXiv:1607.06952),
in their published form.

Under ``dataset.path``: ``train.txt``, ``valid.txt`` and ``test.txt``. Documents are
separated by blank lines; each starts with two header lines (kept as ``meta["header"]``)
followed by one sentence per line. A block with no line after its header holds no
sentence to order and is skipped (with a warning giving the count), as the loaders that
reproduce the published split sizes do. Ids are ``<split>-<k>`` with ``k`` the 0-based
index of the document in its file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from data.document import Document
from data.readers import materialise
from data.readers.dataset_source import DatasetSource
from data.readers.lines import numbered_lines
from data.readers.published import PublishedReader
from data.splits import SPLIT_NAMES

log = logging.getLogger(__name__)

SOURCE = DatasetSource(
    name="arxiv",
    paper="Chen, Qiu & Huang 2016, Neural Sentence Ordering (arXiv:1607.06952)",
    published=(
        "http://nlp.fudan.edu.cn/data/ and the Google Drive folder linked from "
        "https://github.com/FudanNLP/NeuralSentenceOrdering"
    ),
    layout=(
        "train.txt, valid.txt, test.txt: documents separated by a blank line, each "
        "two header lines followed by one sentence per line"
    ),
    licence="arXiv abstracts; no licence stated by the release, research use",
    sizes={"train": 884912, "valid": 110614, "test": 110615},
)

HEADER_LINES = 2


def blocks(path: Path) -> Iterator[list[str]]:
    """The blank-line separated blocks of ``path`` (runs of blank lines count as one)."""
    block: list[str] = []
    for _, line in numbered_lines(path):
        if line.strip():
            block.append(line.strip())
        elif block:
            yield block
            block = []
    if block:
        yield block


def iter_documents(split: str, path: Path) -> Iterator[Document]:
    """The documents of one file in the layout of the module docstring (possibly none),
    yielded as they are read."""
    count, skipped = 0, 0
    for block in blocks(path):
        if len(block) <= HEADER_LINES:
            skipped += 1
            continue
        yield Document(
            id=f"{split}-{count}",
            sentences=block[HEADER_LINES:],
            meta={"header": block[:HEADER_LINES]},
        )
        count += 1
    if skipped:
        log.warning("%s: skipped %d block(s) with no sentence after the header", path, skipped)


def read_documents(split: str, path: Path) -> list[Document]:
    """``iter_documents`` as a list."""
    return list(iter_documents(split, path))


class ArxivReader(PublishedReader):
    """Reads ``<path>/{train,valid,test}.txt`` (see the module docstring)."""

    KIND = "arxiv"
    source = SOURCE

    def files(self) -> list[Path]:
        root = self.root()
        return [self.require_file(root / f"{split}.txt") for split in SPLIT_NAMES]

    def _read(self, split: str, path: Path) -> Iterator[Document]:
        count = 0
        for document in iter_documents(split, path):
            count += 1
            yield document
        if not count:
            raise self.source.not_found(f"{path} holds no document")

    def iter_splits(self) -> dict[str, Iterator[Document]]:
        """Each split read as it is iterated (every file is there before any is read)."""
        files = zip(SPLIT_NAMES, self.files(), strict=True)
        return {split: self._read(split, path) for split, path in files}

    def read_splits(self) -> dict[str, list[Document]]:
        return materialise(self.iter_splits())
