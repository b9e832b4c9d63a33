"""ROCStories, Mostafazadeh et al. (2016), "A Corpus and Evaluation Framework for Deeper
Understanding of Commonsense Stories" (NAACL): five-sentence stories in the published CSV.

Every CSV has a header row with ``storyid``, ``storytitle`` and ``sentence1`` ..
``sentence5``. Ids are the story ids (unique over all files), ``meta = {"title"}``.

- ``split_files: null`` (default): every ``*.csv`` under ``dataset.path`` (e.g. the spring
  2016 and winter 2017 releases) is pooled and split at random, seeded by ``split_seed``:
  ``floor(0.8 n)`` train, ``floor(0.1 n)`` valid, the rest test. For the 98,162 stories of
  the two releases that is the 78,529 / 9,816 / 9,817 split of Wang & Wan (2019), the one
  later ordering papers report on.
- ``split_files: {train: train.csv, valid: valid.csv, test: test.csv}``: a given split.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from data.document import Document
from data.errors import DataFormatError, location
from data.readers.dataset_source import DatasetSource
from data.readers.published import PublishedReader
from data.splits import SPLIT_NAMES

SOURCE = DatasetSource(
    name="roc",
    paper=(
        "Mostafazadeh et al. 2016, A Corpus and Evaluation Framework for Deeper "
        "Understanding of Commonsense Stories (NAACL); split of Wang & Wan 2019"
    ),
    published="https://cs.rochester.edu/nlp/rocstories/ (free, request form)",
    layout=(
        "*.csv with columns storyid, storytitle, sentence1..sentence5 (the spring "
        "2016 and winter 2017 releases), or train.csv/valid.csv/test.csv with "
        "dataset.reader.split_files"
    ),
    licence="free for research, terms of the request form",
    sizes={"train": 78529, "valid": 9816, "test": 9817},
)

SENTENCE_COLUMNS = tuple(f"sentence{k}" for k in range(1, 6))
COLUMNS = ("storyid", "storytitle", *SENTENCE_COLUMNS)
FRACTIONS = (0.8, 0.1)  # train, valid; test gets the rest


def read_stories(path: Path) -> list[tuple[Document, int]]:
    """(story, line number) for every row of one ROCStories CSV."""
    stories = []
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (rows.fieldnames or [])]
        if missing:
            raise DataFormatError(
                f"{location(path, 1)}: missing column(s) {missing}; a ROCStories CSV has "
                f"{', '.join(COLUMNS)}"
            )
        for row in rows:
            where = location(path, rows.line_num)
            sentences = [row[c] for c in SENTENCE_COLUMNS]
            if any(s is None or not s.strip() for s in sentences) or not row["storyid"]:
                raise DataFormatError(f"{where}: empty story id or sentence")
            story = Document(
                row["storyid"], [s.strip() for s in sentences], {"title": row["storytitle"]}
            )
            stories.append((story, rows.line_num))
    if not stories:
        raise DataFormatError(f"{path}: no stories")
    return stories


def split_sizes(n: int) -> list[int]:
    """Train and valid get ``floor(fraction * n)``, test the rest."""
    train, valid = (math.floor(f * n) for f in FRACTIONS)
    return [train, valid, n - train - valid]


def random_split(stories: list[Document], seed: int) -> dict[str, list[Document]]:
    """Seeded split of ``split_sizes``; independent of file order (stories are ranked by id
    before shuffling); each split keeps the input order."""
    ranked = sorted(range(len(stories)), key=lambda i: stories[i].id)
    shuffled = [ranked[i] for i in np.random.default_rng(seed).permutation(len(ranked))]
    split_of = {}
    start = 0
    for split, size in zip(SPLIT_NAMES, split_sizes(len(stories)), strict=True):
        for i in shuffled[start : start + size]:
            split_of[i] = split
        start += size
    return {
        split: [s for i, s in enumerate(stories) if split_of[i] == split] for split in SPLIT_NAMES
    }


class RocReader(PublishedReader):
    """``path``: folder of ROCStories CSVs; ``split_files``: ``null`` for the seeded random
    split of the pooled CSVs, or a mapping split -> file name (see the module docstring)."""

    KIND = "roc"
    source = SOURCE

    def __init__(
        self, path: str | None, split_files: dict[str, str] | None = None, split_seed: int = 0
    ) -> None:
        super().__init__(path)
        if split_files is not None:
            split_files = {str(k): str(v) for k, v in dict(split_files).items()}
            if sorted(split_files) != sorted(SPLIT_NAMES) or len(set(split_files.values())) != 3:
                raise ValueError(
                    f"split_files maps {list(SPLIT_NAMES)} to three different files, "
                    f"got {split_files}"
                )
        self.split_files = split_files
        self.split_seed = int(split_seed)

    def files(self) -> list[Path]:
        root = self.root()
        if self.split_files is not None:
            return [self.require_file(root / self.split_files[split]) for split in SPLIT_NAMES]
        files = sorted(root.glob("*.csv"))
        if not files:
            raise self.source.not_found(f"{root} holds no .csv file")
        return files

    def read_splits(self) -> dict[str, list[Document]]:
        per_file = {path: read_stories(path) for path in self.files()}
        first_seen: dict[str, str] = {}
        for path, stories in per_file.items():
            for story, lineno in stories:
                where = location(path, lineno)
                first = first_seen.setdefault(story.id, where)
                if first != where:
                    raise DataFormatError(
                        f"{where}: duplicate story id {story.id!r} (first at {first})"
                    )
        if self.split_files is not None:
            return {
                split: [story for story, _ in per_file[path]]
                for split, path in zip(SPLIT_NAMES, per_file, strict=True)
            }
        pooled = [story for stories in per_file.values() for story, _ in stories]
        return random_split(pooled, self.split_seed)
