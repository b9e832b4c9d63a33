"""One block of the hierarchical attention network's decoder.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI),
decoder: a Transformer-style block over the sequence of sentences placed so far, with
ReLU-projected attentions (`ReLUMultiHeadAttention`): from the block input X, masked
self-attention A = MultiHead(X, X_<=k) and attention over the sentence encoder outputs
B = MultiHead(X, E), mixed by the model's fusion gate, LayerNorm(G * A + (1 - G) * B)
(`FusionGate`) — the structure of the authors' public TensorFlow code.

Self-attention takes its keys from `history`, the block's inputs at every position up to
and including the queries' own, so the same code runs all steps at once (teacher forcing,
`history` = the inputs, causal `self_allowed`) or one step on a cached prefix.
"""

from torch import Tensor, nn

from models.gate import FusionGate
from models.relu_attention import ReLUMultiHeadAttention


class HANDecoderLayer(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.self_attention = ReLUMultiHeadAttention(dim, dim, heads, dropout)
        self.encoder_attention = ReLUMultiHeadAttention(dim, dim, heads, dropout)
        self.gate = FusionGate(dim)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        inputs: Tensor,
        history: Tensor,
        self_allowed: Tensor | None,
        contexts: Tensor,
        real: Tensor,
    ) -> Tensor:
        """inputs X (R, L, d) queries; history (R, P, d) the inputs at positions 0..P-1
        (the queries' own included); self_allowed bool (1, L, P) or None; contexts E
        (R, N, d) encoder outputs; real (R, N) real sentences -> (R, L, d)."""
        placed = self.dropout(self.self_attention(inputs, history, self_allowed))  # A
        encoded = self.dropout(self.encoder_attention(inputs, contexts, real.unsqueeze(1)))  # B
        return self.gate(placed, encoded)
