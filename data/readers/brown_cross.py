"""Cross-domain sentence ordering on the Brown corpus (Francis & Kucera 1964/1979): train on
the paragraphs of some genres, test on those of others.

The Brown reader splits the corpus by source file, stratified by genre, and a genre's split
does not depend on which other genres are read (``data.splits.group_split``). This reader
reads the union of ``train_genres`` and ``test_genres`` with those same splits and keeps

- ``train``: train-split paragraphs of ``train_genres``;
- ``valid``: valid-split paragraphs of ``train_genres`` (model selection stays in the
  training domain);
- ``test``: test-split paragraphs of ``test_genres``.

So no text is on two sides, even when the genre lists overlap, and the test split is
exactly that of the in-domain subset (e.g. ``dataset=brown_fiction``): a cross-domain and
an in-domain run are scored on the same paragraphs. Genres differ in size (news has 324
training paragraphs, fiction 2,222), so ``train_docs: N`` keeps a seeded random sample of
N training paragraphs (in corpus order) for comparisons at equal training size. Other
options are the Brown reader's.
"""

from __future__ import annotations

import numpy as np

from data.document import Document
from data.readers.base import OptionsReader
from data.readers.brown import BrownReader


class BrownCrossDomainReader(OptionsReader):
    """``train_genres`` / ``test_genres``: Brown genre names (``cats.txt``); ``train_docs``
    / ``sample_seed``: optional training sample size and its seed; ``brown``: further
    ``BrownReader`` options (path, sentence limits, split seed ...)."""

    KIND = "brown_cross"
    TEXT_SHAREABLE = True  # Brown's text (data.readers.brown)

    def __init__(
        self,
        train_genres: list[str],
        test_genres: list[str],
        train_docs: int | None = None,
        sample_seed: int = 0,
        **brown: object,
    ) -> None:
        if not train_genres or not test_genres:
            raise ValueError("train_genres and test_genres must both name at least one genre")
        if train_docs is not None and train_docs < 1:
            raise ValueError(f"train_docs must be >= 1 or null, got {train_docs}")
        self.train_genres = [str(g) for g in train_genres]
        self.test_genres = [str(g) for g in test_genres]
        self.train_docs = None if train_docs is None else int(train_docs)
        self.sample_seed = int(sample_seed)
        genres = sorted(set(self.train_genres) | set(self.test_genres))
        self._brown = BrownReader(genres=genres, **brown)
        self.brown = self._brown.options()

    def fingerprint(self) -> dict:
        return {**super().fingerprint(), "brown_version": BrownReader.VERSION}

    def read_splits(self) -> dict[str, list[Document]]:
        splits = self._brown.read_splits()

        def keep(split: str, genres: list[str]) -> list[Document]:
            return [doc for doc in splits[split] if doc.meta["genre"] in genres]

        return {
            "train": self._sample(keep("train", self.train_genres)),
            "valid": keep("valid", self.train_genres),
            "test": keep("test", self.test_genres),
        }

    def _sample(self, train: list[Document]) -> list[Document]:
        if self.train_docs is None:
            return train
        if self.train_docs > len(train):
            raise ValueError(
                f"train_docs={self.train_docs} but {self.train_genres} have {len(train)} "
                "training paragraphs"
            )
        chosen = np.random.default_rng(self.sample_seed).permutation(len(train))[: self.train_docs]
        return [train[i] for i in sorted(chosen)]
