"""The pointer of the hierarchical attention network's decoder.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering", decoder
output: the probability of pointing at presented sentence j at step k is
    P = softmax(ReLU(D W_Q) ReLU(E W_K)^T / sqrt(d)),
D the decoder outputs, E the sentence encoder outputs, d the projection width. Same
keys/forward split as `AdditivePointer`: keys are projected once per document.
"""

import math

from torch import Tensor, nn


class ReLUPointer(nn.Module):
    def __init__(
        self,
        context_dim: int,  # width of the encoder outputs E
        query_dim: int,  # width of the decoder outputs D
        dim: int,  # d, the projection width
    ):
        super().__init__()
        self.w_k = nn.Linear(context_dim, dim)
        self.w_q = nn.Linear(query_dim, dim)
        self.scale = 1.0 / math.sqrt(dim)

    def keys(self, contexts: Tensor) -> Tensor:
        """contexts E (B, N, c) -> ReLU(E W_K) (B, N, d); computed once per document."""
        return self.w_k(contexts).relu()

    def forward(self, keys: Tensor, queries: Tensor) -> Tensor:
        """keys (B, N, d) from `keys`, queries D (B, M, q) -> scores (B, M, N) (pre-softmax)."""
        return self.w_q(queries).relu() @ keys.transpose(1, 2) * self.scale
