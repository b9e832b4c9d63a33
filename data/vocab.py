"""Word vocabulary: ``<pad>`` = 0, ``<unk>`` = 1, then words by descending frequency."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

PAD, UNK = "<pad>", "<unk>"
PAD_ID, UNK_ID = 0, 1


class Vocab:
    """Bidirectional word <-> id map built from training tokens."""

    def __init__(self, itos: Sequence[str]) -> None:
        if list(itos[:2]) != [PAD, UNK]:
            raise ValueError(f"a vocabulary starts with {PAD!r}, {UNK!r}; got {list(itos[:2])}")
        self.itos = list(itos)
        self.stoi = {word: i for i, word in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("vocabulary entries must be unique")

    @classmethod
    def build(
        cls, token_lists: Iterable[Iterable[str]], min_freq: int = 1, max_size: int | None = None
    ) -> Vocab:
        """Words seen at least ``min_freq`` times, most frequent first (ties alphabetical);
        ``max_size`` caps the total size including the two special entries."""
        return cls.from_counts(
            Counter(token for tokens in token_lists for token in tokens), min_freq, max_size
        )

    @classmethod
    def from_counts(
        cls, counts: Mapping[str, int], min_freq: int = 1, max_size: int | None = None
    ) -> Vocab:
        """``build`` from the words' counts already made."""
        if min_freq < 1:
            raise ValueError(f"min_freq must be >= 1, got {min_freq}")
        if max_size is not None and max_size < 2:
            raise ValueError(f"max_size must be >= 2 (room for {PAD} and {UNK}), got {max_size}")
        counts = dict(counts)
        counts.pop(PAD, None)
        counts.pop(UNK, None)
        words = sorted(
            (w for w, c in counts.items() if c >= min_freq), key=lambda w: (-counts[w], w)
        )
        if max_size is not None:
            words = words[: max_size - 2]
        return cls([PAD, UNK, *words])

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, word: str) -> bool:
        return word in self.stoi

    def encode(self, tokens: Iterable[str]) -> list[int]:
        return [self.stoi.get(token, UNK_ID) for token in tokens]

    def to_json(self) -> str:
        return json.dumps({"itos": self.itos}, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), "utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Vocab:
        return cls(json.loads(Path(path).read_text("utf-8"))["itos"])
