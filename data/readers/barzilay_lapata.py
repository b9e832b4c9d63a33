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

The corpora have no validation split. The training articles are cut into ``n_folds``
folds (a permutation of the file names seeded by ``fold_seed``, dealt round-robin;
identical training articles, Earthquakes has two pairs, share a fold, so no text is in two
splits), and ``protocol`` says what the folds are for. Cui et al. (2018, sec. 3.1):
"Since the original datasets do not provide validation samples, we follow the setup in
(Louis and Nenkova, 2012; Li and Hovy, 2014) and use 10-fold cross validation on the
training data"; the sentence admits two readings, both offered:

- ``published_test`` (the default): fold ``fold`` is the validation split (model
  selection and early stopping), the other folds are trained on, ``test`` is the test
  folder. The folds only pick checkpoints; the figure is on the published test articles.
- ``cross_validation``: fold ``fold`` is the test split, fold ``(fold + 1) % n_folds`` the
  validation split, the remaining ``n_folds - 2`` folds are trained on; the test folder is
  not read. Running ``fold=0 .. n_folds-1`` scores every training article once, by a model
  trained and selected without it (``benchmark.report.cross_validation`` pools the runs).

Either way the assignment is a fixed function of (file names, texts, ``n_folds``,
``fold_seed``); ``split_protocol()`` describes it (every article's fold), and the
DataModule puts that description in the run record (``data.split_protocol``). The fixed
evaluation permutations are keyed by (dataset name, split, document id, protocol seed)
(``data.shuffle``): ids are file names and, under ``cross_validation``, a training article
in the test split is keyed by its own name, so the reader refuses a name found in both
folders (two texts would share one key). Ids are the file names (they carry no sentence
position), ``meta = {"file": "<folder>/<name>"}``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from data.document import Document
from data.duplicates import text_key
from data.errors import DataFormatError, location
from data.readers.dataset_source import DatasetSource
from data.readers.published import PublishedReader
from data.readers.published_ids import published_sentences
from data.readers.published_perms import (
    PublishedFolder,
    article_key,
    permutation_orders,
    scan_folder,
)

log = logging.getLogger(__name__)

PAPER = "Barzilay & Lapata 2008, Modeling Local Coherence: An Entity-Based Approach"
PAGE = "Regina Barzilay's coherence data (MIT CSAIL), as used by Barzilay & Lapata 2008"
LINES = (
    "one article per file, one sentence per line (each line '<published id> <sentence>', the "
    "id is stripped; in the published archive layout, <article>.perm-1 with its permuted "
    "copies .perm-N beside it, only the .perm-1 files are articles; other folder names: "
    "dataset.reader.train_folder / test_folder)"
)
ACCIDENT = DatasetSource(
    name="accident",
    paper=PAPER,
    published=PAGE,
    layout=f"train/ and test/ folders of NTSB accident reports, {LINES}",
    licence="NTSB reports (US government); research use",
    sizes={"train": 100, "test": 100},
)
EARTHQUAKE = DatasetSource(
    name="earthquake",
    paper=PAPER,
    published=PAGE,
    layout=f"train/ and test/ folders of AP earthquake articles, {LINES}",
    licence="Associated Press articles; research use only",
    sizes={"train": 100, "test": 99},  # Cui et al. 2018, Table 2; two are identical
)
CORPORA = ("accident", "earthquake")
CORPUS_SOURCES = {source.name: source for source in (ACCIDENT, EARTHQUAKE)}
PUBLISHED_TEST = "published_test"  # folds select checkpoints; test = the test folder
CROSS_VALIDATION = "cross_validation"  # fold k is test, fold k + 1 valid, the rest train
PROTOCOLS = (PUBLISHED_TEST, CROSS_VALIDATION)


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


def valid_fold_of(protocol: str, fold: int, n_folds: int) -> int:
    """The validation fold: ``fold`` under ``published_test``, the next fold (cyclically)
    under ``cross_validation``, where ``fold`` is the test fold."""
    return fold if protocol == PUBLISHED_TEST else (fold + 1) % n_folds


class BarzilayLapataReader(PublishedReader):
    """``corpus``: ``accident`` or ``earthquake``; ``protocol``: what the ``n_folds`` folds
    of the training articles are for, ``fold``: the validation fold (``published_test``)
    or the test fold (``cross_validation``); see the module docstring."""

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
        protocol: str = PUBLISHED_TEST,
    ) -> None:
        if corpus not in CORPORA:
            raise ValueError(f"corpus must be one of {CORPORA}, got {corpus!r}")
        if protocol not in PROTOCOLS:
            raise ValueError(f"dataset.protocol must be one of {PROTOCOLS}, got {protocol!r}")
        if not 0 <= fold < n_folds:
            raise ValueError(f"need 0 <= fold < n_folds, got fold={fold}, n_folds={n_folds}")
        if protocol == CROSS_VALIDATION and n_folds < 3:
            raise ValueError(
                f"dataset.protocol={CROSS_VALIDATION} needs n_folds >= 3 (a test, a validation "
                f"and a training fold), got n_folds={n_folds}"
            )
        super().__init__(path)
        self.corpus = corpus
        self.protocol = str(protocol)
        self.fold, self.n_folds, self.fold_seed = int(fold), int(n_folds), int(fold_seed)
        self.pattern = str(pattern)
        self.strip_ids = bool(strip_ids)
        self.train_folder, self.test_folder = str(train_folder), str(test_folder)
        self._reported: set[Path] = set()  # folders whose layout was logged

    @property
    def source(self) -> DatasetSource:
        return CORPUS_SOURCES[self.corpus]

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
        """Every article file read: both folders, the training folder alone under
        ``cross_validation``."""
        folders = [self.train_folder]
        if self.protocol == PUBLISHED_TEST:
            folders.append(self.test_folder)
        return [path for folder in folders for path in self._folder(folder).articles]

    def fingerprint(self) -> dict:
        """As ``PublishedReader``'s; ``protocol`` only when it is not the default, so the
        default's fingerprint (and processed-data cache entry) is the one it always had."""
        fingerprint = super().fingerprint()
        if self.protocol == PUBLISHED_TEST:
            fingerprint.pop("protocol", None)
        return fingerprint

    def _document(self, path: Path) -> Document:
        meta = {"file": f"{path.parent.name}/{path.name}"}
        sentences = tuple(text for _, text in self._lines(path))
        if not sentences:
            raise DataFormatError(f"{location(path)}: no sentences (expected one per line)")
        return Document(id=path.name, sentences=sentences, meta=meta)

    def _lines(self, path: Path) -> list[tuple[int, str]]:
        return published_sentences(path, self.strip_ids)

    @property
    def valid_fold(self) -> int:
        return valid_fold_of(self.protocol, self.fold, self.n_folds)

    @property
    def test_fold(self) -> int | None:
        """The fold that is the test split (``cross_validation``); None under
        ``published_test``, where the test folder is."""
        return self.fold if self.protocol == CROSS_VALIDATION else None

    def _training_articles(self) -> tuple[list[Document], dict[str, int]]:
        """The training articles and the fold of each (``fold_of``, twins together)."""
        train = self._folder(self.train_folder).articles
        if len(train) < self.n_folds:
            raise ValueError(
                f"{len(train)} training articles cannot make {self.n_folds} folds; "
                "lower dataset.reader.n_folds"
            )
        documents = [self._document(p) for p in train]
        folds = fold_of([d.id for d in documents], self.n_folds, self.fold_seed, twins(documents))
        return documents, folds

    def _refuse_shared_names(self, documents: list[Document]) -> None:
        """Under ``cross_validation`` a training article is keyed by its name as a test
        document (``data.shuffle``): a name in both folders would give two texts one key."""
        names = {p.name for p in self._folder(self.test_folder).articles}
        shared = sorted(d.id for d in documents if d.id in names)
        if shared:
            raise DataFormatError(
                f"{len(shared)} file names are in both {self.train_folder}/ and "
                f"{self.test_folder}/ (e.g. {shared[0]}): under dataset.protocol="
                f"{CROSS_VALIDATION} a training article is a test document under its own "
                "name, and the fixed test permutations are keyed by it; rename the files"
            )

    def read_splits(self) -> dict[str, list[Document]]:
        documents, folds = self._training_articles()
        if self.protocol == PUBLISHED_TEST:
            return {
                "train": [d for d in documents if folds[d.id] != self.fold],
                "valid": [d for d in documents if folds[d.id] == self.fold],
                "test": [self._document(p) for p in self._folder(self.test_folder).articles],
            }
        if (self.root() / self.test_folder).is_dir():
            self._refuse_shared_names(documents)
        held_out = (self.fold, self.valid_fold)
        return {
            "train": [d for d in documents if folds[d.id] not in held_out],
            "valid": [d for d in documents if folds[d.id] == self.valid_fold],
            "test": [d for d in documents if folds[d.id] == self.fold],
        }

    def split_protocol(self) -> dict:
        """What the splits are and every training article's fold, for the run record and
        the datacard: ``protocol``, ``n_folds``, ``fold_seed``, ``valid_fold``,
        ``test_fold`` (None: the test folder is the test split), ``test`` (in words),
        ``folds`` (``{article id: fold}``, sorted by id)."""
        _, folds = self._training_articles()
        test = (
            f"the {self.test_folder}/ folder"
            if self.protocol == PUBLISHED_TEST
            else f"fold {self.fold} of the training articles"
        )
        return {
            "protocol": self.protocol,
            "n_folds": self.n_folds,
            "fold_seed": self.fold_seed,
            "valid_fold": self.valid_fold,
            "test_fold": self.test_fold,
            "test": test,
            "assignment": "seeded permutation of the sorted file names dealt round-robin; "
            "identical articles share the fold of the first",
            "folds": {name: folds[name] for name in sorted(folds)},
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
        refused.

        Under ``cross_validation`` the test articles are the test fold of the training
        articles, and ``folder`` holds the published permutations of the training articles
        (e.g. ``accident_perms/train``); the copies of the other folds are left out. A
        folder with no copy of any test article is refused (the permutations of the test
        folder belong to the other protocol)."""
        if self.protocol == PUBLISHED_TEST:
            articles = self._folder(self.test_folder).articles
            documents = [self._document(p) for p in articles]
            directory = self.root() / self.test_folder if folder is None else Path(folder)
            copies = scan_folder(directory, self.pattern, self.source, need_gold=False).copies
            return permutation_orders(articles, documents, copies, self._lines)
        paths = {p.name: p for p in self._folder(self.train_folder).articles}
        training, folds = self._training_articles()
        documents = [d for d in training if folds[d.id] == self.fold]
        articles = [paths[d.id] for d in documents]
        directory = self.root() / self.train_folder if folder is None else Path(folder)
        held_out = {article_key(p.name)[0] for p in articles}
        copies = [
            p
            for p in scan_folder(directory, self.pattern, self.source, need_gold=False).copies
            if article_key(p.name)[0] in held_out
        ]
        if not copies:
            raise DataFormatError(
                f"{directory} holds no permutation of the {len(articles)} test articles of "
                f"dataset.protocol={CROSS_VALIDATION} (fold {self.fold} of the training "
                "articles): point dataset.perm_path at the published permutations of the "
                "training articles (Accidents: accident_perms/train, as "
                "+reproduce=accident_cv does), or use discrimination.permutations=own"
            )
        return permutation_orders(articles, documents, copies, self._lines)
