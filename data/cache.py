"""Processed-data cache (Hugging Face ``datasets``, Arrow on disk).

One folder per configuration, ``<root>/<key>/``, where ``key`` hashes the reader's
fingerprint, the tokenisation/vocabulary settings and ``CACHE_FORMAT_VERSION``. It holds a
``DatasetDict`` (per split: ``id``, ``sentences``, ``token_ids`` per sentence, ``meta`` as a
JSON string, ``source``), ``vocab.json`` and ``manifest.json`` (what the key was made of).
A new entry is written to a temporary folder and renamed into place, so readers never see
a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import datasets

from data.document import Document
from data.processing import ProcessedData
from data.vocab import Vocab

log = logging.getLogger(__name__)

CACHE_FORMAT_VERSION = 1
FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "sentences": datasets.Sequence(datasets.Value("string")),
        "token_ids": datasets.Sequence(datasets.Sequence(datasets.Value("int32"))),
        "meta": datasets.Value("string"),
        "source": datasets.Value("string"),
    }
)


def cache_key(material: dict) -> str:
    """Stable hash of the JSON-serialisable ``material`` plus the format version."""
    blob = json.dumps({"format": CACHE_FORMAT_VERSION, **material}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


def _to_dataset(documents: list[Document], token_ids: list[list[list[int]]]) -> datasets.Dataset:
    columns = {
        "id": [doc.id for doc in documents],
        "sentences": [list(doc.sentences) for doc in documents],
        "token_ids": token_ids,
        "meta": [json.dumps(doc.meta, sort_keys=True) for doc in documents],
        "source": [doc.source for doc in documents],
    }
    return datasets.Dataset.from_dict(columns, features=FEATURES)


def save_processed(data: ProcessedData, directory: Path, material: dict) -> None:
    """Write ``data`` to ``directory`` atomically (temporary folder + rename)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    try:
        splits = datasets.DatasetDict(
            {s: _to_dataset(data.documents[s], data.token_ids[s]) for s in data.documents}
        )
        splits.save_to_disk(str(tmp / "splits"))
        data.vocab.save(tmp / "vocab.json")
        (tmp / "manifest.json").write_text(json.dumps(material, indent=2, sort_keys=True))
        tmp.rename(directory)
    except OSError:
        if not (directory / "manifest.json").is_file():  # not a concurrent writer's entry
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_processed(directory: Path) -> ProcessedData:
    splits = datasets.load_from_disk(str(directory / "splits"))
    documents, token_ids = {}, {}
    for split, table in splits.items():
        columns = table.to_dict()
        documents[split] = [
            Document(id=i, sentences=tuple(s), meta=json.loads(m), source=src)
            for i, s, m, src in zip(
                columns["id"], columns["sentences"], columns["meta"], columns["source"], strict=True
            )
        ]
        token_ids[split] = columns["token_ids"]
    return ProcessedData(documents, token_ids, Vocab.load(directory / "vocab.json"))


def load_or_build(
    root: Path, material: dict, build: Callable[[], ProcessedData]
) -> tuple[ProcessedData, Path, bool]:
    """Load the entry for ``material`` from ``root`` or build and save it.

    Returns (data, entry folder, whether it came from the cache).
    """
    directory = root / cache_key(material)
    if (directory / "manifest.json").is_file():
        log.info("processed data: loaded from cache %s", directory)
        return load_processed(directory), directory, True
    data = build()
    previous = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        save_processed(data, directory, material)
    finally:
        if previous:
            datasets.enable_progress_bars()
    log.info("processed data: built and saved to cache %s", directory)
    return data, directory, False
