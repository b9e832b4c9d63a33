"""The fusion gate of the hierarchical attention network.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering": two
representations E and C of the same positions are mixed by a sigmoid gate,
    G = sigmoid(E W_in + C W_out + b),   F = G * E + (1 - G) * C,
followed by LayerNorm. W_in, W_out map to one value per position (a scalar gate, as in
the authors' public TensorFlow code). HAN's sentence-level blocks use it in place of a
residual connection (E = block input, C = its self-attention context); its decoder blocks
use it to mix masked self-attention with attention over the encoder.
"""

from torch import Tensor, nn


class FusionGate(nn.Module):
    def __init__(self, dim: int):  # width of E and C
        super().__init__()
        self.w_in = nn.Linear(dim, 1)  # its bias is b
        self.w_out = nn.Linear(dim, 1, bias=False)
        self.norm = nn.LayerNorm(dim)

    def forward(self, first: Tensor, second: Tensor) -> Tensor:
        """E (..., d), C (..., d) -> LayerNorm(G * E + (1 - G) * C) (..., d)."""
        gate = (self.w_in(first) + self.w_out(second)).sigmoid()  # G (..., 1)
        return self.norm(gate * first + (1 - gate) * second)
