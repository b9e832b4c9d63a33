"""Word embedding layer, optionally initialised from pretrained vectors.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network":
words are looked up in an embedding matrix initialised from pretrained vectors and
fine-tuned end to end. Index 0 is <pad> (its row is zero and receives no gradient);
every other row, pretrained or not, is trainable.
"""

import torch
from torch import Tensor, nn

PAD = 0


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
