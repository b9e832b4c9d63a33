"""Tokenise documents, build the vocabulary from the training split and encode every
sentence to word ids."""

from __future__ import annotations

from dataclasses import dataclass

from data.document import Document
from data.tokenize import tokenize
from data.vocab import Vocab

TokenIds = list[list[int]]  # one list of word ids per sentence (gold order)


@dataclass
class ProcessedData:
    """Documents per split, their encoded sentences (same order) and the vocabulary."""

    documents: dict[str, list[Document]]
    token_ids: dict[str, list[TokenIds]]
    vocab: Vocab


def process(
    splits: dict[str, list[Document]], min_freq: int = 1, max_vocab: int | None = None
) -> ProcessedData:
    """Tokenise all splits; the vocabulary sees ``train`` only (``min_freq``, ``max_vocab``)."""
    tokens = {
        split: [[tokenize(sentence) for sentence in doc.sentences] for doc in docs]
        for split, docs in splits.items()
    }
    vocab = Vocab.build(
        (sentence for doc in tokens["train"] for sentence in doc), min_freq, max_vocab
    )
    token_ids = {
        split: [[vocab.encode(sentence) for sentence in doc] for doc in docs]
        for split, docs in tokens.items()
    }
    return ProcessedData(dict(splits), token_ids, vocab)
