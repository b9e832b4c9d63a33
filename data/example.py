"""One document as presented to a model: its sentences in the presented (shuffled) order,
as word ids and, for encoders that read text, as text (``data.collate`` batches them).

Sentences longer than ``max_tokens`` are truncated (their first ``max_tokens`` tokens); an
empty sentence becomes one <unk>.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from data.vocab import UNK_ID


@dataclass(frozen=True, eq=False)
class Example:
    """One document as presented to a model; equal to another that presents the same."""

    doc_id: str
    sentences: list[Sequence[int]]  # word ids of each presented sentence (lists, or int
    # arrays: views of the memory-mapped columns, data.columns)
    sentence_ids: list[int]  # gold id of each presented sentence
    texts: list[str] | None = None  # raw text of each presented sentence, when known

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Example):
            return NotImplemented
        return (
            (self.doc_id, self.sentence_ids, self.texts)
            == (other.doc_id, other.sentence_ids, other.texts)
            and len(self.sentences) == len(other.sentences)
            and all(np.array_equal(a, b) for a, b in zip(self.sentences, other.sentences,
                                                          strict=True))
        )  # fmt: skip


def make_example(
    doc_id: str,
    token_ids: Sequence[Sequence[int]],
    permutation: list[int],
    max_tokens: int,
    texts: list[str] | None = None,
    distractors: Sequence[tuple[Sequence[int], str | None]] = (),
) -> Example:
    """Present the sentences of a document (gold order ``token_ids``, and ``texts`` when
    given) as ``permutation``; an id -k in it presents ``distractors[k - 1]``, the (word
    ids, text) of a sentence from another document (``data.noise``)."""
    words = [token_ids[i] if i >= 0 else distractors[-i - 1][0] for i in permutation]
    sentences = [ids[:max_tokens] if len(ids) else [UNK_ID] for ids in words]
    presented_texts = None
    if texts is not None:
        presented_texts = [texts[i] if i >= 0 else distractors[-i - 1][1] for i in permutation]
    return Example(doc_id, sentences, list(permutation), presented_texts)
