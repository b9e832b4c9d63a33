"""Synthetic corpora shaped like scientific abstracts, at any size, for measuring the data
path as a corpus grows (`benchmark.bench.scale`).

The arXiv abstracts of Chen et al. (2016) are about 1.1 M documents of 7.5 sentences on
average; an abstract's sentence is about 17 tokens. Here a document has 2 + Poisson(5.5)
sentences (at most 20), a sentence 1 + Poisson(15) words and a closing full stop (17 tokens
on average), and the words are drawn from a 30,000-word vocabulary with Zipf-Mandelbrot
frequencies (rank r weighs 1 / (r + 2.7)), so a corpus has a natural vocabulary's long
tail. Splits are 80/10/10. Seeded: one seed and size give the same files, byte for byte.
The corpus is the generic JSONL format (docs/design.md, section 3), read by `dataset=jsonl`.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import numpy as np

VOCABULARY = 30_000
MEAN_EXTRA_SENTENCES, MIN_SENTENCES, MAX_SENTENCES = 5.5, 2, 20
MEAN_EXTRA_WORDS = 15  # words = 1 + Poisson(15), then the full stop
SPLIT_FRACTIONS = {"train": 0.8, "valid": 0.1, "test": 0.1}
CHUNK = 10_000  # documents drawn at once
DONE = ".complete"  # written last: a corpus cut short is made again


def vocabulary(seed: int) -> list[str]:
    """`VOCABULARY` distinct lower-case words of 2 to 10 letters."""
    rng = np.random.default_rng([seed, 0xAB5])
    letters = np.array(list(string.ascii_lowercase))
    words: dict[str, None] = {}
    while len(words) < VOCABULARY:
        for length in rng.integers(2, 11, size=VOCABULARY):
            words.setdefault("".join(rng.choice(letters, size=length)), None)
            if len(words) == VOCABULARY:
                break
    return list(words)


def split_sizes(documents: int) -> dict[str, int]:
    """Documents per split (80/10/10, at least 2 each)."""
    valid = max(2, round(documents * SPLIT_FRACTIONS["valid"]))
    test = max(2, round(documents * SPLIT_FRACTIONS["test"]))
    return {"train": max(2, documents - valid - test), "valid": valid, "test": test}


def _lines(split: str, count: int, words: np.ndarray, seed: int):
    """The JSONL lines of one split, drawn a chunk at a time."""
    rng = np.random.default_rng([seed, list(SPLIT_FRACTIONS).index(split)])
    weights = 1.0 / (np.arange(VOCABULARY) + 2.7)
    weights /= weights.sum()
    for start in range(0, count, CHUNK):
        n = min(CHUNK, count - start)
        sentences = np.minimum(MIN_SENTENCES + rng.poisson(MEAN_EXTRA_SENTENCES, n), MAX_SENTENCES)
        lengths = 1 + rng.poisson(MEAN_EXTRA_WORDS, int(sentences.sum()))
        drawn = words[rng.choice(VOCABULARY, size=int(lengths.sum()), p=weights)].tolist()
        ends = np.cumsum(lengths).tolist()
        texts = [" ".join(drawn[end - length : end]).capitalize() + "."
                 for end, length in zip(ends, lengths.tolist(), strict=True)]  # fmt: skip
        first = 0
        for k, m in enumerate(sentences.tolist()):
            record = {"id": f"{split}-{start + k}", "sentences": texts[first : first + m]}
            first += m
            yield json.dumps(record) + "\n"


def write_abstracts_like(directory: Path, documents: int, seed: int = 0) -> Path:
    """train/valid/test.jsonl of `documents` abstract-like documents in `directory`, unless
    a complete corpus is there already; returns `directory`."""
    if (directory / DONE).is_file():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    words = np.array(vocabulary(seed), dtype=object)
    for split, count in split_sizes(documents).items():
        with open(directory / f"{split}.jsonl", "w", encoding="utf-8") as out:
            out.writelines(_lines(split, count, words, seed))
    (directory / DONE).write_text(json.dumps({"documents": documents, "seed": seed}))
    return directory
