"""The Accidents and Earthquakes corpora of Barzilay & Lapata (2008), "Modeling Local
Coherence: An Entity-Based Approach" (Computational Linguistics 34(1)): NTSB aviation
accident reports and Associated Press articles about earthquakes; as published, 100
training articles each, 100 Accidents and 99 Earthquakes test articles.

Under ``dataset.path``: a training and a test folder (``train_folder``/``test_folder``,
``train/`` and ``test/`` by default), one article per file (every file matching
``pattern``, hidden files skipped, in name order), one sentence per line.

Published quirks (``data.readers.published_ids``, ``data.readers.published_perms``):

- every line begins with a published id (``ntsb2643txt-1-5-5-0-3 On January ...``,
  ``apwsE950112.0297-0: JERUSALEM ...``); it is not text, and in the Accidents files it
  ends in the sentence's gold position, so it is stripped (``strip_ids``, on by default);
  a file whose lines have ids on some lines only is refused, naming the line;
- the published archives keep each article's permuted copies beside it
  (``<article>.perm-1`` = gold order, ``.perm-2`` ... = permutations). In such a folder
  only the ``.perm-1`` files are read as articles (the copies are counted in
  ``skipped_copies``); a folder holding copies of an article without its ``.perm-1`` is
  refused with a message naming the layout. ``published_test_permutations()`` gives the
  published permutations of every test article as gold-position orders (the pairs of the
  order-discrimination tables).

The corpora have no validation split, so, as in the papers that train on them, the
training articles are cut into ``n_folds`` folds (a permutation of the file names seeded by
``fold_seed``, dealt round-robin) and fold ``fold`` is the validation split; the other
folds are trained on; identical training articles (Earthquakes has two pairs) share a
fold, so no text is both trained and validated on. Running ``fold=0 .. n_folds-1`` gives
the full cross-validation; ``test`` is always the test folder. Ids are the file names
(they carry no sentence position), ``meta = {"file": "<folder>/<name>"}``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from data.document import Document
from data.duplicates import text_key
from data.errors import DataFormatError, location
from data.readers.published import PublishedReader
from data.readers.published_ids import published_sentences
from data.readers.published_perms import PublishedFolder, permutation_orders, scan_folder
from data.readers.sources import SOURCES, DatasetSource

log = logging.getLogger(__name__)

CORPORA = ("accident", "earthquake")


def fold_of(
    names: list[str], n_folds: int, seed: int, same_as: dict[str, str] | None = None
) -> dict[str, int]:
    """Fold (0 .. n_folds-1) of every name: seeded permutation of the sorted names, dealt
    round-robin, so fold sizes differ by at most one; then every ``name`` of ``same_as``
    joins the fold of ``same_as[name]`` (identical articles share a fold)."""
    ordered = sorted(names)
    permutation = np.random.default_rng(seed).permutation(len(ordered))
    folds = {ordered[i]: position % n_folds for position, i in enumerate(permutation)}
    for name, twin in (same_as or {}).items():
        folds[name] = folds[twin]
    return folds


def twins(documents: list[Document]) -> dict[str, str]:
    """``{id: id of the first document with the same text}`` for every later repeat."""
    first: dict[str, str] = {}
    return {
        doc.id: first[key]
        for doc in documents
        if (first.setdefault(key := text_key(doc), doc.id)) != doc.id
    }


class BarzilayLapataReader(PublishedReader):
    """``corpus``: ``accident`` or ``earthquake``; ``fold``: which of the ``n_folds`` folds
    of the training articles is the validation split (see the module docstring)."""

    KIND = "barzilay_lapata"
    VERSION = 3  # 2: published ids stripped, *.perm-N copies skipped; 3: twins share a fold

    def __init__(
        self,
        path: str | None,
        corpus: str,
        fold: int = 0,
        n_folds: int = 10,
        fold_seed: int = 0,
        pattern: str = "*",
        strip_ids: bool = True,
        train_folder: str = "train",
        test_folder: str = "test",
    ) -> None:
        if corpus not in CORPORA:
            raise ValueError(f"corpus must be one of {CORPORA}, got {corpus!r}")
        if not 0 <= fold < n_folds:
            raise ValueError(f"need 0 <= fold < n_folds, got fold={fold}, n_folds={n_folds}")
        super().__init__(path)
        self.corpus = corpus
        self.fold, self.n_folds, self.fold_seed = int(fold), int(n_folds), int(fold_seed)
        self.pattern = str(pattern)
        self.strip_ids = bool(strip_ids)
        self.train_folder, self.test_folder = str(train_folder), str(test_folder)
        self._reported: set[Path] = set()  # folders whose layout was logged

    @property
    def source(self) -> DatasetSource:
        return SOURCES[self.corpus]

    def _folder(self, folder: str) -> PublishedFolder:
        root = self.root()
        directory = root / folder
        if not directory.is_dir():
            present = sorted(p.name for p in root.iterdir() if p.is_dir())
            raise self.source.not_found(
                f"{directory} is not a folder (folders there: {present or 'none'}; "
                "name others with dataset.reader.train_folder / test_folder)"
            )
        scanned = scan_folder(directory, self.pattern, self.source)
        if scanned.copies and directory not in self._reported:
            self._reported.add(directory)
            log.info(
                "%s: published archive layout: %d articles (*.perm-1, gold order) read, "
                "%d permutation copies (*.perm-N, N >= 2) skipped",
                directory, len(scanned.articles), len(scanned.copies),
            )  # fmt: skip
        return scanned

    def skipped_copies(self) -> dict[str, int]:
        """Permutation copies (``*.perm-N``, N >= 2) not read as articles, per split folder."""
        return {
            split: len(self._folder(folder).copies)
            for split, folder in (("train", self.train_folder), ("test", self.test_folder))
        }

    def files(self) -> list[Path]:
        return [
            path
            for folder in (self.train_folder, self.test_folder)
            for path in self._folder(folder).articles
        ]

    def _document(self, path: Path) -> Document:
        meta = {"file": f"{path.parent.name}/{path.name}"}
        sentences = tuple(text for _, text in self._lines(path))
        if not sentences:
            raise DataFormatError(f"{location(path)}: no sentences (expected one per line)")
        return Document(id=path.name, sentences=sentences, meta=meta)

    def _lines(self, path: Path) -> list[tuple[int, str]]:
        return published_sentences(path, self.strip_ids)

    def read_splits(self) -> dict[str, list[Document]]:
        train = self._folder(self.train_folder).articles
        if len(train) < self.n_folds:
            raise ValueError(
                f"{len(train)} training articles cannot make {self.n_folds} folds; "
                "lower dataset.reader.n_folds"
            )
        documents = [self._document(p) for p in train]
        folds = fold_of([d.id for d in documents], self.n_folds, self.fold_seed, twins(documents))
        return {
            "train": [d for d in documents if folds[d.id] != self.fold],
            "valid": [d for d in documents if folds[d.id] == self.fold],
            "test": [self._document(p) for p in self._folder(self.test_folder).articles],
        }

    def published_test_permutations(
        self, folder: str | Path | None = None
    ) -> dict[str, dict[int, list[int]]]:
        """The published permutations of every test article: ``{document id: {N: order}}``
        where ``order[j]`` is the gold position of the j-th sentence of the file
        ``<article>.perm-N`` (the convention of ``data.shuffle``: presented[j] = gold
        sentence ``order[j]``), by N. ``folder`` holds the permutation files (default: the
        test folder, where the published archive keeps them beside the articles; the
        published Accidents test permutations, 1,986 files, are a folder of their own).
        Articles without permutation files get ``{}``; files of unknown articles are
        refused."""
        articles = self._folder(self.test_folder).articles
        documents = [self._document(p) for p in articles]
        directory = self.root() / self.test_folder if folder is None else Path(folder)
        copies = scan_folder(directory, self.pattern, self.source, need_gold=False).copies
        return permutation_orders(articles, documents, copies, self._lines)
