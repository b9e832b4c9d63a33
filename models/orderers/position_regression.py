"""A calibration baseline with no neural network: a bag-of-words regression of each
sentence's relative position, decoded by sorting.

Each sentence i of a document of n sentences gets a predicted relative position
p_i = b + (1 / |s_i|) sum_{w in s_i} theta_w (a linear model over the sentence's
length-normalised word counts), trained against its gold relative position k_i / (n - 1)
by the squared error, averaged over the sentences of each document and over documents,
plus an L2 penalty l2 * ||theta||^2 (ridge regression; the bias is not penalised).
One-sentence documents have no relative position and are left out of the loss. The
prediction of a sentence depends on its own words only: no order information passes
between sentences, and the presented order never enters.

Decoding sorts the sentences by p_i (ascending; equal values keep the presented order,
which is the protocol's random shuffle and leaks nothing). `beam_size` is unused: sorting
is the exact argmax of the order model below.

Order model, for `forward` / `log_prob` (order discrimination): a Plackett-Luce
distribution over orders with scores s_i = -scale * (n - 1) * p_i, i.e. the predicted
position in units of sentences (one sentence earlier multiplies the odds of being placed
next by e^scale): P(o) = prod_k exp(s_{o_k}) / sum_{j not in o_<k} exp(s_j). It is a
normalised distribution over the n! orders and its mode is the sorted order, so
`forward` is a pointer's teacher-forced logits (the same scores at every step, placed
sentences masked). The scale is a choice (`pl_scale`, default 1), not fitted: the
regression loss says nothing about it.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from models.batch import prepared
from models.search.candidates import mask_scores, order_log_prob, placed_before


class PositionRegressor(nn.Module):

    def __init__(self, vocab_size: int, l2: float = 1e-4, pl_scale: float = 1.0) -> None:
        super().__init__()
        if l2 < 0 or pl_scale <= 0:
            raise ValueError(f"need l2 >= 0 and pl_scale > 0, got l2={l2}, pl_scale={pl_scale}")
        self.weights = nn.Embedding(vocab_size, 1, padding_idx=0)  # theta_w; <pad> stays 0
        nn.init.zeros_(self.weights.weight)
        self.bias = nn.Parameter(torch.full((1,), 0.5))  # b: the middle of the document
        self.l2 = float(l2)
        self.pl_scale = float(pl_scale)

    def positions(self, batch: dict) -> Tensor:
        """Predicted relative positions p (B, N); 0 at padding sentences."""
        batch = prepared(self, batch)
        tokens, lengths = batch["tokens"], batch["token_lengths"]  # (B, N, T), (B, N)
        summed = self.weights(tokens).squeeze(-1).sum(dim=-1)  # (B, N): <pad> adds 0
        mean = summed / lengths.clamp(min=1)  # (B, N) mean over the sentence's words
        return (mean + self.bias) * batch["sentence_mask"]  # (B, N)

    def scores(self, batch: dict) -> Tensor:
        """Plackett-Luce scores s = -scale * (n - 1) * p (B, N)."""
        n = batch["n_sentences"].clamp(min=2) - 1  # (B,) n - 1, 1 for one-sentence documents
        return -self.pl_scale * n.unsqueeze(-1) * self.positions(batch)  # (B, N)

    def forward(self, batch: dict) -> Tensor:
        """Teacher-forced Plackett-Luce logits (B, N, N): row k scores every sentence still
        unplaced after the gold prefix; placed and padding sentences masked."""
        scores = self.scores(batch)  # (B, N)
        gold, mask = batch["gold_order"], batch["sentence_mask"]
        num = mask.shape[1]
        allowed = mask.unsqueeze(1) & ~placed_before(gold, num)  # (B, N, N)
        return mask_scores(scores.unsqueeze(1).expand(-1, num, -1), allowed)

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """(B,) Plackett-Luce log P(order) of orders (B, N) (presented indices, -1 padded)."""
        scores = self.scores(batch)  # (B, N)
        mask = batch["sentence_mask"]
        num = mask.shape[1]
        allowed = mask.unsqueeze(1) & ~placed_before(orders, num)  # (B, N, N)
        logits = mask_scores(scores.unsqueeze(1).expand(-1, num, -1), allowed)
        return order_log_prob(logits, orders)

    def loss(self, batch: dict) -> Tensor:
        """Mean over documents (of two or more sentences) of the mean squared error of the
        predicted relative positions, plus l2 * ||theta||^2."""
        predicted = self.positions(batch)  # (B, N)
        gold, n = batch["gold_order"], batch["n_sentences"]  # (B, N), (B,)
        steps = torch.arange(gold.shape[1], device=gold.device).expand_as(gold)  # (B, N)
        relative = steps / (n.unsqueeze(-1) - 1).clamp(min=1)  # (B, N) k / (n - 1)
        target = torch.zeros_like(predicted)  # (B, N) gold relative position per presented
        target.scatter_(1, gold.clamp(min=0), torch.where(gold >= 0, relative, 0.0))
        mask = batch["sentence_mask"] & (n >= 2).unsqueeze(-1)  # (B, N)
        squared = (predicted - target).pow(2) * mask  # (B, N)
        per_document = squared.sum(dim=-1) / mask.sum(dim=-1).clamp(min=1)  # (B,)
        counted = (n >= 2).sum().clamp(min=1)
        penalty = self.l2 * self.weights.weight.pow(2).sum()
        return per_document.sum() / counted + penalty

    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> (B, N) presented indices sorted by predicted position, -1 padded."""
        with torch.no_grad():
            scores = self.scores(batch)  # (B, N)
        mask = batch["sentence_mask"]
        ranked = scores.masked_fill(~mask, float("-inf"))  # padding last
        order = torch.sort(ranked, dim=-1, descending=True, stable=True).indices  # (B, N)
        return order.masked_fill(~mask, -1)
