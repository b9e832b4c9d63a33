"""The hierarchical attention network's sentence-level encoder: gated self-attention
blocks over the presented sentences.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI),
sentence encoder: M blocks; block input E (B, N, d), context C = MultiHead(E, E) with ReLU
projections (`ReLUMultiHeadAttention`), output LayerNorm(G * E + (1 - G) * C) with
G = sigmoid(E W_in + C W_out) (`FusionGate`). M = 3 and H = 4 heads in the paper.

No positional encoding (the presented order is a shuffle), padding masked as keys:
permuting the presented sentences permutes the outputs the same way, and their mean (the
paragraph vector, unused by HAN's own decoder) is unchanged. A linear layer maps the
sentence vectors to `model_dim` first when the widths differ.
"""

from torch import Tensor, nn

from models.blocks.masked_ops import masked_mean
from models.families.han.blocks.gate import FusionGate
from models.families.han.blocks.relu_attention import ReLUMultiHeadAttention
from models.interfaces import ParagraphEncoding


class GatedSelfAttentionBlock(nn.Module):
    """One block: C = MultiHead(E, E); F = LayerNorm(G * E + (1 - G) * C)."""

    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.attention = ReLUMultiHeadAttention(dim, dim, heads, dropout)
        self.gate = FusionGate(dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, inputs: Tensor, mask: Tensor) -> Tensor:
        """inputs E (B, N, d), mask (B, N) -> (B, N, d)."""
        context = self.dropout(self.attention(inputs, inputs, mask.unsqueeze(1)))  # C
        return self.gate(inputs, context)


class ParagraphGatedAttention(nn.Module):
    def __init__(
        self,
        input_dim: int,  # sentence vector width
        model_dim: int | None,  # block width; None: input_dim
        num_blocks: int,  # M (the paper's: the han preset's default)
        heads: int,  # H
        dropout: float,  # on attention weights and block contexts
    ):
        super().__init__()
        model_dim = model_dim or input_dim
        self.output_dim = model_dim
        self.project = nn.Linear(input_dim, model_dim) if model_dim != input_dim else None
        self.blocks = nn.ModuleList(
            GatedSelfAttentionBlock(model_dim, heads, dropout) for _ in range(num_blocks)
        )

    def forward(self, sentences: Tensor, mask: Tensor) -> ParagraphEncoding:
        """sentences (B, N, d), mask (B, N) -> contexts (B, N, m) (zeros at padding),
        state (mean of the contexts (B, m),)."""
        hidden = sentences if self.project is None else self.project(sentences)  # (B, N, m)
        for block in self.blocks:
            hidden = block(hidden, mask)  # (B, N, m)
        contexts = hidden * mask.unsqueeze(-1)  # (B, N, m)
        return ParagraphEncoding(contexts, (masked_mean(hidden, mask),))
