"""A small synthetic ordering dataset with a clear, learnable order signal (for tests and
smoke runs).

Sentence ``k`` of a document contains the ordinal cue word of rank ``k`` ("first",
"second", ...) at a random position among random filler words, so the order is recoverable
from sentence content alone (not from any position), yet a model has to find the cue word
inside each sentence. Deterministic in ``seed``; each split has its own generator, so
changing one split's size leaves the others unchanged.
"""

from __future__ import annotations

import numpy as np

from data.document import Document
from data.readers.base import OptionsReader
from data.splits import SPLIT_NAMES

RANK_WORDS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
FILLER_WORDS = (
    "the a cat dog river house green blue small large quickly slowly man woman city road "
    "tree stone bird window table chair book letter music song garden field winter summer "
    "morning evening light water fire paper coffee market village bridge mountain boat "
    "train doctor teacher student friend child door street car ship island forest horse "
    "cloud rain snow wind sea sand glass bread milk apple orange yellow red black white "
    "old new young quiet loud warm cold bright dark happy tired busy open closed near far "
    "walked saw found took gave made kept left read wrote sang built carried painted"
).split()


class SyntheticReader(OptionsReader):
    """``n_train``/``n_valid``/``n_test`` documents of ``min_sentences``..``max_sentences``
    sentences, each of ``min_filler``..``max_filler`` filler words plus its rank word."""

    KIND = "synthetic"
    TEXT_SHAREABLE = True  # made up here

    def __init__(
        self,
        n_train: int = 800,
        n_valid: int = 100,
        n_test: int = 100,
        min_sentences: int = 3,
        max_sentences: int = 7,
        min_filler: int = 3,
        max_filler: int = 8,
        seed: int = 0,
    ) -> None:
        if not 1 <= min_sentences <= max_sentences <= len(RANK_WORDS):
            raise ValueError(
                f"need 1 <= min_sentences <= max_sentences <= {len(RANK_WORDS)}, got "
                f"{min_sentences}..{max_sentences}"
            )
        if not 0 <= min_filler <= max_filler:
            raise ValueError(f"need 0 <= min_filler <= max_filler, got {min_filler}..{max_filler}")
        self.n_train, self.n_valid, self.n_test = n_train, n_valid, n_test
        self.min_sentences, self.max_sentences = min_sentences, max_sentences
        self.min_filler, self.max_filler = min_filler, max_filler
        self.seed = seed

    def _sentence(self, rng: np.random.Generator, rank: int) -> str:
        n_filler = int(rng.integers(self.min_filler, self.max_filler + 1))
        words = [FILLER_WORDS[i] for i in rng.integers(0, len(FILLER_WORDS), n_filler)]
        words.insert(int(rng.integers(0, n_filler + 1)), RANK_WORDS[rank])
        return " ".join(words).capitalize() + "."

    def _split(self, split: str, size: int) -> list[Document]:
        rng = np.random.default_rng([self.seed, SPLIT_NAMES.index(split)])
        documents = []
        for i in range(size):
            n = int(rng.integers(self.min_sentences, self.max_sentences + 1))
            sentences = tuple(self._sentence(rng, rank) for rank in range(n))
            documents.append(Document(id=f"syn-{split}-{i:05d}", sentences=sentences))
        return documents

    def read_splits(self) -> dict[str, list[Document]]:
        sizes = {"train": self.n_train, "valid": self.n_valid, "test": self.n_test}
        return {split: self._split(split, sizes[split]) for split in SPLIT_NAMES}
