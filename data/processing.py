"""Tokenise documents, build the vocabulary from the training split (or the splits named)
and encode every sentence to word ids."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from data.document import Document
from data.tokenize import DEFAULT_TOKENIZER, tokenizer_named
from data.vocab import Vocab

TokenIds = list[list[int]]  # one list of word ids per sentence (gold order)
VOCAB_SPLITS = ("train",)  # the default: the vocabulary never sees evaluation text


@dataclass
class ProcessedData:
    """Documents per split, their encoded sentences (same order) and the vocabulary."""

    documents: dict[str, list[Document]]
    token_ids: dict[str, list[TokenIds]]
    vocab: Vocab


def process(
    splits: dict[str, list[Document]],
    min_freq: int = 1,
    max_vocab: int | None = None,
    vocab_splits: Sequence[str] = VOCAB_SPLITS,
    tokenizer: str = DEFAULT_TOKENIZER,
) -> ProcessedData:
    """Tokenise all splits; the vocabulary sees ``vocab_splits`` (default ``train`` only)
    with ``min_freq`` and ``max_vocab``. ``vocab_splits=("train", "valid", "test")`` is
    the released ATTOrderNet code's vocabulary (hwxcby/ATTOrderNet, ``data_vocab.py``: the
    words of all three files), a deviation: evaluation words then get their own rows (and
    pretrained vectors) instead of ``<unk>``; no order information passes. ``tokenizer``
    names one of ``data.tokenize.TOKENIZERS``."""
    unknown = sorted(set(vocab_splits) - set(splits))
    if unknown or not vocab_splits:
        raise ValueError(
            f"vocab_splits must name splits of the dataset ({sorted(splits)}), got "
            f"{list(vocab_splits)}"
        )
    tokenize = tokenizer_named(tokenizer)
    tokens = {
        split: [[tokenize(sentence) for sentence in doc.sentences] for doc in docs]
        for split, docs in splits.items()
    }
    vocab = Vocab.build(
        (sentence for split in vocab_splits for doc in tokens[split] for sentence in doc),
        min_freq,
        max_vocab,
    )
    token_ids = {
        split: [[vocab.encode(sentence) for sentence in doc] for doc in docs]
        for split, docs in tokens.items()
    }
    return ProcessedData(dict(splits), token_ids, vocab)
