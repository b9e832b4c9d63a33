"""Transformer pointer decoder of the hierarchical attention network.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI),
decoder: at step k its input sequence is a learned start vector followed by the sentence
vectors of the sentences placed at steps 0..k-1; `HANDecoderLayer` blocks apply masked
self-attention over that prefix and attention over the sentence encoder outputs E; the top
output d_k points with P = softmax(ReLU(d_k W_Q) ReLU(E W_K)^T / sqrt(d)) (`ReLUPointer`).
Placed and padding sentences are masked.

It implements the step interface of `models.interfaces.PointerDecoder`, so the generic
`greedy_search` / `beam_search` drive it. Its memory holds what never changes while
decoding, projected once in `start`: the pointer's keys ReLU(E W_K) and, for every block,
the keys and values of its attention over E. Its state is a cache: for every block, the
projected self-attention keys ReLU(X W_K) and values ReLU(X W_V) of that block's inputs at
the positions decoded so far (two tensors (R, H, k, d_k) per block, rows first), so a step
projects and runs the new position only; `reindex` selects memory and cache rows for beam
expansion and reordering. `teacher_forced` projects all positions at once and attends
under a causal mask: the same function, the same scores up to float rounding.
"""

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from models.families.han.blocks.han_decoder_layer import HANDecoderLayer
from models.families.han.blocks.pointer_relu import ReLUPointer
from models.interfaces import ParagraphEncoding, Tensors
from models.search.candidates import mask_scores, placed_before


class TransformerPointerDecoder(nn.Module):
    def __init__(
        self,
        dim: int,  # width of sentence vectors, encoder outputs and blocks; divisible by heads
        num_layers: int,  # decoder blocks (the paper's M: the han preset's default)
        heads: int,  # H
        dropout: float,
    ):
        super().__init__()
        self.dim = dim
        self.layers = nn.ModuleList(HANDecoderLayer(dim, heads, dropout) for _ in range(num_layers))
        self.pointer = ReLUPointer(dim, dim, dim)
        self.start_input = nn.Parameter(torch.randn(dim) * dim**-0.5)  # step-0 input
        self.dropout = nn.Dropout(dropout)

    def start(
        self, sentences: Tensor, encoding: ParagraphEncoding, mask: Tensor
    ) -> tuple[Tensors, Tensors]:
        """sentences (B, N, d), encoding.contexts E (B, N, d), mask (B, N) -> memory
        (sentences, ReLU(E W_K), mask, then each block's encoder keys and values
        (B, H, N, d_k)) and an empty cache (self-attention keys and values per block, each
        (B, H, 0, d_k))."""
        contexts = encoding.contexts
        for name, tensor in (("sentence vectors", sentences), ("encoder outputs", contexts)):
            if tensor.shape[-1] != self.dim:
                raise ValueError(
                    f"{name} have width {tensor.shape[-1]}, decoder dim is {self.dim}; "
                    "set them equal"
                )
        encoded = [tensor for layer in self.layers for tensor in layer.encoder_keys(contexts)]
        memory = (sentences, self.pointer.keys(contexts), mask, *encoded)
        empty = [layer.self_keys(contexts[:, :0]) for layer in self.layers]  # (B, H, 0, d_k)
        return memory, tuple(tensor for pair in empty for tensor in pair)

    def step(
        self, memory: Tensors, state: Tensors, previous: Tensor | None, available: Tensor
    ) -> tuple[Tensor, Tensors]:
        """previous (R,) or None, available (R, N) -> masked scores (R, N), next cache
        (each block's self-attention keys and values, (R, H, k + 1, d_k))."""
        sentences, keys, real, *encoded = memory
        rows, _, dim = sentences.shape
        if previous is None:
            chosen = self.start_input.expand(rows, 1, dim)  # (R, 1, d)
        else:
            index = previous.view(rows, 1, 1).expand(rows, 1, dim)  # (R, 1, d)
            chosen = sentences.gather(1, index)  # (R, 1, d)
        hidden = self.dropout(chosen)  # (R, 1, d)
        cache = []
        for layer, past, encoder in zip(
            self.layers, by_layer(state), by_layer(encoded), strict=True
        ):
            placed = [  # (R, H, k + 1, d_k): the prefix's keys (values), then the new one's
                torch.cat([old, new], dim=2)
                for old, new in zip(past, layer.self_keys(hidden), strict=True)
            ]
            cache += placed
            hidden = layer(hidden, placed, None, encoder, real)  # (R, 1, d)
        scores = self.pointer(keys, hidden).squeeze(1)  # (R, N)
        return mask_scores(scores, available), tuple(cache)

    def teacher_forced(
        self, memory: Tensors, state: Tensors, orders: Tensor, available: Tensor
    ) -> Tensor:
        """orders (B, N) -1 padded, available (B, N) -> masked scores (B, N, N)."""
        sentences, keys, real, *encoded = memory
        batch, num, dim = sentences.shape
        previous = orders[:, :-1].clamp(min=0)  # (B, N-1) choice of steps 0..N-2
        chosen = sentences.gather(1, previous.unsqueeze(-1).expand(-1, -1, dim))  # (B, N-1, d)
        chosen = torch.cat([self.start_input.expand(batch, 1, dim), chosen], dim=1)  # (B, N, d)
        hidden = self.dropout(chosen)  # (B, N, d)
        causal = torch.ones(num, num, dtype=torch.bool, device=sentences.device).tril()  # (N, N)
        for layer, encoder in zip(self.layers, by_layer(encoded), strict=True):
            placed = layer.self_keys(hidden)  # (B, H, N, d_k) keys and values
            hidden = layer(hidden, placed, causal.unsqueeze(0), encoder, real)  # (B, N, d)
        scores = self.pointer(keys, hidden)  # (B, N, N)
        allowed = available.unsqueeze(1) & ~placed_before(orders, num)  # (B, N, N)
        return mask_scores(scores, allowed)

    def reindex(self, tensors: Tensors, index: Tensor) -> Tensors:
        """Rows `index` (R',) of every tensor in `tensors` (memory or cache)."""
        return tuple(tensor.index_select(0, index) for tensor in tensors)


def by_layer(flat: Sequence[Tensor]) -> list[tuple[Tensor, Tensor]]:
    """Flat keys and values [K_1, V_1, K_2, V_2, ...] (the memory's encoder ones, or the
    state's self-attention cache) -> one (keys, values) pair per block, each (R, H, L, d_k)."""
    return list(zip(flat[0::2], flat[1::2], strict=True))
