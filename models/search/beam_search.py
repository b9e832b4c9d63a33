"""Beam search for pointer decoders, batched over documents and beams.

As used for sentence ordering by Cui et al. (2018, beam 64): keep the `beam_size` best
partial orders by their summed log-probability (no length normalisation: every complete
order of a document has the same length n). The decoder is any pointer decoder (Vinyals,
Fortunato and Jaitly 2015, "Pointer Networks"; Gong et al. 2016) driven step by step.

All documents and all beams advance together; the only Python loop is over the N output
steps. Already-placed and padding sentences get -inf, so a hypothesis that is still valid
always outranks one that is not; a document whose n sentences are all placed stops
growing (its beams, scores and orders are carried unchanged while longer documents
finish). Ties are broken by a stable sort on (beam rank, presented index): deterministic,
and free of gold information because presented indices come from the evaluation shuffle.
With beam_size >= n! every prefix survives, so the result is the exact most probable
order; with beam_size = 1 it equals `greedy_search`.

The decoder runs only on rows that can hold a live hypothesis. Live hypotheses (finite
score) are a prefix of each document's beam, so step k decodes, for each document still
choosing, its first W beams, W the largest live count (at most min(K, n!/(n-k)!): 1 at
step 0, n at step 1); a document's last step is not decoded at all: each hypothesis has
one candidate left, whose log-probability is exactly 0. Rows that are not decoded keep
that forced log-probability; their scores are -inf unless forced, so rankings, orders and
scores are those of decoding every row.

With an END candidate (`end`, `models.noise.noise_wrapper`; Wang and Wan 2019) hypotheses of one
document differ in length: a hypothesis that chose END is finished and is carried with its
score unchanged (its only continuation is padding, at log-probability 0), competing with
the longer ones. Every order is still a prefix-closed path, so with beam_size >= the
number of possible orders the search stays exact. END counts among the n candidates, so
the forced last step is END's for every hypothesis not yet finished.
"""

import torch
from torch import Tensor

from models.interfaces import PointerDecoder, Tensors
from models.search.candidates import candidate_log_probs


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
    n = available.sum(dim=1)  # (B,) candidates per document
    available = available.repeat_interleave(beams, dim=0).view(batch, beams, num)  # (B, K, N)
    scores = torch.full((batch, beams), float("-inf"), device=device)
    scores[:, 0] = 0.0  # one live hypothesis (the empty order) per document
    orders = torch.full((batch, beams, num), -1, dtype=torch.long, device=device)
    keep = torch.arange(beams, device=device).expand(batch, beams)  # (B, K) identity parents
    finished = torch.zeros(batch, beams, dtype=torch.bool, device=device)  # (B, K) chose END
    stay = torch.full((num,), float("-inf"), device=device)  # (N,) a finished row's one
    if end is not None:  # continuation: END again (recorded as -1), at log-probability 0
        stay[end] = 0.0
    rows = torch.full((batch, beams), -1, dtype=torch.long, device=device)  # (B, K) state row
    rows[:, 0] = torch.arange(batch, device=device)  # of each hypothesis's prefix; -1: none
    rows_memory = None  # ((D, W), memory reindexed to those decoded rows)
    for k in range(num):
        log_probs = forced_log_probs(available)  # (B, K, N)
        decoded = torch.full((batch * beams,), -1, dtype=torch.long, device=device)
        docs = (k < n - 1).nonzero().squeeze(1)  # (D,) documents with a choice left
        if docs.numel():
            width = int(scores.index_select(0, docs).isfinite().sum(dim=1).max())  # W
            if rows_memory is None or rows_memory[0] != (docs.numel(), width):
                rows_memory = (
                    (docs.numel(), width),
                    decoder.reindex(memory, docs.repeat_interleave(width)),
                )  # (D*W, ...) document of each decoded row
            hypotheses = (docs.unsqueeze(1) * beams + torch.arange(width, device=device)).view(-1)
            state = decoder.reindex(state, rows.view(-1)[hypotheses].clamp(min=0))  # dead: any
            previous = None if k == 0 else orders.view(-1, num)[hypotheses, k - 1].clamp(min=0)
            allowed = available.view(-1, num)[hypotheses]  # (D*W, N)
            logits, state = decoder.step(rows_memory[1], state, previous, allowed)
            log_probs.view(-1, num)[hypotheses] = candidate_log_probs(logits, allowed)
            decoded[hypotheses] = torch.arange(hypotheses.numel(), device=device)
        log_probs = torch.where(finished.unsqueeze(-1), stay, log_probs)  # (B, K, N)
        totals = (scores.unsqueeze(-1) + log_probs).view(batch, beams * num)  # beam * N + j
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
        rows = decoded.view(batch, beams).gather(1, parent)  # (B, K) state rows of the parents
    return orders[:, 0], scores[:, 0]


def forced_log_probs(available: Tensor) -> Tensor:
    """available (B, K, N) -> (B, K, N) float32: 0 at the available candidates, else -inf;
    the log-probabilities of a hypothesis with one candidate left, decoder or not."""
    return torch.zeros(available.shape, device=available.device).masked_fill(
        ~available, float("-inf")
    )
