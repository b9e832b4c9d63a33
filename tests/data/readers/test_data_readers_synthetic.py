"""Synthetic dataset: deterministic, sized as asked, with the rank cue inside each sentence."""

from __future__ import annotations

from collections import Counter

import pytest

from data.readers.synthetic import RANK_WORDS, SyntheticReader
from data.tokenize import tokenize


def test_sizes_and_determinism() -> None:
    reader = SyntheticReader(n_train=50, n_valid=7, n_test=9, seed=4)
    splits = reader.read_splits()
    assert {k: len(v) for k, v in splits.items()} == {"train": 50, "valid": 7, "test": 9}
    assert splits == SyntheticReader(n_train=50, n_valid=7, n_test=9, seed=4).read_splits()
    assert (
        splits["test"]
        == SyntheticReader(n_train=5, n_valid=7, n_test=9, seed=4).read_splits()["test"]
    )
    assert splits["train"] != SyntheticReader(n_train=50, seed=5).read_splits()["train"]
    ids = [d.id for docs in splits.values() for d in docs]
    assert len(ids) == len(set(ids))


def test_rank_cue_at_random_positions() -> None:
    docs = SyntheticReader(n_train=300, min_sentences=3, max_sentences=7).read_splits()["train"]
    assert {len(d) for d in docs} == set(range(3, 8))
    positions = Counter()
    for doc in docs:
        for rank, sentence in enumerate(doc.sentences):
            words = tokenize(sentence)[:-1]  # drop the final "."
            cues = [w for w in words if w in RANK_WORDS]
            assert cues == [RANK_WORDS[rank]]
            positions[words.index(cues[0])] += 1
    assert len(positions) > 5 and max(positions.values()) < 0.4 * sum(positions.values())


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="max_sentences"):
        SyntheticReader(max_sentences=30)
    with pytest.raises(ValueError, match="min_filler"):
        SyntheticReader(min_filler=5, max_filler=2)
