"""Distractor sentences: the noise setting of docs/design.md, section 4.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI), test
robustness by adding to each paragraph a sentence of another paragraph, which the model
should leave out. `noise` is the dataset option `dataset.noise`:

- `0`: no noise setting at all (the default; nothing here is used);
- `1`: every document gets exactly one distractor;
- `0/1`: a document gets one distractor with probability 0.5.

A distractor is one sentence, uniformly drawn, of another document (uniformly drawn) of
the same split. It is presented at a uniformly drawn slot among the document's shuffled
sentences, so neither its position nor the order of the others reveals it; the others keep
their relative presented order. The k-th distractor has sentence id -k and no gold
position. Valid/test draws are fixed per document from the SHA-256 of ("noise", dataset,
split, document id, protocol seed), like the evaluation permutations (`data.shuffle`), so
every model sees the same noisy documents; training draws are fresh at every epoch, from
(seed, epoch, index) on a stream of their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from data.shuffle import eval_generator, train_generator

NOISE_SETTINGS = ("0", "1", "0/1")  # as written in the config (0 and 1 may be integers)
_STREAM = "noise"  # evaluation key prefix: separates these draws from the permutations
_TRAIN_STREAM = 0x7A2  # training stream (the permutations use 0x7A1)


@dataclass(frozen=True)
class Distractor:
    """A sentence of another document of the split, and where it is presented."""

    doc: int  # index of the source document in the split
    sentence: int  # its sentence id in that document
    slot: int  # presented position among the document's n + 1 sentences


def noise_setting(value: int | str) -> str:
    """`dataset.noise` (0, 1, "0", "1" or "0/1") -> "0", "1" or "0/1"; ValueError else."""
    text = value if isinstance(value, str) else repr(value)
    if isinstance(value, bool) or text not in NOISE_SETTINGS:
        raise ValueError(
            f"dataset.noise must be one of 0, 1, 0/1 (docs/design.md, section 4), got {value!r}"
        )
    return text


def has_noise(value: int | str) -> bool:
    """Whether `dataset.noise` puts the documents in the noise setting (1 or 0/1)."""
    return noise_setting(value) != "0"


def noise_label(dataset: str, value: int | str) -> str:
    """The name of a dataset in a noise setting, for run directories and run records:
    `brown` (noise 0), `brown_noise1`, `brown_noise0-1`."""
    setting = noise_setting(value)
    return dataset if setting == "0" else f"{dataset}_noise{setting.replace('/', '-')}"


def draw_distractors(
    rng: np.random.Generator, setting: str, index: int, sizes: Sequence[int]
) -> list[Distractor]:
    """The distractors (none or one) of document `index` of a split whose documents have
    `sizes` sentences; `setting` from `noise_setting`."""
    if setting == "0" or (setting == "0/1" and rng.random() < 0.5):
        return []
    if len(sizes) < 2:
        raise ValueError("dataset.noise needs at least two documents in every split")
    other = int(rng.integers(len(sizes) - 1))
    other += other >= index  # uniform over the documents other than `index`
    sentence = int(rng.integers(int(sizes[other])))
    return [Distractor(other, sentence, int(rng.integers(int(sizes[index]) + 1)))]


def eval_distractors(
    setting: str, dataset: str, split: str, doc_ids: Iterable[str], sizes: Sequence[int], seed: int
) -> list[list[Distractor]]:
    """The fixed distractors of every document of an evaluation split."""
    return [
        draw_distractors(
            eval_generator(_STREAM, dataset, split, doc_id, int(seed)), setting, i, sizes
        )
        for i, doc_id in enumerate(doc_ids)
    ]


def train_distractors(
    setting: str, seed: int, epoch: int, index: int, sizes: Sequence[int]
) -> list[Distractor]:
    """The distractors of training document `index` at `epoch`."""
    return draw_distractors(
        train_generator(_TRAIN_STREAM, seed, epoch, index), setting, index, sizes
    )


def present(permutation: list[int], distractors: list[Distractor]) -> list[int]:
    """Presented sentence ids: `permutation` (gold ids) with distractor k (id -k - 1)
    inserted at its slot."""
    presented = list(permutation)
    for k, distractor in enumerate(distractors):
        presented.insert(distractor.slot, -k - 1)
    return presented
