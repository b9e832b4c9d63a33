"""Multi-head attention with ReLU projections, the attention of the hierarchical
attention network for sentence ordering.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI): scaled
dot-product attention (Vaswani et al. 2017, eq. 1) whose queries, keys and values are
ReLU-activated linear projections, the heads concatenated:
    head_i = softmax(ReLU(Q W^Q)_i ReLU(K W^K)_i^T / sqrt(d_k)) ReLU(K W^V)_i,
    MultiHead(Q, K) = [head_1; ...; head_H],
with d_k = model_dim / H. Used by HAN's word-level attention, its gated sentence-level
blocks and its decoder blocks.
"""

import math

import torch
from torch import Tensor, nn


class ReLUMultiHeadAttention(nn.Module):
    def __init__(
        self,
        query_dim: int,  # width of the queries
        model_dim: int,  # width of the projections and of the output; divisible by heads
        heads: int,  # H
        dropout: float = 0.0,  # on the attention weights
        key_dim: int | None = None,  # width of keys/values; None: query_dim
    ):
        super().__init__()
        if model_dim % heads:
            raise ValueError(f"model_dim={model_dim} is not divisible by heads={heads}")
        key_dim = key_dim or query_dim
        self.heads = heads
        self.head_dim = model_dim // heads
        self.w_q = nn.Linear(query_dim, model_dim)
        self.w_k = nn.Linear(key_dim, model_dim)
        self.w_v = nn.Linear(key_dim, model_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        queries: Tensor,
        keys: Tensor,
        allowed: Tensor | None = None,
        dropout_mask: Tensor | None = None,
    ) -> Tensor:
        """queries (B, Lq, q), keys (B, Lk, k), allowed bool broadcastable to (B, Lq, Lk)
        (None: attend everywhere) -> (B, Lq, model_dim). `dropout_mask` (B, H, Lq, Lk), if
        given, is the attention dropout's mask (`models.blocks.dropout_masks`), drawn by the
        caller."""
        return self.attend_projected(queries, *self.project_keys(keys), allowed, dropout_mask)

    def project_keys(self, keys: Tensor) -> tuple[Tensor, Tensor]:
        """keys (B, Lk, k) -> their projected keys and values, each (B, H, Lk, d_k); a
        decoder that attends to the same source at every step projects it once."""
        return self._split(self.w_k(keys).relu()), self._split(self.w_v(keys).relu())

    def attend_projected(
        self,
        queries: Tensor,
        k: Tensor,
        v: Tensor,
        allowed: Tensor | None = None,
        dropout_mask: Tensor | None = None,
    ) -> Tensor:
        """queries (B, Lq, q), projected keys and values (B, H, Lk, d_k) from
        `project_keys` -> (B, Lq, model_dim)."""
        q = self._split(self.w_q(queries).relu())  # (B, H, Lq, d_k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)  # (B, H, Lq, Lk)
        if allowed is not None:
            scores = scores.masked_fill(~allowed.unsqueeze(1), torch.finfo(scores.dtype).min)
        weights = scores.softmax(dim=-1)  # (B, H, Lq, Lk)
        weights = self.dropout(weights) if dropout_mask is None else weights * dropout_mask
        heads = weights @ v  # (B, H, Lq, d_k)
        batch, _, length, _ = heads.shape
        return heads.transpose(1, 2).reshape(batch, length, -1)  # (B, Lq, H * d_k)

    def _split(self, projected: Tensor) -> Tensor:
        """(B, L, H * d_k) -> (B, H, L, d_k)."""
        batch, length, _ = projected.shape
        return projected.view(batch, length, self.heads, self.head_dim).transpose(1, 2)
