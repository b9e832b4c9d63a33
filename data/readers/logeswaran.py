"""NIPS, AAN and NSF abstracts in the layout of Logeswaran, Lee & Radev (2018), "Sentence
Ordering and Coherence Modeling using Recurrent Neural Networks" (AAAI).

Under ``dataset.path``: ``split/<listing>`` files name each split's documents (one name per
line) and ``txt_tokenized/<file>`` holds each document, one sentence per line. The listings
and file names differ per corpus (``LAYOUTS``): NIPS lists ``2013le_papers`` (train, papers
up to 2013), ``2014_papers`` (valid) and ``2015_papers`` (test) and stores document ``n``
as ``txt_tokenized/a<n>.txt``; AAN and NSF list ``train``/``valid``/``test`` and store
``txt_tokenized/<n>``. Documents keep the listing order; ids are the listed names; every
abstract is its own source text (the published splits are kept as they are).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from data.document import Document
from data.errors import DataFormatError, location
from data.readers.dataset_source import DatasetSource
from data.readers.lines import nonblank_lines, read_sentence_file
from data.readers.published import PublishedReader
from data.splits import SPLIT_NAMES

PAPER = "Logeswaran, Lee & Radev 2018, Sentence Ordering and Coherence Modeling using RNNs"
ON_REQUEST = "on request from the authors of Logeswaran et al. 2018 (no public download)"
NIPS = DatasetSource(
    name="nips",
    paper=PAPER,
    published=ON_REQUEST,
    layout=(
        "split/2013le_papers, split/2014_papers, split/2015_papers (train/valid/test: "
        "one document name per line) and txt_tokenized/a<name>.txt (one sentence "
        "per line)"
    ),
    licence="NIPS proceedings abstracts; research use, terms of the authors",
    sizes={"train": 2448, "valid": 409, "test": 402},
    options="dataset.reader.layout=logeswaran",  # dataset=nips reads two layouts (nips.py)
)
AAN = DatasetSource(
    name="aan",
    paper=PAPER,
    published=ON_REQUEST,
    layout=(
        "split/train, split/valid, split/test (one document name per line) and "
        "txt_tokenized/<name> (one sentence per line)"
    ),
    licence="ACL Anthology Network abstracts; research use, terms of the authors",
    sizes={"train": 8569, "valid": 962, "test": 2626},
)
NSF = DatasetSource(
    name="nsf",
    paper=PAPER,
    published=ON_REQUEST,
    layout=(
        "split/train, split/valid, split/test (one document name per line) and "
        "txt_tokenized/<name> (one sentence per line)"
    ),
    licence="NSF Research Award Abstracts 1990-2003 (UCI); research use",
    sizes={"train": 96070, "valid": 10185, "test": 21580},
)
CORPUS_SOURCES = {source.name: source for source in (NIPS, AAN, NSF)}  # corpus -> its facts


@dataclass(frozen=True)
class SplitLayout:
    listings: dict[str, str]  # split -> file name under split/
    document_file: str  # file name under txt_tokenized/, "{}" = the listed name


_PLAIN = SplitLayout({s: s for s in SPLIT_NAMES}, "{}")
LAYOUTS: dict[str, SplitLayout] = {
    "nips": SplitLayout(
        {"train": "2013le_papers", "valid": "2014_papers", "test": "2015_papers"}, "a{}.txt"
    ),
    "aan": _PLAIN,
    "nsf": _PLAIN,
}


class LogeswaranReader(PublishedReader):
    """``corpus``: ``nips``, ``aan`` or ``nsf``; ``path``: the folder holding ``split/`` and
    ``txt_tokenized/`` (see the module docstring)."""

    KIND = "logeswaran"

    def __init__(self, path: str | None, corpus: str) -> None:
        if corpus not in LAYOUTS:
            raise ValueError(f"corpus must be one of {sorted(LAYOUTS)}, got {corpus!r}")
        super().__init__(path)
        self.corpus = corpus

    @property
    def source(self) -> DatasetSource:
        return CORPUS_SOURCES[self.corpus]

    def _listings(self) -> dict[str, Path]:
        root = self.root()
        layout = LAYOUTS[self.corpus]
        return {
            split: self.require_file(root / "split" / name, f" (the {split} listing)")
            for split, name in layout.listings.items()
        }

    def _documents(self, split: str, listing: Path) -> list[tuple[str, Path]]:
        """(name, file) of each document listed for ``split``; missing files and repeated
        names are errors naming the listing's line."""
        folder = self.root() / "txt_tokenized"
        template = LAYOUTS[self.corpus].document_file
        first_line: dict[str, int] = {}
        listed = []
        for lineno, name in nonblank_lines(listing):
            where = location(listing, lineno)
            if name in first_line:
                raise DataFormatError(
                    f"{where}: {name!r} listed twice (first at line {first_line[name]})"
                )
            first_line[name] = lineno
            path = folder / template.format(name)
            self.require_file(path, f" (listed at {where})")
            listed.append((name, path))
        if not listed:
            raise DataFormatError(f"{listing}: lists no documents for the {split} split")
        return listed

    def files(self) -> list[Path]:
        files = []
        for split, listing in self._listings().items():
            files.append(listing)
            files += [path for _, path in self._documents(split, listing)]
        return files

    def read_splits(self) -> dict[str, list[Document]]:
        return {
            split: [
                Document(id=name, sentences=read_sentence_file(path), meta={"corpus": self.corpus})
                for name, path in self._documents(split, listing)
            ]
            for split, listing in self._listings().items()
        }
