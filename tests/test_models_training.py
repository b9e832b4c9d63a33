"""A tiny lstm_ptrnet learns a toy ordering task with plain torch + Adam.

Each sentence carries a rank token (the token says the sentence's gold position) among
random filler tokens, so a model that reads sentences reaches a Kendall tau near 1.
"""

import random

import torch

from models.presets import lstm_ptrnet
from tests.model_batches import make_batch

RANK_BASE, FILLER_BASE, VOCAB = 2, 10, 40  # rank tokens 2..9, fillers 10..39


def toy_batch(rng, size):
    docs, perms = [], []
    for _ in range(size):
        n = rng.randint(2, 6)
        doc = []
        for k in range(n):
            sentence = [rng.randrange(FILLER_BASE, VOCAB) for _ in range(rng.randint(1, 4))]
            sentence.insert(rng.randint(0, len(sentence)), RANK_BASE + k)
            doc.append(sentence)
        docs.append(doc)
        perms.append(rng.sample(range(n), n))
    return make_batch(docs, perms)


def kendall_tau(gold, pred):
    position = {sentence: k for k, sentence in enumerate(pred)}
    n = len(gold)
    inversions = sum(
        position[gold[i]] > position[gold[j]] for i in range(n) for j in range(i + 1, n)
    )
    return 1 - 4 * inversions / (n * (n - 1))


def test_lstm_ptrnet_learns_rank_tokens():
    torch.manual_seed(0)
    rng = random.Random(0)
    model = lstm_ptrnet(VOCAB, embedding_dim=16, sentence_hidden_dim=32, hidden_dim=32)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(80):
        optimiser.zero_grad()
        loss = model.loss(toy_batch(rng, 32))
        loss.backward()
        optimiser.step()
    model.eval()
    batch = toy_batch(random.Random(1), 200)
    taus = []
    for beam_size in (1, 4):
        orders = model.decode(batch, beam_size=beam_size)
        gold = batch["gold_order"]
        taus.append(
            sum(
                kendall_tau(gold[b, :n].tolist(), orders[b, :n].tolist())
                for b, n in enumerate(batch["n_sentences"].tolist())
            )
            / len(gold)
        )
    assert min(taus) >= 0.9, (taus, loss.item())
