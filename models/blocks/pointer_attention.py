"""Additive pointer attention of Pointer Networks.

Vinyals, Fortunato and Jaitly (2015), "Pointer Networks", eq. (3):
    u_j^k = v^T tanh(W1 e_j + W2 d_k)
scores input position j (encoder output e_j) at decoder step k (decoder state d_k).
Used as the sentence pointer by Gong et al. (2016) and Cui et al. (2018).

The tanh is computed through the sigmoid, tanh(x) = 2 sigmoid(2x) - 1, so
    u_j^k = 2 v^T sigmoid(2 (W1 e_j + W2 d_k)) - sum(v):
the same scores to float rounding, at a fraction of the cost on CPUs where PyTorch's float32
`tanh` is much slower than its `sigmoid` (the measurements are in docs/performance.md).
"""

from torch import Tensor, nn


class AdditivePointer(nn.Module):
    def __init__(
        self,
        context_dim: int,  # width of the encoder outputs e_j
        query_dim: int,  # width of the decoder states d_k
        attention_dim: int,  # width of the tanh layer (rows of W1 and W2)
    ):
        super().__init__()
        self.w1 = nn.Linear(context_dim, attention_dim, bias=False)
        self.w2 = nn.Linear(query_dim, attention_dim, bias=False)
        self.v = nn.Linear(attention_dim, 1, bias=False)

    def keys(self, contexts: Tensor) -> Tensor:
        """contexts (B, N, c) -> W1 e_j (B, N, a); computed once per document."""
        return self.w1(contexts)

    def forward(self, keys: Tensor, queries: Tensor) -> Tensor:
        """keys (B, N, a) from `keys`, queries (B, M, q) decoder states -> scores (B, M, N)."""
        projected = self.w2(queries)  # (B, M, a)
        hidden = keys.unsqueeze(1) + projected.unsqueeze(2)  # (B, M, N, a)
        gates = hidden.mul_(2.0).sigmoid_()  # sigmoid(2x), in place: (B, M, N, a)
        return self.v(gates).squeeze(-1) * 2.0 - self.v.weight.sum()  # (B, M, N)
