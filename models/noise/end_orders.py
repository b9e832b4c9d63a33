"""Orders in the noise setting (docs/design.md, section 4): the kept sentences, then END.

An order with END is (B, N + 1) presented indices: the kept sentences, END (= N), then -1.
END may come at any step, also before a real sentence (the model then drops it); once
every sentence is placed it is the only candidate left, so an order without END is the
same order stopped by END. `models.noise.noise_wrapper` maps these to its slot layout.
"""

import torch
import torch.nn.functional as F
from torch import Tensor


def distractor_classes(orders: Tensor, mask: Tensor) -> Tensor:
    """Gold orders (B, N) of the kept sentences, -1 padded, and the real sentences (B, N)
    -> (B,) the index of the presented sentence missing from the gold order (the
    distractor), or N where there is none. ValueError for a document with more than one:
    the noise settings (docs/design.md, section 4) give each document at most one."""
    kept = F.one_hot(orders.clamp(min=0), mask.shape[1]) * (orders >= 0).unsqueeze(-1)
    missing = mask & (kept.sum(dim=1) == 0)  # (B, N)
    several = missing.sum(dim=1) > 1  # (B,)
    if bool(several.any()):
        b = int(several.nonzero()[0])
        raise ValueError(
            f"document {b} of the batch has {int(missing[b].sum())} distractors; the noise "
            "settings (dataset.noise 1 or 0/1) give each document at most one"
        )
    none = torch.full_like(missing[:, 0], mask.shape[1], dtype=torch.long)  # (B,)
    return torch.where(missing.any(dim=1), missing.long().argmax(dim=1), none)


def complete_orders(orders: Tensor, n_sentences: Tensor, num: int) -> Tensor:
    """Orders (B, L), L <= num + 1: distinct presented indices < n, optionally END (= num),
    then -1 -> (B, num + 1) ending with END. ValueError for any other row."""
    batch, length = orders.shape if orders.dim() == 2 else (-1, -1)
    if batch != n_sentences.shape[0] or length > num + 1:
        raise ValueError(
            f"orders must have shape (B, L) with B = {n_sentences.shape[0]} and "
            f"L <= {num + 1} (N sentences + END), got {tuple(orders.shape)}"
        )
    padded = F.pad(orders, (0, num + 1 - length), value=-1)  # (B, N + 1)
    real = (padded >= 0) & (padded < n_sentences.unsqueeze(-1))
    end, pad = padded == num, padded == -1
    stopped = (~real).long().cummax(dim=1).values.bool()  # at or after the first non-real
    counts = F.one_hot(padded.clamp(min=0), num + 1).mul(real.unsqueeze(-1)).sum(dim=1)
    good = (
        (real | end | pad).all(dim=1)
        & ~(real & stopped).any(dim=1)  # the kept sentences come first
        & ~(end & (pad.long().cumsum(dim=1) > 0)).any(dim=1)  # END right after them
        & (end.sum(dim=1) <= 1)
        & (counts <= 1).all(dim=1)
    )
    if not bool(good.all()):
        b = int((~good).nonzero()[0])
        raise ValueError(
            f"orders[{b}] = {orders[b].tolist()} is not distinct indices of "
            f"0..{int(n_sentences[b]) - 1}, then optionally END ({num}), then -1 padding"
        )
    kept = real.sum(dim=1, keepdim=True)  # (B, 1) END's step
    steps = torch.arange(num + 1, device=orders.device)  # (N + 1,)
    completed = torch.where(steps < kept, padded, torch.full_like(padded, -1))
    return completed.scatter(1, kept, num)  # (B, N + 1)
