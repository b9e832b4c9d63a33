"""Dropout masks drawn as `torch.nn.functional.dropout` draws them, for fast paths that
compute a part in pieces but must use the reference path's random numbers.

On the CPU, dropout draws one Bernoulli(1 - p) number per element of a new tensor of the
input's shape, in the input's memory order, and multiplies the input by the mask divided
by 1 - p. A fast path that runs a part on length buckets (`models.blocks.length_buckets`) draws
each mask once at the reference's shape, in the reference's order, before the first
bucket, and gives each bucket its rows: the outputs are then those of the reference path
to floating-point rounding, and the random numbers left for the rest of the step are the
same (`tests/models/blocks/test_training_paths.py`).
"""

import torch
from torch import Tensor


def dropout_mask(shape: tuple[int, ...], p: float, like: Tensor) -> Tensor | None:
    """The mask (scaled by 1 / (1 - p)) that dropout at rate `p` draws for a contiguous
    tensor of `shape` with the dtype and device of `like`; None when p = 0 (nothing is
    drawn)."""
    if p == 0.0:
        return None
    mask = torch.empty(shape, dtype=like.dtype, device=like.device)
    return mask.bernoulli_(1 - p).div_(1 - p)


def apply_mask(values: Tensor, mask: Tensor | None) -> Tensor:
    """values * mask, or values when there is no mask."""
    return values if mask is None else values * mask
