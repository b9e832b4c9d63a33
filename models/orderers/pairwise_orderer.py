"""Pairwise ordering: classify which of two sentences comes first, then sort.

Prabhumoye, Salakhutdinov and Black (2020), "Topological Sort for Sentence Ordering"
(ACL; B-TSort): a classifier predicts, for a pair of sentences (a, b) of a document,
whether a comes before b. It is trained on every pair of every training document, in
both orders (the authors' `prepare_data.py` writes (a, b, 1) and (b, a, 0) for each
a before b), with the cross-entropy averaged over pairs. At test time each unordered
pair is classified once and the predicted constraints are topologically sorted
(`models.search.topological_sort`).

Here every sentence is encoded once (`sentence_encoder`: an LSTM over word vectors, or a
text encoder such as MiniLM) and `PairOrderClassifier` scores z(a, b) for every ordered
pair at once: `forward` returns these logits (B, N, N), not pointer logits. The
precedence probability P(a before b) of a pair comes from

- `pair_direction="presented"` (the authors' code): one classification per pair, of the
  pair in the presented order: for presented indices i < j, P(i before j) =
  sigmoid(z(i, j)) and P(j before i) = 1 - P(i before j). The presented order is the
  protocol's random shuffle, as the released code draws a random direction per pair.
- `pair_direction="both"` (ours, off by default): both classifications averaged,
  P(a before b) = (sigmoid(z(a, b)) + 1 - sigmoid(z(b, a))) / 2, which no longer depends
  on the presented order.

Either way P(a before b) + P(b before a) = 1.

Decoding (`decoder`): `"tsort"`, a topological sort of the edges a -> b with
P(a before b) > 0.5, cycles broken by `cycle_rule` (`"dfs"`: the authors' code, default;
`"confidence"`: ours); or `"winsum"`, sentences ranked by their summed win probabilities.
Neither searches over orders, so `beam_size` is ignored.

`log_prob(order)` = sum over position pairs k < l of log P(o_k before o_l): the
log-likelihood of the order's C(n, 2) pairwise relations as if they were independent.
It is a score, not a normalised log-probability over the n! orders (those scores do not
sum to one), which is what order discrimination needs: the original order should score
higher than its permutations.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.batch import prepared, row_passes
from models.blocks.pair_classifier import PairOrderClassifier
from models.interfaces import SentenceEncoder, TextSentenceEncoder
from models.ordering_model import OrderingModel
from models.search.candidates import validate_orders
from models.search.topological_sort import CYCLE_RULES, topological_order, win_order

DECODERS = ("tsort", "winsum")
PAIR_DIRECTIONS = ("presented", "both")


class PairwiseOrderer(nn.Module):

    def __init__(
        self,
        sentence_encoder: SentenceEncoder | TextSentenceEncoder,
        classifier: PairOrderClassifier,
        embedding: nn.Module | None,  # None: the sentence encoder reads batch["texts"]
        decoder: str = "tsort",  # "tsort" (B-TSort) or "winsum" (summed win probabilities)
        cycle_rule: str = "dfs",  # tsort's cycle breaking: "dfs" (authors' code), "confidence"
        pair_direction: str = "presented",  # "presented" (authors' code) or "both" (ours)
    ):
        super().__init__()
        for key, value, allowed in (
            ("decoder", decoder, DECODERS),
            ("cycle_rule", cycle_rule, CYCLE_RULES),
            ("pair_direction", pair_direction, PAIR_DIRECTIONS),
        ):
            if value not in allowed:
                raise ValueError(f"model.net.{key} must be one of {allowed}, got {value!r}")
        self.embedding = embedding
        self.sentence_encoder = sentence_encoder
        self.classifier = classifier
        self.decoder = decoder
        self.cycle_rule = cycle_rule
        self.pair_direction = pair_direction

    # the same sentence vectors as the pointer models (word vectors or raw text), and the
    # same host side (models.batch.prepare_batch)
    sentence_vectors = OrderingModel.sentence_vectors
    host_inputs = OrderingModel.host_inputs

    def forward(self, batch: dict) -> Tensor:
        """-> pair logits (B, N, N): [b, i, j] = z(presented sentence i, sentence j)."""
        batch = prepared(self, batch)
        words = None if self.embedding is None else self.embedding(batch["tokens"])
        return self.classifier(self.sentence_vectors(batch, words))  # (B, N, N)

    def loss(self, batch: dict) -> Tensor:
        """Binary cross-entropy of z(a, b) against "a before b in the gold order", averaged
        over every ordered pair of distinct real sentences in the batch."""
        logits = self(batch)  # (B, N, N)
        rank = gold_ranks(batch["gold_order"], batch["sentence_mask"].shape[1])  # (B, N)
        labels = (rank.unsqueeze(2) < rank.unsqueeze(1)).float()  # (B, N, N)
        losses = F.binary_cross_entropy_with_logits(logits, labels, reduction="none")
        pairs = real_pairs(batch["sentence_mask"]).to(losses.dtype)  # (B, N, N)
        return (losses * pairs).sum() / pairs.sum()  # the mean over the real pairs

    def pair_log_probs(self, batch: dict) -> Tensor:
        """-> log P(i before j) (B, N, N) by `pair_direction` (diagonal and padding: 0)."""
        logits = self(batch).float()  # (B, N, N)
        if self.pair_direction == "presented":
            upper = torch.ones_like(logits, dtype=torch.bool).triu(diagonal=1)  # i < j
            log_probs = torch.where(
                upper, F.logsigmoid(logits), F.logsigmoid(-logits.transpose(1, 2))
            )
        else:  # log((sigmoid(z_ij) + sigmoid(-z_ji)) / 2)
            both = torch.logaddexp(F.logsigmoid(logits), F.logsigmoid(-logits.transpose(1, 2)))
            log_probs = both - math.log(2.0)
        return log_probs.masked_fill(~real_pairs(batch["sentence_mask"]), 0.0)

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """orders (B, N) presented indices, -1 padded -> sum over k < l of
        log P(o_k before o_l) (B,): a score, not a normalised log-probability."""
        batch = prepared(self, batch)
        validate_orders(orders, batch["n_sentences"])
        return order_score(self.pair_log_probs(batch), orders)

    def log_prob_of_rows(
        self, batch: dict, doc_of_row: Tensor, orders: Tensor, rows_per_pass: int | None = None
    ) -> Tensor:
        """`log_prob` of orders[r] (R, N) for document doc_of_row[r] (R,) of `batch`: each
        document's pairs classified once (they do not depend on the scored order), summed for
        the rows in passes of `rows_per_pass` (None: one pass)."""
        batch = prepared(self, batch)
        validate_orders(orders, batch["n_sentences"].index_select(0, doc_of_row))
        log_probs = self.pair_log_probs(batch)  # (B, N, N) per document
        scores = [
            order_score(log_probs.index_select(0, doc_of_row[part]), orders[part])
            for part in row_passes(len(doc_of_row), rows_per_pass)
        ]
        return torch.cat(scores) if scores else log_probs.new_zeros(0)

    @torch.no_grad()
    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> predicted orders (B, N), -1 padded; `beam_size` is unused (no search)."""
        probs = self.pair_log_probs(batch).exp().cpu().numpy()  # (B, N, N)
        n_sentences = batch["n_sentences"].tolist()
        orders = torch.full(batch["sentence_mask"].shape, -1, dtype=torch.long)
        for b, n in enumerate(n_sentences):
            prob = probs[b, :n, :n]
            if self.decoder == "tsort":
                order = topological_order(prob, self.cycle_rule)
            else:
                order = win_order(prob)
            orders[b, :n] = torch.tensor(order, dtype=torch.long)
        return orders.to(batch["n_sentences"].device)


def order_score(log_probs: Tensor, orders: Tensor) -> Tensor:
    """log P(i before j) (B, N, N), zero off real pairs, and orders (B, N) presented
    indices, -1 padded -> sum over k < l of log P(o_k before o_l) (B,)."""
    position = gold_ranks(orders, orders.shape[1])  # (B, N) place of each sentence
    before = position.unsqueeze(2) < position.unsqueeze(1)  # (B, N, N) i placed before j
    return (log_probs * before).sum(dim=(1, 2))


def gold_ranks(orders: Tensor, num: int) -> Tensor:
    """orders (B, K) presented indices, -1 padded -> rank (B, num): rank[b, orders[b, k]] = k;
    sentences not in the order get rank num."""
    batch, length = orders.shape
    rank = torch.full((batch, num + 1), num, dtype=torch.long, device=orders.device)
    steps = torch.arange(length, device=orders.device).expand(batch, length)  # (B, K)
    index = torch.where(orders >= 0, orders, torch.full_like(orders, num))  # padding -> spare
    rank.scatter_(1, index, torch.where(orders >= 0, steps, torch.full_like(steps, num)))
    return rank[:, :num]


def real_pairs(mask: Tensor) -> Tensor:
    """mask (B, N) real sentences -> (B, N, N) True for pairs of distinct real sentences."""
    pairs = mask.unsqueeze(2) & mask.unsqueeze(1)  # (B, N, N)
    return pairs & ~torch.eye(mask.shape[1], dtype=torch.bool, device=mask.device)
