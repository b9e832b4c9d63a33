"""Map-style dataset of presented documents, keyed by (document index, epoch).

Evaluation splits use one fixed permutation per document (``data.shuffle.eval_permutation``,
computed once); the training split draws ``train_permutation(seed, epoch, index)``.
"""

from __future__ import annotations

from torch.utils.data import Dataset

from data.collate import Example, make_example
from data.shuffle import train_permutation


class OrderingDataset(Dataset):
    def __init__(
        self,
        doc_ids: list[str],
        token_ids: list[list[list[int]]],
        max_tokens: int,
        fixed_permutations: list[list[int]] | None = None,
        seed: int = 0,
        texts: list[list[str]] | None = None,  # raw sentences (gold order), for text encoders
    ) -> None:
        self.doc_ids = doc_ids
        self.token_ids = token_ids
        self.texts = texts
        self.max_tokens = max_tokens
        self.fixed_permutations = fixed_permutations
        self.seed = seed

    def __len__(self) -> int:
        return len(self.doc_ids)

    def permutation(self, index: int, epoch: int) -> list[int]:
        if self.fixed_permutations is not None:
            return self.fixed_permutations[index]
        return train_permutation(self.seed, epoch, index, len(self.token_ids[index]))

    def __getitem__(self, key: tuple[int, int]) -> Example:
        index, epoch = key
        return make_example(
            self.doc_ids[index],
            self.token_ids[index],
            self.permutation(index, epoch),
            self.max_tokens,
            None if self.texts is None else self.texts[index],
        )

    def sizes(self) -> list[tuple[int, int]]:
        """(sentences, longest truncated sentence) per document, for bucketing."""
        return [
            (len(doc), max(min(max(len(s), 1), self.max_tokens) for s in doc))
            for doc in self.token_ids
        ]
