"""Masked pooling and empty-row handling shared by the sentence and paragraph encoders.

Every encoder pools over the real positions only (words of a sentence, sentences of a
paragraph), so padding never changes a result: a document encodes the same alone or in a
batch padded to longer documents.
"""

from collections.abc import Callable

import torch
from torch import Tensor


def length_mask(lengths: Tensor, size: int) -> Tensor:
    """lengths (...,) -> (..., size) bool, True at positions < length."""
    return torch.arange(size, device=lengths.device) < lengths.unsqueeze(-1)


def masked_mean(values: Tensor, mask: Tensor) -> Tensor:
    """values (..., L, d), mask (..., L) True at real positions -> mean over them (..., d);
    zeros where a row has none."""
    weights = mask.unsqueeze(-1).to(values.dtype)  # (..., L, 1)
    total = (values * weights).sum(dim=-2)  # (..., d)
    return total / weights.sum(dim=-2).clamp(min=1.0)


def masked_max(values: Tensor, mask: Tensor) -> Tensor:
    """values (..., L, d), mask (..., L) -> max over real positions (..., d); zeros where a
    row has none."""
    floor = torch.finfo(values.dtype).min
    best = values.masked_fill(~mask.unsqueeze(-1), floor).amax(dim=-2)  # (..., d)
    return torch.where(mask.any(dim=-1, keepdim=True), best, torch.zeros_like(best))


def sentence_slots(counts: Tensor, num: int) -> Tensor:
    """Sentences per document (B,) -> the row of each real sentence in the (B * num) slots,
    document by document (S,); on the host, where the text encoders prepare their inputs."""
    return length_mask(counts, num).reshape(-1).nonzero().squeeze(1)


def into_slots(vectors: Tensor, slots: Tensor, documents: int, num: int) -> Tensor:
    """vectors (S, H) of the real sentences, their `sentence_slots` (S,) -> (B, num, H),
    zeros at padding sentences."""
    out = vectors.new_zeros(documents * num, vectors.shape[-1])  # (B * N, H)
    return out.index_copy(0, slots, vectors).view(documents, num, -1)


def encode_nonempty(
    encode: Callable[[Tensor, Tensor], Tensor], words: Tensor, lengths: Tensor, output_dim: int
) -> Tensor:
    """Run `encode` (words (S', T, e), lengths (S',) -> (S', output_dim)) on the rows with at
    least one token; padding sentences (length 0) get zero vectors. -> (S, output_dim)."""
    out = words.new_zeros(words.shape[0], output_dim)  # (S, D)
    nonempty = (lengths > 0).nonzero().squeeze(1)  # (S',) rows with >= 1 token
    if nonempty.numel() == 0:
        return out
    vectors = encode(words.index_select(0, nonempty), lengths.index_select(0, nonempty))
    return out.index_copy(0, nonempty, vectors.to(out.dtype))
