"""Self-attention sentence encoder with sinusoidal word positions, mean-pooled.

Cui et al. (2018), "Deep Attentive Sentence Ordering Network", the ATTOrderNet(ATT)
variant of its experiments: the BiLSTM sentence encoder replaced by a stack of Transformer
encoder layers (Vaswani et al. 2017: multi-head self-attention + position-wise
feed-forward, each with a post-LayerNorm residual) over the word vectors plus sinusoidal
position encodings (4 layers, 5 heads in the paper); the sentence vector is the mean of
the top layer over the sentence's words. Padding words are masked as keys; padding
sentences give zero vectors.
"""

from torch import Tensor, nn

from models.masked_ops import encode_nonempty, length_mask, masked_mean
from models.positional_encoding import sinusoidal_positions


class SentenceSelfAttention(nn.Module):
    def __init__(
        self,
        input_dim: int,  # word vector width = layer width; divisible by heads
        num_layers: int = 4,  # Transformer encoder layers (paper: 4)
        heads: int = 5,  # attention heads (paper: 5)
        ff_dim: int = 1024,  # feed-forward width
        dropout: float = 0.1,  # inside the layers and on the sentence vectors
    ):
        super().__init__()
        if input_dim % heads:
            raise ValueError(f"word vector width {input_dim} is not divisible by heads={heads}")
        self.output_dim = input_dim
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(input_dim, heads, ff_dim, dropout, batch_first=True)
            for _ in range(num_layers)
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, words: Tensor, lengths: Tensor) -> Tensor:
        """words (S, T, e), lengths (S,) -> (S, e)."""
        return self.dropout(encode_nonempty(self._encode, words, lengths, self.output_dim))

    def _encode(self, words: Tensor, lengths: Tensor) -> Tensor:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> (S', e)."""
        _, num_words, dim = words.shape
        real = length_mask(lengths, num_words)  # (S', T)
        hidden = words + sinusoidal_positions(num_words, dim, words.device)  # (S', T, e)
        for layer in self.layers:
            hidden = layer(hidden, src_key_padding_mask=~real)  # (S', T, e)
        return masked_mean(hidden, real)
