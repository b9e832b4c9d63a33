"""Helpers for model tests: batch dicts (the spec's format) from token-id sentences, a tiny
lstm_ptrnet, and an order-validity check."""

import random

import torch

from models.presets import lstm_ptrnet


def make_batch(docs, perms=None, doc_ids=None):
    """docs[b]: document b's sentences in GOLD order, each a list of >= 1 token ids.
    perms[b][j]: gold id of the sentence presented at position j (identity when None).
    """
    perms = perms or [list(range(len(doc))) for doc in docs]
    doc_ids = doc_ids or [f"doc-{b}" for b in range(len(docs))]
    batch_size = len(docs)
    num = max(len(doc) for doc in docs)
    length = max(len(sentence) for doc in docs for sentence in doc)
    tokens = torch.zeros(batch_size, num, length, dtype=torch.long)
    lengths = torch.zeros(batch_size, num, dtype=torch.long)
    gold = torch.full((batch_size, num), -1, dtype=torch.long)
    for b, (doc, perm) in enumerate(zip(docs, perms, strict=True)):
        assert sorted(perm) == list(range(len(doc))), perm
        for j, sentence_id in enumerate(perm):
            sentence = doc[sentence_id]
            tokens[b, j, : len(sentence)] = torch.tensor(sentence)
            lengths[b, j] = len(sentence)
            gold[b, sentence_id] = j
    n = torch.tensor([len(doc) for doc in docs])
    return {
        "tokens": tokens,
        "token_lengths": lengths,
        "sentence_mask": torch.arange(num) < n.unsqueeze(1),
        "n_sentences": n,
        "gold_order": gold,
        "doc_ids": list(doc_ids),
        "sentence_ids": [list(perm) for perm in perms],
    }


def random_docs(rng: random.Random, sizes, vocab_size=30, max_tokens=6):
    """Documents with len(sizes) entries; document b has sizes[b] random sentences."""
    return [
        [
            [rng.randrange(2, vocab_size) for _ in range(rng.randint(1, max_tokens))]
            for _ in range(size)
        ]
        for size in sizes
    ]


def random_batch(seed, sizes, vocab_size=30, max_tokens=6):
    """A shuffled batch of random documents with sizes[b] sentences each."""
    rng = random.Random(seed)
    docs = random_docs(rng, sizes, vocab_size, max_tokens)
    perms = [rng.sample(range(size), size) for size in sizes]
    return make_batch(docs, perms)


def sub_batch(batch, index):
    """The batch of document `index` alone, cut to its own N and T."""
    n = int(batch["n_sentences"][index])
    length = int(batch["token_lengths"][index].max())
    return {
        "tokens": batch["tokens"][index : index + 1, :n, :length],
        "token_lengths": batch["token_lengths"][index : index + 1, :n],
        "sentence_mask": batch["sentence_mask"][index : index + 1, :n],
        "n_sentences": batch["n_sentences"][index : index + 1],
        "gold_order": batch["gold_order"][index : index + 1, :n],
        "doc_ids": batch["doc_ids"][index : index + 1],
        "sentence_ids": batch["sentence_ids"][index : index + 1],
    }


def tiny_model(seed=0, **overrides):
    """A small lstm_ptrnet in eval mode with a non-zero learned start vector."""
    torch.manual_seed(seed)
    settings = dict(embedding_dim=8, sentence_hidden_dim=12, hidden_dim=10, attention_dim=7)
    model = lstm_ptrnet(vocab_size=30, **(settings | overrides))
    with torch.no_grad():
        model.decoder.start_input.normal_()
    return model.eval()


def assert_valid_orders(orders, n):
    """Each row: a permutation of 0..n-1, then -1 padding."""
    for row, size in zip(orders.tolist(), n.tolist(), strict=True):
        assert sorted(row[:size]) == list(range(size))
        assert row[size:] == [-1] * (len(row) - size)
