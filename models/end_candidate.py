"""The END candidate of a pointer decoder, for documents with distractor sentences.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI), noise
experiments: the decoder may point to an END symbol; the sentences not placed before END
are predicted noise (DESIGN section 4). END is a learned vector appended to the paragraph
encoder's outputs as candidate N, after the N presented (and padding) sentences, so every
pointer decoder scores it like a sentence (its key comes from the same projection). It is
a candidate only: it is not a sentence of the paragraph (encoder attention leaves it out)
and the decoder never reads it as an input (decoding stops once it is chosen).

Orders with END are (B, N + 1) presented indices: the kept sentences, END (= N), then -1.
END may come at any step, also before a real sentence (the model then drops it). Once
every sentence is placed, END is the only candidate left, so its probability is 1: an
order without END is the same order stopped by END, and scores alike.

END also sees how many presented sentences are still unplaced: its score gets a learned
bias per count (`EndCandidate.count_bias`, 0, 1, ..., MAX_COUNT or more; zero at
initialisation, and read times COUNT_BIAS_SCALE: Adam moves a parameter by about its
learning rate per step, and with the configs' 1e-3 the biases moved by 0.2 in three Brown
epochs, where "END with two or more sentences left" has to become far less likely under
`noise=1`). A fixed END vector alone cannot tell the last step from the others, so a
model learns P(END) of about 1/(n + 1) at every step, which outranks the best sentence
while the order is uncertain, and greedy and beam search stop early; with the count, "one
sentence left" (`noise=1`) or "none or one left" (`noise=0/1`) is visible to the model.
The count is part of the input (how many sentences were presented), never of the answer.

And the decoding sees which sentences look like distractors: `models.distractor_scorer`
gives each presented sentence j a logit d_j and "no distractor" a logit d_none, a softmax
over which of them the document's distractor is (the noise settings give each document at
most one), trained on its own (cross-entropy against the known distractor, or none, of
each training document). Once some sentences are placed (and so taken as genuine), r is
that softmax over the unplaced sentences and none: r_j is the probability that j is the
distractor (`unplaced_posteriors`). The searches and `log_prob` combine pointer and scorer
as a product of experts (Hinton 2002): `DistractorAwareEnd` adds log(1 - r_j) (j is
genuine) to sentence j's score and the sum over the unplaced sentences of log r_j to END's
(with one left, the probability that it is the distractor), so a sentence that looks
foreign is placed last if at all, and END wins once only such a sentence is left.

Training leaves the sentences' shifts out (`shift_sentences=False`: with them, the
LSTM+PtrNet on Brown `noise=1` did not learn to order in 5-10 epochs, validation tau about
0.03 against 0.15-0.25 without; docs/metrics.md) and, with one sentence left, moves that
sentence's shift onto END (END gets log r_j - log(1 - r_j) = d_j - d_none, detached). So
at the last step, where END is right exactly when the remaining sentence is a distractor,
END's odds against it are the same in training and in the searches, and END's vector and
count biases learn how far to trust the scorer on the very decision they take at
decoding. The scorer learns from its own loss only. On Brown (docs/metrics.md, "Noise
robustness") the softmax with none, rather than an independent probability per sentence,
raised `noise_acc` from 0.56 to 0.60 under `noise=0/1` and from 0.64 to 0.70 under `1`.
"""

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.candidates import placed_before
from models.distractor_scorer import DistractorScorer
from models.interfaces import ParagraphEncoding, PointerDecoder, Tensors

MAX_COUNT = 8  # unplaced-sentence counts from here on share one END bias
COUNT_BIAS_SCALE = 10.0  # END's bias per count is this times its parameter


class EndCandidate(nn.Module):
    def __init__(
        self,
        dim: int,  # width of the paragraph encoder's outputs
        word_dim: int | None,  # width of the model's word vectors (None: it has none)
    ):
        super().__init__()
        self.vector = nn.Parameter(torch.randn(dim) * dim**-0.5)
        self.count_bias = nn.Parameter(torch.zeros(MAX_COUNT + 1))  # by unplaced count
        self.scorer = DistractorScorer(dim, word_dim)

    def count_biases(self) -> Tensor:
        """END's score bias by the number of unplaced presented sentences (MAX_COUNT + 1,)."""
        return COUNT_BIAS_SCALE * self.count_bias

    def append(
        self, sentences: Tensor, encoding: ParagraphEncoding, mask: Tensor
    ) -> tuple[Tensor, ParagraphEncoding, Tensor, Tensor]:
        """sentences (B, N, d), contexts (B, N, h), mask (B, N) -> sentences (B, N + 1, d)
        (zeros for END), contexts (B, N + 1, h) (END last), the real sentences (B, N + 1)
        and the candidates (B, N + 1) (END included)."""
        batch, _, width = encoding.contexts.shape
        end = self.vector.to(encoding.contexts.dtype).expand(batch, 1, width)  # (B, 1, h)
        contexts = torch.cat([encoding.contexts, end], dim=1)  # (B, N + 1, h)
        sentences = F.pad(sentences, (0, 0, 0, 1))  # (B, N + 1, d)
        real = F.pad(mask, (0, 1), value=False)  # (B, N + 1)
        candidates = F.pad(mask, (0, 1), value=True)  # (B, N + 1)
        return sentences, encoding._replace(contexts=contexts), real, candidates


class DistractorAwareEnd:
    """`decoder` with the noise-setting shifts of its scores (module docstring): END's
    (the last candidate) by `count_biases` of the number of presented sentences not yet
    placed plus the sum of their log r_j and, when `shift_sentences`, each sentence's by
    log(1 - r_j); without it (training), END's by the same sum minus, with one sentence
    left, its log(1 - r_j) (detached).

    Its memory is the decoder's followed by the distractor logits (B, N + 1): d_j of each
    presented sentence, then d_none in END's column; every decoder's `reindex` selects rows
    of each tensor alike."""

    def __init__(self, decoder: PointerDecoder, count_biases: Tensor, shift_sentences: bool = True):
        self.decoder, self.count_biases = decoder, count_biases  # (MAX_COUNT + 1,)
        self.shift_sentences = shift_sentences

    def reindex(self, tensors: Tensors, index: Tensor) -> Tensors:
        return self.decoder.reindex(tensors, index)

    def step(
        self, memory: Tensors, state: Tensors, previous: Tensor | None, available: Tensor
    ) -> tuple[Tensor, Tensors]:
        """available (R, N + 1) -> scores (R, N + 1) and the next state."""
        scores, state = self.decoder.step(memory[:-1], state, previous, available)
        return self._shift(scores, available, memory[-1]), state

    def teacher_forced(
        self, memory: Tensors, state: Tensors, orders: Tensor, available: Tensor
    ) -> Tensor:
        """orders (B, N + 1), available (B, N + 1) -> scores (B, N + 1, N + 1)."""
        scores = self.decoder.teacher_forced(memory[:-1], state, orders, available)
        allowed = available.unsqueeze(1) & ~placed_before(orders, available.shape[1])
        return self._shift(scores, allowed, memory[-1].unsqueeze(1))  # at each step k

    def _shift(self, scores: Tensor, allowed: Tensor, distractor: Tensor) -> Tensor:
        """scores, allowed (..., N + 1) and distractor logits broadcastable to them ->
        scores shifted where allowed (masked entries stay masked)."""
        unplaced = allowed[..., :-1]  # (..., N)
        count = unplaced.sum(dim=-1)  # (...,)
        foreign, genuine = unplaced_posteriors(distractor.to(scores.dtype), unplaced)
        sentences = scores[..., :-1]  # (..., N)
        end_shift = (foreign * unplaced).sum(dim=-1)  # (...,)
        if self.shift_sentences:
            sentences = sentences + genuine
        else:  # the last sentence's shift moves onto END
            last = (genuine * unplaced).sum(dim=-1)  # (...,)
            end_shift = (end_shift - torch.where(count == 1, last, 0.0)).detach()
        bias = self.count_biases[count.clamp(max=MAX_COUNT)].to(scores.dtype)
        end = scores[..., -1] + bias + end_shift  # (...,)
        shifted = torch.cat([sentences, end.unsqueeze(-1)], dim=-1)
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


def distractor_classes(orders: Tensor, mask: Tensor) -> Tensor:
    """Gold orders (B, N) of the kept sentences, -1 padded, and the real sentences (B, N)
    -> (B,) the index of the presented sentence missing from the gold order (the
    distractor), or N where there is none. ValueError for a document with more than one:
    the noise settings (DESIGN section 4) give each document at most one."""
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


def strip_end(orders: Tensor) -> Tensor:
    """Decoded orders (B, N + 1) with END (= N) -> the kept sentences (B, N), -1 padded."""
    num = orders.shape[1] - 1
    return orders.masked_fill(orders == num, -1)[:, :num]
