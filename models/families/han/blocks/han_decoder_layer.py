"""One block of the hierarchical attention network's decoder.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI),
decoder: a Transformer-style block over the sequence of sentences placed so far, with
ReLU-projected attentions (`ReLUMultiHeadAttention`): from the block input X, masked
self-attention A = MultiHead(X, X_<=k) and attention over the sentence encoder outputs
B = MultiHead(X, E), mixed by the model's fusion gate, LayerNorm(G * A + (1 - G) * B)
(`FusionGate`) — the structure of the authors' public TensorFlow code.

Self-attention takes its keys and values from `placed`: the projections ReLU(X W_K),
ReLU(X W_V) of the block's inputs at every position up to and including the queries' own
(`self_keys`), so the same code runs all steps at once (teacher forcing, `placed` projected
from all the inputs, causal `self_allowed`) or one step on a cache of the projected prefix,
where each step projects its one new position only. The encoder attention's keys
ReLU(E W_K) and values ReLU(E W_V) do not change while decoding: `encoder_keys` projects
them once per document. Both attentions go through `ReLUMultiHeadAttention.attend_projected`.
"""

from torch import Tensor, nn

from models.families.han.blocks.gate import FusionGate
from models.families.han.blocks.relu_attention import ReLUMultiHeadAttention


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

    def self_keys(self, inputs: Tensor) -> tuple[Tensor, Tensor]:
        """inputs X (R, L, d) -> the self-attention's keys ReLU(X W_K) and values
        ReLU(X W_V) at those positions, each (R, H, L, d_k); positions are independent, so
        a prefix's projections are its positions' projections concatenated (dim 2)."""
        return self.self_attention.project_keys(inputs)

    def forward(
        self,
        inputs: Tensor,
        placed: tuple[Tensor, Tensor],
        self_allowed: Tensor | None,
        encoded: tuple[Tensor, Tensor],
        real: Tensor,
    ) -> Tensor:
        """inputs X (R, L, d) queries; placed the self-attention's keys and values
        (R, H, P, d_k) of the inputs at positions 0..P-1 (the queries' own included, from
        `self_keys`); self_allowed bool (1, L, P) or None; encoded the keys and values of
        the encoder outputs E from `encoder_keys`; real (R, N) real sentences -> (R, L, d)."""
        attention = self.self_attention.attend_projected(inputs, *placed, self_allowed)
        attention = self.dropout(attention)  # A
        attended = self.encoder_attention.attend_projected(inputs, *encoded, real.unsqueeze(1))
        return self.gate(attention, self.dropout(attended))  # B = attended
