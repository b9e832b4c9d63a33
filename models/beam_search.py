"""Beam search for pointer decoders, batched over documents and beams.

As used for sentence ordering by Cui et al. (2018, beam 64): keep the `beam_size` best
partial orders by their summed log-probability (no length normalisation: every complete
order of a document has the same length n).

All documents and all beams advance together as B * K decoder rows; the only Python
loop is over the N output steps. Already-placed and padding sentences get -inf, so a
hypothesis that is still valid always outranks one that is not; a document whose n
sentences are all placed stops growing (its beams, scores and orders are carried
unchanged while longer documents finish). Ties are broken by a stable sort on
(beam rank, presented index): deterministic, and free of gold information because
presented indices come from the evaluation shuffle. With beam_size >= n! every prefix
survives, so the result is the exact most probable order; with beam_size = 1 it
equals `greedy_search`.

With an END candidate (`end`, `models.end_candidate`; Wang and Wan 2019) hypotheses of one
document differ in length: a hypothesis that chose END is finished and is carried with its
score unchanged (its only continuation is padding, at log-probability 0), competing with
the longer ones. Every order is still a prefix-closed path, so with beam_size >= the
number of possible orders the search stays exact.
"""

import torch
from torch import Tensor

from models.candidates import candidate_log_probs
from models.interfaces import PointerDecoder, Tensors


def beam_search(
    decoder: PointerDecoder,
    memory: Tensors,
    state: Tensors,
    available: Tensor,
    beam_size: int,
    end: int | None = None,  # index of the END candidate, if any
) -> tuple[Tensor, Tensor]:
    """available (B, N) candidates -> best orders (B, N) (-1 padded), log-probs (B,)."""
    batch, num = available.shape
    beams = beam_size
    device = available.device
    n = available.sum(dim=1)  # (B,)
    rows = torch.arange(batch, device=device).repeat_interleave(beams)  # (B*K,) document of row
    memory = decoder.reindex(memory, rows)
    state = decoder.reindex(state, rows)
    available = available.repeat_interleave(beams, dim=0).view(batch, beams, num)  # (B, K, N)
    scores = torch.full((batch, beams), float("-inf"), device=device)
    scores[:, 0] = 0.0  # one live hypothesis (the empty order) per document
    orders = torch.full((batch, beams, num), -1, dtype=torch.long, device=device)
    keep = torch.arange(beams, device=device).expand(batch, beams)  # (B, K) identity parents
    offsets = (torch.arange(batch, device=device) * beams).unsqueeze(1)  # (B, 1) first row
    finished = torch.zeros(batch, beams, dtype=torch.bool, device=device)  # (B, K) chose END
    stay = torch.full((num,), float("-inf"), device=device)  # (N,) a finished row's one
    if end is not None:  # continuation: END again (recorded as -1), at log-probability 0
        stay[end] = 0.0
    previous = None
    for k in range(num):
        logits, state = decoder.step(memory, state, previous, available.view(batch * beams, num))
        log_probs = candidate_log_probs(logits, available.view(batch * beams, num))  # (B*K, N)
        log_probs = torch.where(finished.view(-1, 1), stay, log_probs)  # (B*K, N)
        totals = scores.unsqueeze(-1) + log_probs.view(batch, beams, num)  # (B, K, N)
        totals = totals.view(batch, beams * num)  # (B, K*N) flat index = beam * N + sentence
        ranked = totals.sort(dim=1, descending=True, stable=True).indices[:, :beams]  # (B, K)
        active = (k < n).unsqueeze(1)  # (B, 1) documents still placing sentences
        parent = torch.where(active, ranked // num, keep)  # (B, K)
        was_finished = finished.gather(1, parent)  # (B, K)
        placing = active & ~was_finished  # (B, K) hypotheses that place a candidate now
        choice = torch.where(placing, ranked % num, torch.full_like(ranked, -1))  # (B, K)
        finished = was_finished | (choice == end) if end is not None else finished
        scores = torch.where(active, totals.gather(1, ranked), scores)  # (B, K)
        expand = parent.unsqueeze(-1).expand(batch, beams, num)  # (B, K, N)
        orders = orders.gather(1, expand)
        orders[:, :, k] = choice
        placed = torch.zeros_like(available).scatter_(2, choice.clamp(min=0).unsqueeze(-1), True)
        available = available.gather(1, expand) & ~(placed & placing.unsqueeze(-1))  # (B, K, N)
        state = decoder.reindex(state, (parent + offsets).view(-1))  # rows of the parents
        previous = choice.clamp(min=0).view(-1)  # (B*K,) finished rows feed a dummy index
    return orders[:, 0], scores[:, 0]
