"""One block of the hierarchical attention network's decoder.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI),
decoder: a Transformer-style block over the sequence of sentences placed so far, with
ReLU-projected attentions (`ReLUMultiHeadAttention`): from the block input X, masked
self-attention A = MultiHead(X, X_<=k) and attention over the sentence encoder outputs
B = MultiHead(X, E), mixed by the model's fusion gate, LayerNorm(G * A + (1 - G) * B)
(`FusionGate`) — the structure of the authors' public TensorFlow code.

Self-attention takes its keys from `history`, the block's inputs at every position up to
and including the queries' own, so the same code runs all steps at once (teacher forcing,
`history` = the inputs, causal `self_allowed`) or one step on a cached prefix. The
encoder attention's keys ReLU(E W_K) and values ReLU(E W_V) do not change while decoding:
`encoder_keys` projects them once per document, and every step attends to them
(`ReLUMultiHeadAttention.attend_projected`), instead of re-projecting the N encoder
outputs on every row at every step.
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

    def encoder_keys(self, contexts: Tensor) -> tuple[Tensor, Tensor]:
        """contexts E (R, N, d) -> the encoder attention's keys ReLU(E W_K) and values
        ReLU(E W_V), each split into heads (R, H, N, d_k)."""
        return self.encoder_attention.project_keys(contexts)

    def forward(
        self,
        inputs: Tensor,
        history: Tensor,
        self_allowed: Tensor | None,
        encoded: tuple[Tensor, Tensor],
        real: Tensor,
    ) -> Tensor:
        """inputs X (R, L, d) queries; history (R, P, d) the inputs at positions 0..P-1
        (the queries' own included); self_allowed bool (1, L, P) or None; encoded the keys
        and values of the encoder outputs E from `encoder_keys`; real (R, N) real
        sentences -> (R, L, d)."""
        placed = self.dropout(self.self_attention(inputs, history, self_allowed))  # A
        attended = self.encoder_attention.attend_projected(inputs, *encoded, real.unsqueeze(1))
        return self.gate(placed, self.dropout(attended))  # B = attended
