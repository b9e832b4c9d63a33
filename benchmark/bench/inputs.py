"""Documents to decode in the benchmark: a sample of a real test split, and synthetic
paragraphs of a chosen length.

The sample takes evenly spaced test documents, each in its fixed evaluation permutation,
and batches them as the evaluation loader does (sorted by size, `eval_batch_size` per
batch), so it has the split's mix of paragraph lengths. Synthetic paragraphs are random
word ids of the dataset's vocabulary, 12 to 28 words per sentence (20 on average, about a
Brown sentence), presented in a random order; their text (for MiniLM) spells the ids.
"""

from __future__ import annotations

import random

from data.collate import collate
from data.example import make_example

MIN_WORDS, MAX_WORDS = 12, 28  # words per synthetic sentence


def test_sample(datamodule, docs: int) -> list[dict]:
    """`docs` evenly spaced documents of the test split (all if fewer), in batches of the
    datamodule's `eval_batch_size`, sorted by size as in evaluation."""
    dataset = datamodule.datasets["test"]
    total, count = len(dataset), min(docs, len(dataset))
    chosen = [i * total // count for i in range(count)]
    sizes = dataset.sizes()  # (documents, 2): sentences, longest sentence
    chosen.sort(key=lambda index: tuple(sizes[index].tolist()))
    size = datamodule.eval_batch_size
    return [
        collate([dataset[(index, 0)] for index in chosen[start : start + size]])
        for start in range(0, len(chosen), size)
    ]


def synthetic_batch(vocab, docs: int, sentences: int, seed: int = 0) -> dict:
    """One batch of `docs` random paragraphs of `sentences` sentences each."""
    rng = random.Random(seed)
    words = range(2, len(vocab))  # every id but <pad> and <unk>
    examples = []
    for d in range(docs):
        token_ids = [
            rng.choices(words, k=rng.randint(MIN_WORDS, MAX_WORDS)) for _ in range(sentences)
        ]
        texts = [" ".join(vocab.itos[i] for i in ids) for ids in token_ids]
        permutation = rng.sample(range(sentences), sentences)
        examples.append(make_example(f"synthetic-{d}", token_ids, permutation, MAX_WORDS, texts))
    return collate(examples)
