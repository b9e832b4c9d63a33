"""The Accidents and Earthquakes corpora of Barzilay & Lapata (2008), "Modeling Local
Coherence: An Entity-Based Approach" (Computational Linguistics 34(1)): NTSB aviation
accident reports and Associated Press articles about earthquakes, 100 training and 100 test
articles each.

Under ``dataset.path``: ``train/`` and ``test/``, one article per file (every file matching
``pattern``, hidden files skipped, in name order), one sentence per line. The corpora have
no validation split, so, as in the papers that train on them, the training articles are
cut into ``n_folds`` folds (a permutation of the file names seeded by ``fold_seed``, dealt
round-robin) and fold ``fold`` is the validation split; the other folds are trained on.
Running ``fold=0 .. n_folds-1`` gives the full cross-validation; ``test`` is always
``test/``. Ids are the file names, ``meta = {"file": "<folder>/<name>"}``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from data.document import Document
from data.readers.lines import read_sentence_file
from data.readers.published import PublishedReader
from data.readers.sources import SOURCES, DatasetSource

CORPORA = ("accident", "earthquake")
FOLDERS = ("train", "test")


def fold_of(names: list[str], n_folds: int, seed: int) -> dict[str, int]:
    """Fold (0 .. n_folds-1) of every name: seeded permutation of the sorted names, dealt
    round-robin, so fold sizes differ by at most one."""
    ordered = sorted(names)
    permutation = np.random.default_rng(seed).permutation(len(ordered))
    return {ordered[i]: position % n_folds for position, i in enumerate(permutation)}


class BarzilayLapataReader(PublishedReader):
    """``corpus``: ``accident`` or ``earthquake``; ``fold``: which of the ``n_folds`` folds
    of the training articles is the validation split (see the module docstring)."""

    KIND = "barzilay_lapata"

    def __init__(
        self,
        path: str | None,
        corpus: str,
        fold: int = 0,
        n_folds: int = 10,
        fold_seed: int = 0,
        pattern: str = "*",
    ) -> None:
        if corpus not in CORPORA:
            raise ValueError(f"corpus must be one of {CORPORA}, got {corpus!r}")
        if not 0 <= fold < n_folds:
            raise ValueError(f"need 0 <= fold < n_folds, got fold={fold}, n_folds={n_folds}")
        super().__init__(path)
        self.corpus = corpus
        self.fold, self.n_folds, self.fold_seed = int(fold), int(n_folds), int(fold_seed)
        self.pattern = str(pattern)

    @property
    def source(self) -> DatasetSource:
        return SOURCES[self.corpus]

    def _articles(self, folder: str) -> list[Path]:
        directory = self.root() / folder
        if not directory.is_dir():
            raise self.source.not_found(f"{directory} is not a folder")
        articles = sorted(
            p for p in directory.glob(self.pattern) if p.is_file() and not p.name.startswith(".")
        )
        if not articles:
            raise self.source.not_found(f"{directory} holds no article matching {self.pattern!r}")
        return articles

    def files(self) -> list[Path]:
        return [path for folder in FOLDERS for path in self._articles(folder)]

    def _document(self, path: Path) -> Document:
        meta = {"file": f"{path.parent.name}/{path.name}"}
        return Document(id=path.name, sentences=read_sentence_file(path), meta=meta)

    def read_splits(self) -> dict[str, list[Document]]:
        train = self._articles("train")
        if len(train) < self.n_folds:
            raise ValueError(
                f"{len(train)} training articles cannot make {self.n_folds} folds; "
                "lower dataset.reader.n_folds"
            )
        folds = fold_of([p.name for p in train], self.n_folds, self.fold_seed)
        return {
            "train": [self._document(p) for p in train if folds[p.name] != self.fold],
            "valid": [self._document(p) for p in train if folds[p.name] == self.fold],
            "test": [self._document(p) for p in self._articles("test")],
        }
