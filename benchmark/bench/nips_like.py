"""Synthetic documents with the lengths of the NIPS abstracts, for timing the paper-size
presets where the corpus itself is not at hand.

The NIPS abstracts (Logeswaran et al. 2018, "Sentence Ordering and Coherence Modeling
using Recurrent Neural Networks", AAAI; the split of Yin et al. 2019, `data.readers.nseg`)
are the corpus the ATTOrderNet paper (Cui et al. 2018, Table 3) times and
scores. Only their length distribution matters for speed: the number of sentences per
abstract and of tokens per sentence (this project's tokenizer) are drawn from the
histograms below, counted on that training split; the words are random ids of a
vocabulary of NIPS's size. The documents are written as the generic JSONL format
(docs/datasets.md, `dataset=jsonl`), so the DataModule's own reader, tokenizer,
length-aware batching and collation run on them exactly as on a real corpus.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from data.readers.nseg import SOURCE as NSEG_SOURCE

# training abstracts by number of sentences (2 to 15; mean 6.14)
SENTENCES = {
    2: 32, 3: 118, 4: 346, 5: 487, 6: 513, 7: 385, 8: 261, 9: 143, 10: 81, 11: 42, 12: 10,
    13: 5, 14: 3, 15: 1,
}  # fmt: skip
# training sentences by tokens, in bins of 4 (first, last token count): 14,899 sentences,
# mean 25.96 tokens; the DataModule truncates at 60 (1.3% of the sentences)
TOKENS = {
    (1, 4): 28, (5, 8): 162, (9, 12): 732, (13, 16): 1808, (17, 20): 2458, (21, 24): 2537,
    (25, 28): 2114, (29, 32): 1721, (33, 36): 1219, (37, 40): 766, (41, 44): 516,
    (45, 48): 282, (49, 52): 186, (53, 56): 94, (57, 60): 85, (61, 80): 191,
}  # fmt: skip
VOCABULARY = 14_000  # distinct training words of the NIPS split (14,007 with <pad>, <unk>)
SPLIT_SIZES = NSEG_SOURCE.sizes  # abstracts per split, as in the SE-Graph copy


def nips_like_documents(count: int, seed: int, prefix: str,
                        words: list[str] | None = None) -> list[dict]:
    """`count` documents {"id", "sentences"} with NIPS's sentence and token counts; word i
    is `words[i]` (`VOCABULARY` of them), else `w<i>`."""
    rng = random.Random(seed)
    sizes, size_weights = list(SENTENCES), list(SENTENCES.values())
    bins, bin_weights = list(TOKENS), list(TOKENS.values())
    documents = []
    for index in range(count):
        sentences = []
        for _ in range(rng.choices(sizes, size_weights)[0]):
            low, high = rng.choices(bins, bin_weights)[0]
            ids = rng.choices(range(VOCABULARY), k=rng.randint(low, high))
            sentences.append(" ".join(words[i] if words else f"w{i}" for i in ids))
        documents.append({"id": f"{prefix}-{index}", "sentences": sentences})
    return documents


def write_nips_like(directory: Path, seed: int = 0, scale: float = 1.0) -> Path:
    """train/valid/test.jsonl of NIPS-like documents in `directory` (the split sizes of the
    NIPS split times `scale`, at least 2 each); returns `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    for offset, (split, size) in enumerate(SPLIT_SIZES.items()):
        documents = nips_like_documents(max(2, round(size * scale)), seed * 3 + offset, split)
        lines = "".join(json.dumps(document) + "\n" for document in documents)
        (directory / f"{split}.jsonl").write_text(lines)
    return directory
