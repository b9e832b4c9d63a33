"""The word embedding every word-level preset starts from."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch import Tensor

    from models.blocks.word_embedding import WordEmbedding

DEFAULT_EMBEDDING_DIM = 100  # width when no pretrained vectors are given (GloVe-100d size)


def word_embedding(
    vocab_size: int, pretrained: Tensor | None, dim: int | None, dropout: float
) -> WordEmbedding:
    """(V, d) pretrained vectors or None, and the requested width (None: the vectors',
    else DEFAULT_EMBEDDING_DIM) -> a fine-tuned word embedding."""
    from models.blocks.word_embedding import WordEmbedding

    if pretrained is not None and dim is not None and pretrained.shape[-1] != dim:
        raise ValueError(
            f"embedding_dim={dim} but pretrained_embeddings have width {pretrained.shape[-1]}"
        )
    if dim is None:
        dim = DEFAULT_EMBEDDING_DIM if pretrained is None else pretrained.shape[-1]
    return WordEmbedding(vocab_size, dim, pretrained=pretrained, dropout=dropout)
