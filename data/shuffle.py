"""The shuffle protocol (docs/design.md, section 5).

Evaluation: one fixed permutation per document, drawn from a NumPy generator seeded with
the SHA-256 of (dataset, split, document id, protocol seed), so it is identical for every
model, training seed and machine, and the comparisons between models are paired.
Training: a fresh permutation of every document at every epoch, from (seed, epoch, index).
Permutations are uniform; the identity is not excluded.

``presented[j]`` is the sentence with gold id ``perm[j]``. Other draws of the protocol
(the distractors of ``data.noise``) use the same two generators on streams of their own.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

_TRAIN_STREAM = 0x7A1  # separates training permutations from other seeded streams


def eval_generator(*key: str | int) -> np.random.Generator:
    """The generator of an evaluation draw, seeded with the SHA-256 of ``key`` (JSON)."""
    digest = hashlib.sha256(json.dumps(list(key)).encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest, "big"))


def train_generator(stream: int, seed: int, epoch: int, index: int) -> np.random.Generator:
    """The generator of a training draw of document ``index`` at ``epoch`` on ``stream``."""
    return np.random.default_rng([stream, seed, epoch, index])


def eval_permutation(
    dataset: str, split: str, doc_id: str, n: int, protocol_seed: int
) -> list[int]:
    """The fixed presentation order of an evaluation document of ``n`` sentences."""
    rng = eval_generator(dataset, split, doc_id, int(protocol_seed))
    return rng.permutation(n).tolist()


def train_permutation(seed: int, epoch: int, index: int, n: int) -> list[int]:
    """The presentation order of training document ``index`` at ``epoch``."""
    return train_generator(_TRAIN_STREAM, seed, epoch, index).permutation(n).tolist()
