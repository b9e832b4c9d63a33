"""Map-style dataset of presented documents, keyed by (document index, epoch).

The documents are one split's memory-mapped columns (``data.columns.SplitColumns``):
``__getitem__`` slices one document's word ids and text from them, so loader workers and
DDP ranks read the same pages instead of each holding a copy.

Evaluation splits use one fixed permutation per document (``data.shuffle.eval_permutation``,
computed once, kept as one flat int32 array); the training split draws
``train_permutation(seed, epoch, index)``. In the noise setting (``data.noise``) the same
holds for the distractors: fixed lists for evaluation, ``train_distractors(noise, seed,
epoch, index)`` for training.
"""

from __future__ import annotations

import numpy as np

from data.bucketing import bucket_sizes
from data.columns import SplitColumns
from data.example import Example, make_example
from data.noise import Distractor, present, train_distractors
from data.shuffle import train_permutation


class FixedPermutations:
    """One fixed permutation per document of ``sentence_counts`` sentences, all in one flat
    int32 array (set one by one)."""

    def __init__(self, sentence_counts: np.ndarray) -> None:
        self.offsets = np.zeros(len(sentence_counts) + 1, dtype=np.int64)
        np.cumsum(sentence_counts, out=self.offsets[1:])
        self.values = np.zeros(int(self.offsets[-1]), dtype=np.int32)

    def __setitem__(self, index: int, permutation: list[int]) -> None:
        self.values[self.offsets[index] : self.offsets[index + 1]] = permutation

    def __getitem__(self, index: int) -> list[int]:
        return self.values[self.offsets[index] : self.offsets[index + 1]].tolist()

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def tolist(self) -> list[list[int]]:
        return [self[i] for i in range(len(self))]


class OrderingDataset:
    """The presented documents of one split, map-style (``len``, and ``[(index, epoch)]``
    as the batch sampler asks, ``data.sampler``), what torch's DataLoader reads."""

    def __init__(
        self,
        documents: SplitColumns,
        max_tokens: int,
        fixed_permutations: FixedPermutations | None = None,
        seed: int = 0,
        noise: str = "0",  # `data.noise.noise_setting`: "0", "1" or "0/1"
        fixed_distractors: list[list[Distractor]] | None = None,  # evaluation splits
    ) -> None:
        self.documents = documents
        self.max_tokens = max_tokens
        self.fixed_permutations = fixed_permutations
        self.seed = seed
        self.noise = noise
        self.fixed_distractors = fixed_distractors
        self.lengths = documents.sentence_counts  # (documents,) sentences per document

    def __len__(self) -> int:
        return len(self.documents)

    def permutation(self, index: int, epoch: int) -> list[int]:
        if self.fixed_permutations is not None:
            return self.fixed_permutations[index]
        return train_permutation(self.seed, epoch, index, int(self.lengths[index]))

    def distractors(self, index: int, epoch: int) -> list[Distractor]:
        """The distractors presented with document ``index`` at ``epoch`` (none without noise)."""
        if self.fixed_distractors is not None:
            return self.fixed_distractors[index]
        if self.noise == "0":
            return []
        return train_distractors(self.noise, self.seed, epoch, index, self.lengths)

    def __getitem__(self, key: tuple[int, int]) -> Example:
        index, epoch = key
        distractors = self.distractors(index, epoch)
        doc_id, token_ids, texts = self.documents.parts(index)
        return make_example(
            doc_id,
            token_ids,
            present(self.permutation(index, epoch), distractors),
            self.max_tokens,
            texts,
            [self.documents.sentence(d.doc, d.sentence) for d in distractors],
        )

    def sizes(self, bucket_by: str = "shape") -> np.ndarray:
        """(documents, 2) sort keys for length-aware batches (`data.bucketing`)."""
        return bucket_sizes(self.documents, self.lengths, self.max_tokens, bucket_by)
