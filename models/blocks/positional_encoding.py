"""Sinusoidal position encodings of the Transformer.

Vaswani et al. (2017), "Attention Is All You Need", sec. 3.5:
    PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
Used over the words of a sentence by ATTOrderNet's self-attention sentence encoder (Cui et
al. 2018, the ATT variant) and over the already-placed sentences by the Transformer pointer
decoder; never over the presented sentences, whose order is a shuffle.
"""

import math

import torch
from torch import Tensor


def sinusoidal_positions(length: int, dim: int, device: torch.device | None = None) -> Tensor:
    """-> (length, dim) encodings of positions 0..length-1 (odd dim: the last sine is kept)."""
    position = torch.arange(length, dtype=torch.float32, device=device).unsqueeze(1)  # (L, 1)
    rates = torch.exp(
        torch.arange(0, dim, 2, dtype=torch.float32, device=device) * (-math.log(10000.0) / dim)
    )  # (ceil(d/2),) = 1 / 10000^(2i/d)
    angles = position * rates  # (L, ceil(d/2))
    encoding = torch.zeros(length, dim, device=device)
    encoding[:, 0::2] = angles.sin()
    encoding[:, 1::2] = angles.cos()[:, : dim // 2]
    return encoding
