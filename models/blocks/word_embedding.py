"""Word embedding layer, optionally initialised from pretrained vectors.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network":
words are looked up in an embedding matrix initialised from pretrained vectors and
fine-tuned end to end. Index 0 is <pad> (its row is zero and receives no gradient);
every other row, pretrained or not, is trainable. `word_embedding` is the one every
word-level preset starts from.
"""

import torch
from torch import Tensor, nn

PAD = 0
DEFAULT_EMBEDDING_DIM = 100  # width when no pretrained vectors are given (GloVe-100d size)


class WordEmbedding(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        dim: int,  # embedding width; must match pretrained's second dimension when given
        pretrained: Tensor | None = None,  # (vocab_size, dim) initial vectors; None: random
        dropout: float = 0.0,  # dropout on the word vectors
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=PAD)
        if pretrained is not None:
            if tuple(pretrained.shape) != (vocab_size, dim):
                raise ValueError(
                    f"pretrained embeddings have shape {tuple(pretrained.shape)}, "
                    f"expected (vocab_size, dim) = ({vocab_size}, {dim})"
                )
            with torch.no_grad():
                self.embedding.weight.copy_(pretrained)
                self.embedding.weight[PAD].zero_()
        self.dropout = nn.Dropout(dropout)
        self.dim = dim

    def forward(self, ids: Tensor) -> Tensor:
        """ids (...,) word ids -> (..., dim)."""
        return self.dropout(self.embedding(ids))


def word_embedding(
    vocab_size: int, pretrained: Tensor | None, dim: int | None, dropout: float
) -> WordEmbedding:
    """(V, d) pretrained vectors or None, and the requested width (None: the vectors',
    else DEFAULT_EMBEDDING_DIM) -> a fine-tuned word embedding."""
    if pretrained is not None and dim is not None and pretrained.shape[-1] != dim:
        raise ValueError(
            f"embedding_dim={dim} but pretrained_embeddings have width {pretrained.shape[-1]}"
        )
    if dim is None:
        dim = DEFAULT_EMBEDDING_DIM if pretrained is None else pretrained.shape[-1]
    return WordEmbedding(vocab_size, dim, pretrained=pretrained, dropout=dropout)
