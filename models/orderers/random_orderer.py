"""A uniformly random permutation of the presented sentences: the `random` baseline's
model (`models.families.random_baseline.random_baseline`).

Each document's permutation comes from a generator seeded by sha256(seed, document id), so
predictions do not depend on batching or call order. Under the uniform model every order
has probability 1/n!, so `log_prob` is -log(n!) and `loss` its negation's mean; there is
nothing to train.
"""

import hashlib

import torch
from torch import Tensor, nn

from models.batch import prepared
from models.search.candidates import mask_scores, placed_before, validate_orders


class RandomOrderer(nn.Module):

    def __init__(self, seed: int = 0):  # seed of the per-document generators
        super().__init__()
        self.seed = seed

    def forward(self, batch: dict) -> Tensor:
        """Uniform teacher-forced logits (B, N, N): zeros, placed and padding masked."""
        batch = prepared(self, batch)
        gold, mask = batch["gold_order"], batch["sentence_mask"]
        num = mask.shape[1]
        allowed = mask.unsqueeze(1) & ~placed_before(gold, num)  # (B, N, N)
        return mask_scores(torch.zeros(allowed.shape, device=mask.device), allowed)

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """-> -log(n!) per document (B,), whatever the (valid) order."""
        batch = prepared(self, batch)
        n = batch["n_sentences"]
        validate_orders(orders, n)
        return -torch.lgamma(n.double() + 1).float()

    def loss(self, batch: dict) -> Tensor:
        """Mean over documents of log(n!) (a constant; nothing to optimise)."""
        return -self.log_prob(batch, batch["gold_order"]).mean()

    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> a uniform random order (B, N) per document, -1 padded; beam_size is unused."""
        batch = prepared(self, batch)
        if "doc_ids" not in batch:
            raise ValueError("batch is missing key 'doc_ids' (seeds the random baseline)")
        n = batch["n_sentences"]
        orders = torch.full(batch["sentence_mask"].shape, -1, dtype=torch.long)
        for b, doc_id in enumerate(batch["doc_ids"]):
            digest = hashlib.sha256(f"{self.seed}\0{doc_id}".encode()).digest()
            generator = torch.Generator().manual_seed(int.from_bytes(digest[:8], "little"))
            size = int(n[b])
            orders[b, :size] = torch.randperm(size, generator=generator)
        return orders.to(n.device)
