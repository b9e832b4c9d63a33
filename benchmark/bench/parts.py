"""One training step and one validation batch of an ordering model, split into its parts
(docs/design.md, section 6: word embedding -> sentence encoder -> paragraph encoder ->
pointer decoder), each part timed (or its FLOPs counted) forward and backward.

The step is cut at the boundaries between parts: each part's output is handed to the next
as a detached leaf, and the backward pass runs part by part in reverse, each fed the
gradient its successor left on that leaf. The sum of the parts' gradients is the plain
step's (`net.loss(batch).backward()`) and the random numbers are drawn in the same order
(the dropouts run in the same sequence), so only where the clock stops changes; the
profile also times plain steps so the two totals can be compared.

Parts (`PARTS`): `embedding` (word vectors, and their gradient into the embedding
matrix), `sentence` (the sentence encoder), `paragraph` (the paragraph encoder),
`decoder` (the pointer decoder's start and its teacher-forced scores; in validation its
start and the search), `loss` (log-softmax NLL of the gold order and its gradient),
`optimiser` (gradient clipping, the optimiser's step, clearing the gradients), `other`
(the batch and order checks of the plain path).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch import Tensor

from benchmark.bench.timing import synchronize
from models.batch import prepared
from models.interfaces import ParagraphEncoding
from models.search.beam_search import beam_search
from models.search.candidates import order_log_prob, validate_orders
from models.search.greedy_search import greedy_search

PARTS = ("embedding", "sentence", "paragraph", "decoder", "loss", "optimiser", "other")

Part = Callable[[str], object]  # part name -> a context manager around that part's work


class PartClock:
    """Wall and process CPU seconds per part, the device synchronised at each boundary (on
    a shared machine the CPU time of a one-thread process is the steadier of the two)."""

    def __init__(self, device: torch.device):
        self.device = device
        self.seconds: dict[str, float] = defaultdict(float)
        self.cpu_seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, part: str) -> Iterator[None]:
        synchronize(self.device)
        start, cpu = time.perf_counter(), time.process_time()
        yield
        synchronize(self.device)
        self.seconds[part] += time.perf_counter() - start
        self.cpu_seconds[part] += time.process_time() - cpu


def _leaf(tensor: Tensor) -> Tensor:
    """`tensor` cut from its graph, a leaf that collects the gradient sent back to it."""
    return tensor.detach().requires_grad_(tensor.requires_grad)


def _backward(outputs: list[Tensor], leaves: list[Tensor]) -> None:
    """Backpropagate the gradients collected on `leaves` through `outputs` (their
    originals); leaves nothing reached are skipped."""
    pairs = [(out, leaf.grad) for out, leaf in zip(outputs, leaves, strict=True)]
    pairs = [(out, grad) for out, grad in pairs if grad is not None and out.requires_grad]
    if pairs:
        torch.autograd.backward([out for out, _ in pairs], [grad for _, grad in pairs])


def staged_step(net, batch: dict, optimizer, clip: float | None, part: Part, autocast) -> Tensor:
    """One training step of `net` (an `OrderingModel`) on `batch`, each part run inside
    `part(name)`: loss, backward, clipping at `clip`, optimiser step. Returns the loss."""
    with part("other"):  # the host side (`models.batch`), here in the step as in `plain_step`
        validate_orders(batch["gold_order"], batch["n_sentences"])
        batch = prepared(net, batch)
    mask, gold = batch["sentence_mask"], batch["gold_order"]
    with autocast():
        with part("embedding"):
            words = None if net.embedding is None else net.embedding(batch["tokens"])
        word_leaf = None if words is None else _leaf(words)  # (B, N, T, e)
        with part("sentence"):
            sentences = net.sentence_vectors(batch, word_leaf)  # (B, N, d)
        for_paragraph, for_decoder = _leaf(sentences), _leaf(sentences)
        with part("paragraph"):
            encoding = net.paragraph_encoder(for_paragraph, mask)
        encoded = [encoding.contexts, *encoding.state]
        encoded_leaves = [_leaf(tensor) for tensor in encoded]
        with part("decoder"):
            leaf_encoding = ParagraphEncoding(encoded_leaves[0], tuple(encoded_leaves[1:]))
            memory, state = net.decoder.start(for_decoder, leaf_encoding, mask)
            logits = net.decoder.teacher_forced(memory, state, gold, mask)  # (B, N, N)
        logit_leaf = _leaf(logits)
        with part("loss"):
            loss = -order_log_prob(logit_leaf, gold).mean()
    with part("loss"):
        loss.backward()
    with part("decoder"):
        _backward([logits], [logit_leaf])
    with part("paragraph"):
        _backward(encoded, encoded_leaves)
    with part("sentence"):
        grads = [leaf.grad for leaf in (for_paragraph, for_decoder) if leaf.grad is not None]
        if grads and sentences.requires_grad:
            sentences.backward(torch.stack(grads).sum(0) if len(grads) > 1 else grads[0])
    with part("embedding"):
        if words is not None:
            _backward([words], [word_leaf])
    with part("optimiser"):
        if clip:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def plain_step(net, batch: dict, optimizer, clip: float | None, autocast) -> Tensor:
    """The step as the harness takes it (`OrderingTask.training_step`, then Lightning's
    backward, clipping and optimiser step)."""
    with autocast():
        loss = net.loss(batch)
    loss.backward()
    if clip:
        torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


@torch.no_grad()
def staged_decode(net, batch: dict, beam: int, part: Part, autocast) -> Tensor:
    """`net.decode(batch, beam)` with its parts inside `part(name)`: the word vectors and
    sentence encoder (`embedding`, `sentence`), the paragraph encoder, and the decoder's
    start and search (`decoder`). Returns the orders (B, N)."""
    with part("other"):
        batch = prepared(net, batch)
    mask = batch["sentence_mask"]
    with autocast():
        with part("embedding"):
            words = None if net.embedding is None else net.embedding(batch["tokens"])
        with part("sentence"):
            sentences = net.sentence_vectors(batch, words)  # (B, N, d)
        with part("paragraph"):
            encoding = net.paragraph_encoder(sentences, mask)
        with part("decoder"):
            memory, state = net.decoder.start(sentences, encoding, mask)
            if beam == 1:
                return greedy_search(net.decoder, memory, state, mask)[0]
            return beam_search(net.decoder, memory, state, mask, beam)[0]


def padding_counts(batch: dict) -> dict[str, int]:
    """Token positions of the padded (B, N, T) tensor, of its real sentences (S, T), the
    real tokens; sentence slots (B, N) and real sentences."""
    batch_size, num, length = batch["tokens"].shape
    sentences = int(batch["n_sentences"].sum())
    return {
        "token_slots": batch_size * num * length,
        "sentence_token_slots": sentences * length,
        "tokens": int(batch["token_lengths"].sum()),
        "sentence_slots": batch_size * num,
        "sentences": sentences,
    }


def padding_shares(counts: dict[str, int]) -> dict[str, float]:
    """Summed `padding_counts` -> shares of padding: token positions of (B, N, T) that are
    padding (`tokens`), of the real sentences' (S, T) rows (`tokens_in_sentences`, what a
    sentence encoder that skips padding sentences but not padding words computes on),
    and sentence slots of (B, N) (`sentences`)."""
    return {
        "tokens": round(1 - counts["tokens"] / counts["token_slots"], 4),
        "tokens_in_sentences": round(1 - counts["tokens"] / counts["sentence_token_slots"], 4),
        "sentences": round(1 - counts["sentences"] / counts["sentence_slots"], 4),
    }
