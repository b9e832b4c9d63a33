"""Helpers for model tests: batch dicts (the spec's format) from token-id sentences, tiny
instances of every preset, and an order-validity check."""

import random
from itertools import permutations

import torch

from models.registry import presets


def make_batch(docs, perms=None, doc_ids=None, words=None):
    """docs[b]: document b's sentences in GOLD order, each a list of >= 1 token ids.
    perms[b][j]: gold id of the sentence presented at position j (identity when None).
    batch["texts"] (for text encoders) spells each sentence with words[token id], or
    "word<id>" when `words` is None.
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
        "texts": [
            [sentence_text(doc[i], words) for i in perm]
            for doc, perm in zip(docs, perms, strict=True)
        ],
    }


def sentence_text(token_ids, words=None):
    """A stand-in text for a sentence of token ids: words[id] or "word<id>" per token."""
    return " ".join(words[t] if words else f"word{t}" for t in token_ids) + "."


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
        "texts": batch["texts"][index : index + 1],
    }


# Small settings of every trainable pointer preset (vocabulary of 30 word ids), from the registry.
TINY_SETTINGS = {name: p.tiny for name, p in presets().items() if p.trainable and p.pointer}
PRESETS = tuple(TINY_SETTINGS)
# presets whose paragraph encoder is order-free (self-attention without positions)
SET_ENCODERS = tuple(name for name in PRESETS if presets()[name].order_free)


def tiny_preset(name, seed=0, **overrides):
    """A small instance of preset `name` in eval mode; learned start vectors are non-zero."""
    torch.manual_seed(seed)
    model = presets()[name].build(vocab_size=30, **(TINY_SETTINGS[name] | overrides))
    start = getattr(model.decoder, "start_input", None)
    if isinstance(start, torch.nn.Parameter):
        with torch.no_grad():
            start.normal_()
    return model.eval()


def tiny_model(seed=0, **overrides):
    """A small lstm_ptrnet in eval mode with a non-zero learned start vector."""
    return tiny_preset("lstm_ptrnet", seed, **overrides)


def assert_valid_orders(orders, n):
    """Each row: a permutation of 0..n-1, then -1 padding."""
    for row, size in zip(orders.tolist(), n.tolist(), strict=True):
        assert sorted(row[:size]) == list(range(size))
        assert row[size:] == [-1] * (len(row) - size)


def repeat_document(batch, index, count):
    """Document `index` of `batch`, `count` times over (to score many orders at once)."""
    return {
        key: value[index : index + 1].expand(count, *value.shape[1:])
        if torch.is_tensor(value)
        else [value[index]] * count
        for key, value in batch.items()
    }


def all_orders(size, num):
    """Every order of `size` sentences as rows of a (size!, num) tensor, -1 padded."""
    return torch.tensor([list(p) + [-1] * (num - size) for p in permutations(range(size))])


NOISY_SIZES = [4, 1, 3, 2]  # presented sentences, distractor included where there is one
NOISY = [True, True, False, True]  # documents given a distractor (as under noise=0/1)


def noisy_batch(seed: int, sizes=NOISY_SIZES, noisy=NOISY) -> dict:
    """A shuffled batch in which the last gold sentence of each `noisy` document is a
    distractor: sentence id -1, no gold position."""
    batch = random_batch(seed, sizes)
    for b, (size, has_noise) in enumerate(zip(sizes, noisy, strict=True)):
        if has_noise:
            ids = batch["sentence_ids"][b]
            ids[ids.index(size - 1)] = -1
            batch["gold_order"][b, size - 1] = -1
    return batch
