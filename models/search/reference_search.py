"""Reference beam search: one document at a time, one hypothesis at a time.

The oracle for `models.search.beam_search` and the baseline of `python -m benchmark.bench.suite`. It
decodes the way the released code of published orderers evaluates (ATTOrderNet, Cui et
al. 2018; the hierarchical attention network, Wang & Wan 2019): for each document alone,
for each output step, for each hypothesis in the beam, one decoder step on that one
hypothesis; then all extensions are ranked in Python and the best `beam_size` kept.

It is written apart from the batched search on purpose and shares only the model's
public parts (`start`, the decoder's `step`) and `candidate_log_probs`. Ranking follows
the same rules: summed float32 log-probabilities, no length normalisation, ties to the
lower beam rank and then the lower candidate index. With an END candidate (the noise
setting, `models.noise.noise_wrapper`: `end_index`, and presented sentence j as candidate
j + `slot_offset`) a hypothesis that chose END is finished and carried with its score
unchanged, competing with the longer ones.
"""

from typing import NamedTuple

import torch
from torch import Tensor

from models.interfaces import Tensors
from models.search.candidates import candidate_log_probs


class Hypothesis(NamedTuple):
    score: float  # summed log-probability of the prefix (a float32 value)
    order: list[int]  # candidate indices chosen so far (END included once chosen)
    state: Tensors  # decoder state after the prefix, one row


@torch.no_grad()
def reference_search(model, batch: dict, beam_size: int) -> tuple[Tensor, Tensor]:
    """model (an `OrderingModel` or a `NoiseWrapper`), batch (B documents) -> best orders
    (B, N) (-1 padded) and their log-probabilities (B,), decoding each document separately."""
    size, num = batch["sentence_mask"].shape
    orders = torch.full((size, num), -1, dtype=torch.long)
    scores = torch.zeros(size)
    for b in range(size):
        order, scores[b] = _decode_document(model, one_document(batch, b), beam_size)
        orders[b, : len(order)] = torch.tensor(order, dtype=torch.long)
    device = batch["sentence_mask"].device
    return orders.to(device), scores.to(device)


def one_document(batch: dict, index: int) -> dict:
    """Document `index` of `batch` as a batch of one, cut to its own N and T: every value
    keeps row `index`, every tensor of two dimensions up its first n sentences."""
    n = int(batch["n_sentences"][index])
    length = int(batch["token_lengths"][index, :n].max())
    document = {}
    for key, value in batch.items():
        value = value[index : index + 1]
        if torch.is_tensor(value) and value.dim() >= 2:
            value = value[:, :n]  # (1, n, ...)
        document[key] = value
    document["tokens"] = document["tokens"][:, :, :length]  # (1, n, T)
    return document


def _decode_document(model, document: dict, beam_size: int) -> tuple[list[int], float]:
    """The best order of one document (a batch of one), END left out, and its score."""
    memory, state, candidates = model.start(document)  # candidates (1, C)
    num = candidates.shape[1]
    end = getattr(model, "end_index", None)
    offset = getattr(model, "slot_offset", 0)
    beam = [Hypothesis(0.0, [], state)]
    for _ in range(num):
        extensions = []  # (score, beam rank, candidate, parent, state after the parent)
        for rank, hypothesis in enumerate(beam):
            if end is not None and end in hypothesis.order:  # finished: carried unchanged
                extensions.append((hypothesis.score, rank, end, hypothesis, hypothesis.state))
                continue
            available = candidates.clone()
            available[0, hypothesis.order] = False  # (1, C)
            previous = None
            if hypothesis.order:
                previous = torch.tensor(hypothesis.order[-1:], device=candidates.device)  # (1,)
            logits, state = model.pointer_decoder.step(
                memory, hypothesis.state, previous, available
            )
            log_probs = candidate_log_probs(logits, available)[0]  # (C,) float32
            totals = (log_probs + hypothesis.score).tolist()  # float32 sums, as batched
            for candidate, allowed in enumerate(available[0].tolist()):
                if allowed:
                    extensions.append((totals[candidate], rank, candidate, hypothesis, state))
        extensions.sort(key=lambda extension: (-extension[0], extension[1], extension[2]))
        beam = [
            Hypothesis(score, _extend(parent.order, candidate), state)
            for score, _, candidate, parent, state in extensions[:beam_size]
        ]
    best = beam[0]
    return [candidate - offset for candidate in best.order if candidate != end], best.score


def _extend(order: list[int], candidate: int) -> list[int]:
    """`order` followed by `candidate`, unless `order` already holds it (END, carried)."""
    return order if candidate in order else order + [candidate]
