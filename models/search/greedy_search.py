"""Greedy pointer decoding: at each step take the most probable available sentence.

The searches in this package drive any decoder through the step interface of
`models.interfaces.PointerDecoder`. Ties go to the lowest presented index
(`torch.argmax` returns the first maximum); presented indices come from the evaluation
shuffle, so tie-breaking carries no gold information. This is `beam_search` with
beam_size = 1, written without the beam bookkeeping.

With an END candidate (`end`, `models.noise.noise_wrapper`; Wang and Wan 2019) a document stops
when END is chosen; only padding (-1) follows it.
"""

import torch
import torch.nn.functional as F
from torch import Tensor

from models.interfaces import PointerDecoder, Tensors
from models.search.candidates import candidate_log_probs


def greedy_search(
    decoder: PointerDecoder,
    memory: Tensors,
    state: Tensors,
    available: Tensor,
    end: int | None = None,  # index of the END candidate, if any
) -> tuple[Tensor, Tensor]:
    """available (B, N) candidates -> orders (B, N) (-1 padded), log-probs (B,)."""
    batch, num = available.shape
    n = available.sum(dim=1)  # (B,)
    orders = torch.full((batch, num), -1, dtype=torch.long, device=available.device)
    scores = torch.zeros(batch, device=available.device)
    ended = torch.zeros(batch, dtype=torch.bool, device=available.device)  # (B,) chose END
    previous = None
    for k in range(num):
        logits, state = decoder.step(memory, state, previous, available)
        log_probs = candidate_log_probs(logits, available)  # (B, N)
        choice = log_probs.argmax(dim=1)  # (B,)
        active = (k < n) & ~ended  # (B,) documents still placing sentences
        best = log_probs.gather(1, choice.unsqueeze(1)).squeeze(1)  # (B,)
        scores = scores + torch.where(active, best, torch.zeros_like(best))
        orders[:, k] = torch.where(active, choice, torch.full_like(choice, -1))
        placed = F.one_hot(choice, num).bool() & active.unsqueeze(1)  # (B, N)
        available = available & ~placed
        if end is not None:
            ended = ended | (active & (choice == end))
        previous = choice
    return orders, scores
