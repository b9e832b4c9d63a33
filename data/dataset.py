"""Map-style dataset of presented documents, keyed by (document index, epoch).

Evaluation splits use one fixed permutation per document (``data.shuffle.eval_permutation``,
computed once); the training split draws ``train_permutation(seed, epoch, index)``. In the
noise setting (``data.noise``) the same holds for the distractors: fixed lists for
evaluation, ``train_distractors(noise, seed, epoch, index)`` for training.
"""

from __future__ import annotations

from torch.utils.data import Dataset

from data.collate import Example, make_example
from data.noise import Distractor, present, train_distractors
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
        noise: str = "0",  # `data.noise.noise_setting`: "0", "1" or "0/1"
        fixed_distractors: list[list[Distractor]] | None = None,  # evaluation splits
    ) -> None:
        self.doc_ids = doc_ids
        self.token_ids = token_ids
        self.texts = texts
        self.max_tokens = max_tokens
        self.fixed_permutations = fixed_permutations
        self.seed = seed
        self.noise = noise
        self.fixed_distractors = fixed_distractors
        self.lengths = [len(doc) for doc in token_ids]  # sentences per document

    def __len__(self) -> int:
        return len(self.doc_ids)

    def permutation(self, index: int, epoch: int) -> list[int]:
        if self.fixed_permutations is not None:
            return self.fixed_permutations[index]
        return train_permutation(self.seed, epoch, index, len(self.token_ids[index]))

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
        return make_example(
            self.doc_ids[index],
            self.token_ids[index],
            present(self.permutation(index, epoch), distractors),
            self.max_tokens,
            None if self.texts is None else self.texts[index],
            [self._sentence(d) for d in distractors],
        )

    def _sentence(self, distractor: Distractor) -> tuple[list[int], str | None]:
        """(word ids, text) of a distractor's sentence."""
        text = None if self.texts is None else self.texts[distractor.doc][distractor.sentence]
        return self.token_ids[distractor.doc][distractor.sentence], text

    def sizes(self) -> list[tuple[int, int]]:
        """(sentences, longest truncated sentence) per document, for bucketing (without
        distractors: a batch may come out a sentence longer)."""
        return [
            (len(doc), max(min(max(len(s), 1), self.max_tokens) for s in doc))
            for doc in self.token_ids
        ]
