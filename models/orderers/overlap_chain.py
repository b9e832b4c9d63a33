"""A rule baseline with no learning at all: a chain of word overlap.

Lexical cohesion (Halliday and Hasan 1976; adjacent-sentence overlap as a coherence score,
Foltz, Kintsch and Landauer 1998) says that neighbouring sentences share words. Each
sentence is its set W_i of content word ids: the word ids of the vocabulary from
2 + skip_top on (ids are ranked by training frequency, `data.vocab`, so the `skip_top`
most frequent words, mostly function words, and `<pad>`/`<unk>` are left out). With the
Jaccard overlap J(i, j) = |W_i & W_j| / |W_i | W_j| (0 when both are empty):

- the first sentence is the most central, the largest c_i = mean_{j != i} J(i, j);
- each next sentence is the unplaced one with the largest J(previous, j).

Ties (equal values) go to the larger centrality, then to the sentence whose content-word
ids, sorted, come first (a function of the text only), then to the lower presented index
(only sentences with the same content words are left by then; the presented order is the
protocol's random shuffle). The gold order is never read (`gold_order` is used only by
`forward`, the teacher-forced scores), and the prediction, read as sentence ids, does not
depend on the presented order unless two sentences have the same content words.

The step scores are `forward` (row 0: c_j; row k: J(gold_{k-1}, j)); `log_prob(order)`
is their sum along the order, c_{o_0} + sum_k J(o_{k-1}, o_k): the greedy decoder's
objective, a coherence score, not a normalised probability (order discrimination compares
the scores of one document's orders; equal scores are ties). Nothing is trained.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from models.batch import prepared
from models.search.candidates import mask_scores, placed_before, validate_orders


class OverlapChain(nn.Module):

    def __init__(self, skip_top: int = 100) -> None:
        super().__init__()
        if skip_top < 0:
            raise ValueError(f"skip_top must be >= 0, got {skip_top}")
        self.first_content_id = 2 + int(skip_top)  # below: <pad>, <unk> and frequent words

    def _content(self, batch: dict) -> Tensor:
        """(B, N, V') 0/1 content-word sets over the ids present in the batch."""
        tokens = batch["tokens"]  # (B, N, T)
        ids, inverse = torch.unique(tokens, return_inverse=True)  # (V',), (B, N, T)
        keep = (ids >= self.first_content_id).float()  # (V',)
        sets = torch.zeros(*tokens.shape[:2], len(ids), device=tokens.device)  # (B, N, V')
        sets.scatter_(2, inverse, 1.0)
        return sets * keep

    def overlaps(self, batch: dict) -> tuple[Tensor, Tensor, Tensor]:
        """(J (B, N, N) with 0 on the diagonal and at padding, centrality c (B, N), text key
        (B, N): the rank of each sentence's sorted content-word ids within its document)."""
        batch = prepared(self, batch)
        sets = self._content(batch)  # (B, N, V')
        mask = batch["sentence_mask"]  # (B, N)
        inter = sets @ sets.transpose(1, 2)  # (B, N, N)
        sizes = sets.sum(dim=-1)  # (B, N)
        union = sizes.unsqueeze(2) + sizes.unsqueeze(1) - inter  # (B, N, N)
        jaccard = torch.where(union > 0, inter / union.clamp(min=1), torch.zeros_like(inter))
        pair = mask.unsqueeze(2) & mask.unsqueeze(1)  # (B, N, N)
        eye = torch.eye(mask.shape[1], dtype=torch.bool, device=mask.device)
        jaccard = jaccard * (pair & ~eye)
        others = (batch["n_sentences"] - 1).clamp(min=1).unsqueeze(-1)  # (B, 1)
        centrality = jaccard.sum(dim=-1) / others  # (B, N)
        return jaccard, centrality, self._text_rank(sets, mask)

    def _text_rank(self, sets: Tensor, mask: Tensor) -> Tensor:
        """(B, N) rank of each sentence's sorted content-word ids among its document's."""
        ranks = torch.zeros(mask.shape, dtype=torch.long)
        for b in range(mask.shape[0]):
            n = int(mask[b].sum())
            keys = [tuple(sets[b, j].nonzero().flatten().tolist()) for j in range(n)]
            for rank, j in enumerate(sorted(range(n), key=lambda j: (keys[j], j))):
                ranks[b, j] = rank
        return ranks.to(mask.device)

    def forward(self, batch: dict) -> Tensor:
        """Teacher-forced step scores (B, N, N): row 0 the centralities, row k the overlaps
        with the gold sentence placed at step k - 1; placed and padding sentences masked."""
        jaccard, centrality, _ = self.overlaps(batch)
        gold, mask = batch["gold_order"], batch["sentence_mask"]
        num = mask.shape[1]
        previous = torch.cat([gold[:, :1], gold[:, :-1]], dim=1).clamp(min=0)  # (B, N)
        rows = jaccard.gather(1, previous.unsqueeze(-1).expand(-1, -1, num))  # (B, N, N)
        rows[:, 0] = centrality
        allowed = mask.unsqueeze(1) & ~placed_before(gold, num)  # (B, N, N)
        return mask_scores(rows, allowed)

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """(B,) coherence score c_{o_0} + sum_k J(o_{k-1}, o_k) of orders (B, N)."""
        validate_orders(orders, batch["n_sentences"])
        jaccard, centrality, _ = self.overlaps(batch)
        first = centrality.gather(1, orders[:, :1].clamp(min=0)).squeeze(1)  # (B,)
        previous, current = orders[:, :-1], orders[:, 1:]  # (B, N - 1)
        real = (previous >= 0) & (current >= 0)  # (B, N - 1)
        steps = jaccard[
            torch.arange(len(orders)).unsqueeze(-1), previous.clamp(min=0), current.clamp(min=0)
        ]  # (B, N - 1)
        return first + (steps * real).sum(dim=-1)

    def loss(self, batch: dict) -> Tensor:
        """Minus the mean score of the gold orders (nothing is optimised)."""
        return -self.log_prob(batch, batch["gold_order"]).mean()

    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> (B, N) the greedy overlap chain (presented indices, -1 padded)."""
        jaccard, centrality, text = self.overlaps(batch)
        n_sentences = batch["n_sentences"].tolist()
        orders = torch.full(batch["sentence_mask"].shape, -1, dtype=torch.long)
        for b, n in enumerate(n_sentences):
            chain = _greedy_chain(n, jaccard[b].tolist(), centrality[b].tolist(),
                                  text[b].tolist())  # fmt: skip
            orders[b, :n] = torch.tensor(chain, dtype=torch.long)
        return orders.to(batch["n_sentences"].device)


def _greedy_chain(n: int, overlap: list, centrality: list, text: list) -> list[int]:
    """The chain over n sentences: the most central first, then the largest overlap with
    the previous one; ties to the larger centrality, then the smaller text rank."""

    def key(j: int, score: float) -> tuple:  # larger is better
        return score, centrality[j], -text[j]

    left = set(range(n))
    current = max(left, key=lambda j: key(j, centrality[j]))
    chain = [current]
    left.remove(current)
    while left:
        current = max(left, key=lambda j, previous=current: key(j, overlap[previous][j]))
        chain.append(current)
        left.remove(current)
    return chain
