"""Candidate bookkeeping for pointer decoders.

A pointer network (Vinyals, Fortunato and Jaitly 2015, "Pointer Networks", eq. 3) turns
scores over the input positions into a softmax; for ordering, a sentence that is already
placed or a padding slot must never be chosen. Masked scores get the most negative
*finite* value of their dtype, never -inf, so a row with no candidate left (output steps
k >= n) still has a finite, NaN-free softmax, also under float16 autocast.
"""

import torch
import torch.nn.functional as F
from torch import Tensor


def mask_scores(scores: Tensor, available: Tensor) -> Tensor:
    """scores (..., N), available (..., N) bool -> scores with unavailable entries masked."""
    return scores.masked_fill(~available, torch.finfo(scores.dtype).min)


def placed_before(orders: Tensor, num_candidates: int) -> Tensor:
    """orders (B, K) presented indices, -1 padded -> (B, K, N) bool.

    Entry [b, k, j] is True when sentence j appears in orders[b, :k].
    """
    candidates = torch.arange(num_candidates, device=orders.device)  # (N,)
    chosen = (orders.unsqueeze(-1) == candidates).long()  # (B, K, N); -1 padding: no candidate
    return (chosen.cumsum(dim=1) - chosen) > 0  # exclusive prefix: strictly before step k


NAN_LOG_PROB = -1e30  # an available candidate whose score is NaN: below any real one


def candidate_log_probs(scores: Tensor, available: Tensor) -> Tensor:
    """Masked scores (R, N) -> float32 log-probabilities, -inf where not available.

    The searches rank hypotheses with these; a candidate that is not available can then
    never outrank one that is. Validity decides, never the score's value: a NaN (from a
    diverged model) becomes NAN_LOG_PROB, finite and below every real log-probability, so
    NaN scores still give valid orders (NaN would outrank everything in a sort or argmax).
    """
    log_probs = F.log_softmax(scores.float(), dim=-1).nan_to_num(
        nan=NAN_LOG_PROB, posinf=NAN_LOG_PROB, neginf=float("-inf")
    )
    return log_probs.masked_fill(~available, float("-inf"))


def order_log_prob(scores: Tensor, orders: Tensor) -> Tensor:
    """Teacher-forced masked scores (B, N, N) and orders (B, N) -> (B,) log P(order)."""
    log_probs = F.log_softmax(scores.float(), dim=-1)  # (B, N, N)
    picked = log_probs.gather(2, orders.clamp(min=0).unsqueeze(-1)).squeeze(-1)  # (B, N)
    return torch.where(orders >= 0, picked, torch.zeros_like(picked)).sum(dim=-1)


def validate_orders(orders: Tensor, n_sentences: Tensor) -> None:
    """Raise ValueError unless each row of orders (B, N) is a permutation of 0..n-1
    followed by -1 padding."""
    if orders.dim() != 2 or orders.shape[0] != n_sentences.shape[0]:
        raise ValueError(
            f"orders must have shape (B, N) with B = {n_sentences.shape[0]}, "
            f"got {tuple(orders.shape)}"
        )
    num = orders.shape[1]
    real = torch.arange(num, device=orders.device) < n_sentences.unsqueeze(-1)  # (B, N)
    in_range = (orders >= 0) & (orders < n_sentences.unsqueeze(-1))
    counts = F.one_hot(orders.clamp(min=0), num).mul(in_range.unsqueeze(-1)).sum(dim=1)
    good = torch.where(real, in_range, orders == -1).all(dim=1) & (counts == real.long()).all(1)
    if not bool(good.all()):
        b = int((~good).nonzero()[0])
        raise ValueError(
            f"orders[{b}] = {orders[b].tolist()} is not a permutation of "
            f"0..{int(n_sentences[b]) - 1} padded with -1"
        )
