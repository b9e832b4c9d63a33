"""Sentence vectors of a frozen encoder, kept on disk so later runs skip the encoder.

A frozen pretrained encoder (here all-MiniLM-L6-v2, `models/blocks/sentence_minilm.py`) maps a
sentence to the same vector in every run, so a sweep over seeds and presets need encode
each distinct sentence once. The store is a folder of append-only shards
(`<uuid>.pt`: {"texts": [...], "vectors": (S, d) float32}), each written atomically:
concurrent runs never see a partial shard and never overwrite each other's; a sentence
encoded by two runs at once is simply stored twice. New vectors are written once
`flush_every` of them are pending, and whenever an encoder call needs nothing new (the
first cached pass after the encoding one): a crash loses at most those pending vectors,
which the next run encodes again.

A value may also be a tensor per sentence of varying first size, e.g. the (t, H) token
states of a fine-tuned encoder's frozen layers (`models/blocks/sentence_transformer_finetuned.py`):
a shard whose values differ in shape keeps them concatenated along the first dimension,
with their sizes (`{"texts", "vectors": (Σt, H), "lengths": (S,)}`).

`VectorStoreFolder` is what a model receives (`net.minilm_store` in
models/families/minilm/conf/model/minilm_ptrnet.yaml, `net.encoder_store` in
models/families/minilm/conf/model/minilm_finetune.yaml): a folder holding one store per
encoder version, opened by name, so models/ never writes files itself.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import torch
from torch import Tensor

from benchmark.records.atomic_io import atomic_write

log = logging.getLogger(__name__)


class SentenceVectorStore:
    def __init__(self, directory: Path, flush_every: int = 1024):
        self.directory = Path(directory)
        self.flush_every = flush_every
        self._pending: dict[str, Tensor] = {}  # text -> (d,) not yet on disk

    def load(self) -> dict[str, Tensor]:
        """Every stored tensor: text -> (d,) (or (t, H)) as written, on the CPU."""
        vectors: dict[str, Tensor] = {}
        for shard in sorted(self.directory.glob("*.pt")):
            content = torch.load(shard, map_location="cpu", weights_only=True)
            values = content["vectors"]
            if "lengths" in content:  # values of different sizes, concatenated
                values = values.split(content["lengths"].tolist())
            vectors.update(zip(content["texts"], values, strict=True))
        if vectors:
            log.info("sentence vectors: %d loaded from %s", len(vectors), self.directory)
        return vectors

    def add(self, vectors: dict[str, Tensor]) -> None:
        """Queue new vectors (text -> (d,)); write a shard when enough are pending, or when
        there is nothing new (the encoding pass is over)."""
        self._pending.update(vectors)
        if len(self._pending) >= self.flush_every or (self._pending and not vectors):
            self.flush()

    def flush(self) -> None:
        """Write the pending vectors as one new shard."""
        if not self._pending:
            return
        values = list(self._pending.values())
        content = {"texts": list(self._pending)}
        if len({value.shape for value in values}) == 1:
            content["vectors"] = torch.stack(values)  # (S, *shape)
        else:
            content["vectors"] = torch.cat(values)  # (Σ t, *rest)
            content["lengths"] = torch.tensor([len(value) for value in values])  # (S,)
        atomic_write(
            self.directory / f"{uuid.uuid4().hex}.pt", lambda tmp: torch.save(content, tmp)
        )
        self._pending = {}


class VectorStoreFolder:
    """A folder of `SentenceVectorStore`s, one per name (e.g. an encoder and its version)."""

    def __init__(self, directory: str | Path, flush_every: int = 1024):
        self.directory = Path(directory)
        self.flush_every = flush_every

    def open(self, name: str) -> SentenceVectorStore:
        """The store of `name` (a subfolder, created when first written)."""
        return SentenceVectorStore(self.directory / name, self.flush_every)
