"""A stub decoder with a fixed table of transition scores, and the exact best order under it
by brute force, for the tests of the searches (`models.search`)."""

from itertools import permutations

import torch

from models.search.candidates import mask_scores


class TransitionDecoder:
    """A stub decoder with a fixed score table: score of j after i is table[b, i + 1, j]
    (row 0 holds the first step). Exercises the searches through the decoder protocol."""

    def start(self, table):
        rows = table.shape[0]
        return (table,), (torch.zeros(rows, dtype=torch.long),)  # state: previous index + 1

    def step(self, memory, state, previous, available):
        (table,), (last,) = memory, state
        nxt = previous + 1 if previous is not None else last
        scores = table[torch.arange(table.shape[0]), nxt]  # (R, N)
        return mask_scores(scores, available), (nxt,)

    def reindex(self, tensors, index):
        return tuple(tensor.index_select(0, index) for tensor in tensors)


def brute_force(table, n):
    """Best order and its log-probability under TransitionDecoder."""
    best = None
    for order in permutations(range(n)):
        total, last, left = 0.0, 0, set(range(n))
        for j in order:
            scores = table[last, sorted(left)]
            total += float(table[last, j] - torch.logsumexp(scores, 0))
            left.remove(j)
            last = j + 1
        if best is None or total > best[1] + 1e-9:
            best = (list(order), total)
    return best


def run(search, table, available, **kwargs):
    decoder = TransitionDecoder()
    memory, state = decoder.start(table)
    return search(decoder, memory, state, available, **kwargs)
