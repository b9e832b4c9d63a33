"""END's score shifts of the noise setting's own options (`models.noise.noise_wrapper`): a
learned bias per count of unplaced sentences (`count_bias`) and the distractor scorer's
evidence (`distractor_scorer`, `models.noise.distractor_scorer`). Mechanisms of our own, off by
default: neither is in Wang and Wan (2019) nor in their released code (docs/metrics.md,
"Noise robustness", says why they were made and what they change).

Count bias: END's score gets COUNT_BIAS_SCALE x a learned parameter per number of
presented sentences not yet placed (0, 1, ..., MAX_COUNT or more; zero at initialisation).
The count is part of the input (how many sentences were presented), never of the answer.

Scorer: the scorer's softmax over which presented sentence is the distractor, or none, is
restricted to the unplaced sentences and none once some are placed (and so taken as
genuine): r_j is the probability that j is the distractor (`unplaced_posteriors`).
Pointer and scorer combine as a product of experts (Hinton 2002): sentence j's score gets
log(1 - r_j) and END's the sum over the unplaced sentences of log r_j. In training
(`shift_sentences=False`) the sentences' shifts are left out and, with one sentence left,
its shift moves onto END (detached), so END's odds against the last sentence are the same
in training and in the searches.
"""

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from models.interfaces import PointerDecoder, Tensors
from models.search.candidates import placed_before

MAX_COUNT = 8  # unplaced-sentence counts from here on share one END bias
COUNT_BIAS_SCALE = 10.0  # END's bias per count is this times its parameter
END = 0  # END's candidate index: the slot of the noise wrapper


class EndShifts:
    """`decoder` (candidates: END first, then the N presented sentences) with END's score
    shifted by `count_biases` (MAX_COUNT + 1,) of the unplaced count and, when `scored`,
    by the distractor evidence (module docstring); then the memory's last tensor is the
    distractor logits (B, N + 1): d_j of each presented sentence, then d_none. Every
    decoder's `reindex` selects rows of each tensor alike."""

    def __init__(
        self,
        decoder: PointerDecoder,
        count_biases: Tensor | None,
        scored: bool,
        shift_sentences: bool = True,
    ):
        self.decoder, self.count_biases = decoder, count_biases
        self.scored, self.shift_sentences = scored, shift_sentences

    def start(self, *args):
        return self.decoder.start(*args)

    def reindex(self, tensors: Tensors, index: Tensor) -> Tensors:
        return self.decoder.reindex(tensors, index)

    def step(
        self, memory: Tensors, state: Tensors, previous: Tensor | None, available: Tensor
    ) -> tuple[Tensor, Tensors]:
        """available (R, N + 1) -> scores (R, N + 1) and the next state."""
        own, distractor = self._split(memory)
        scores, state = self.decoder.step(own, state, previous, available)
        return self._shift(scores, available, distractor), state

    def teacher_forced(
        self, memory: Tensors, state: Tensors, orders: Tensor, available: Tensor
    ) -> Tensor:
        """orders (B, N + 1), available (B, N + 1) -> scores (B, N + 1, N + 1)."""
        own, distractor = self._split(memory)
        scores = self.decoder.teacher_forced(own, state, orders, available)
        allowed = available.unsqueeze(1) & ~placed_before(orders, available.shape[1])
        at_each_step = None if distractor is None else distractor.unsqueeze(1)
        return self._shift(scores, allowed, at_each_step)

    def _split(self, memory: Tensors) -> tuple[Tensors, Tensor | None]:
        return (memory[:-1], memory[-1]) if self.scored else (memory, None)

    def _shift(self, scores: Tensor, allowed: Tensor, distractor: Tensor | None) -> Tensor:
        """scores, allowed (..., N + 1) and distractor logits broadcastable to them or None
        -> scores shifted where allowed (masked entries stay masked)."""
        unplaced = allowed[..., END + 1 :]  # (..., N)
        count = unplaced.sum(dim=-1)  # (...,)
        end, sentences = scores[..., END], scores[..., END + 1 :]
        if self.count_biases is not None:
            end = end + self.count_biases[count.clamp(max=MAX_COUNT)].to(scores.dtype)
        if distractor is not None:
            foreign, genuine = unplaced_posteriors(distractor.to(scores.dtype), unplaced)
            end_shift = (foreign * unplaced).sum(dim=-1)  # (...,)
            if self.shift_sentences:
                sentences = sentences + genuine
            else:  # the last sentence's shift moves onto END
                last = (genuine * unplaced).sum(dim=-1)  # (...,)
                end_shift = (end_shift - torch.where(count == 1, last, 0.0)).detach()
            end = end + end_shift
        shifted = torch.cat([end.unsqueeze(-1), sentences], dim=-1)
        return torch.where(allowed, shifted, scores)


def unplaced_posteriors(distractor: Tensor, unplaced: Tensor) -> tuple[Tensor, Tensor]:
    """Distractor logits (..., N + 1) (none last) and the unplaced sentences (..., N) ->
    log r_j and log(1 - r_j) (..., N), where r is the scorer's softmax over the unplaced
    sentences and none: the probability that j is the distractor once the placed sentences
    are known to be genuine. Values at placed sentences are finite and meaningless."""
    num = unplaced.shape[-1]
    pool = F.pad(unplaced, (0, 1), value=True)  # (..., N + 1) unplaced and none
    floor = torch.tensor(-math.inf, dtype=distractor.dtype, device=distractor.device)
    total = torch.where(pool, distractor, floor).logsumexp(dim=-1, keepdim=True)  # (..., 1)
    foreign = distractor[..., :-1] - total  # (..., N) log r_j
    itself = torch.eye(num, num + 1, dtype=torch.bool, device=unplaced.device)  # (N, N + 1)
    rest = pool.unsqueeze(-2) & ~itself  # (..., N, N + 1) the pool without j
    others = torch.where(rest, distractor.unsqueeze(-2), floor).logsumexp(dim=-1)  # (..., N)
    return foreign, others - total  # log(1 - r_j) = log(sum of the others' r)
