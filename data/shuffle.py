"""The shuffle protocol (DESIGN section 5).

Evaluation: one fixed permutation per document, drawn from a NumPy generator seeded with
the SHA-256 of (dataset, split, document id, protocol seed), so it is identical for every
model, training seed and machine, and the comparisons between models are paired.
Training: a fresh permutation of every document at every epoch, from (seed, epoch, index).
Permutations are uniform; the identity is not excluded.

``presented[j]`` is the sentence with gold id ``perm[j]``.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

_TRAIN_STREAM = 0x7A1  # separates training permutations from other seeded streams


def eval_permutation(
    dataset: str, split: str, doc_id: str, n: int, protocol_seed: int
) -> list[int]:
    """The fixed presentation order of an evaluation document of ``n`` sentences."""
    key = json.dumps([dataset, split, doc_id, int(protocol_seed)]).encode("utf-8")
    seed = int.from_bytes(hashlib.sha256(key).digest(), "big")
    return np.random.default_rng(seed).permutation(n).tolist()


def train_permutation(seed: int, epoch: int, index: int, n: int) -> list[int]:
    """The presentation order of training document ``index`` at ``epoch``."""
    rng = np.random.default_rng([_TRAIN_STREAM, seed, epoch, index])
    return rng.permutation(n).tolist()
