"""Processed-data cache (Hugging Face ``datasets``, Arrow on disk).

One folder per configuration, ``<root>/<key>/``, where ``key`` hashes the reader's
fingerprint, the tokenisation/vocabulary settings and ``CACHE_FORMAT_VERSION``. It holds a
``DatasetDict`` (per split: ``id``, ``sentences``, ``token_ids`` per sentence, ``meta`` as a
JSON string, ``source``), ``vocab.json`` and ``manifest.json`` (what the key was made of,
the documents of each split and the digest of the documents, ``documents_sha256``, which a
finished run's record holds too: ``stored_documents_sha256`` reads it without loading the
entry).
A new entry is written to a temporary folder and renamed into place, so readers never see
a half-written entry. An entry that cannot be read back whole (a truncated or missing file,
fewer documents than the manifest counts) is removed with a warning naming it and built
again; one that cannot be written (a full disk) is said in a warning naming the file, and
the data built goes on being used without it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import datasets

from data.document import Document
from data.processing import ProcessedData
from data.splits import SPLIT_NAMES
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


def documents_sha256(splits: dict[str, list[Document]]) -> str:
    """The digest of the documents of every split (their split, id, sentences, meta and
    source): the ``documents_sha256`` of a run's identity (docs/design.md, section 8)."""
    digest = hashlib.sha256()
    for split in SPLIT_NAMES:
        for doc in splits.get(split, []):
            record = [split, doc.id, doc.sentences, doc.meta, doc.source]
            digest.update(json.dumps(record, sort_keys=True).encode("utf-8"))
    return digest.hexdigest()


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


class CacheWriteError(OSError):
    """A cache entry that could not be written; names the file (in the entry's folder)."""

    def __str__(self) -> str:
        return f"{self.filename}: processed-data cache not written ({self.strerror})"


class DamagedCacheError(ValueError):
    """A cache entry that cannot be read back whole."""


def save_processed(data: ProcessedData, directory: Path, material: dict) -> None:
    """Write ``data`` to ``directory`` atomically (temporary folder + rename); the manifest
    also counts the documents of each split, to tell a damaged entry. CacheWriteError
    names the file that could not be written."""
    written = directory
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    except OSError as error:
        raise CacheWriteError(error.errno, error.strerror or str(error), str(written)) from error
    try:
        splits = datasets.DatasetDict(
            {s: _to_dataset(data.documents[s], data.token_ids[s]) for s in data.documents}
        )
        written = directory / "splits"
        splits.save_to_disk(str(tmp / "splits"))
        written = directory / "vocab.json"
        data.vocab.save(tmp / "vocab.json")
        written = directory / "manifest.json"
        manifest = {**material, "n_docs": {s: len(d) for s, d in data.documents.items()},
                    "documents_sha256": documents_sha256(data.documents)}
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
        written = directory
        tmp.rename(directory)
    except OSError as error:
        if not (directory / "manifest.json").is_file():  # not a concurrent writer's entry
            reason = error.strerror or str(error)
            raise CacheWriteError(error.errno, reason, str(written)) from error
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_processed(directory: Path) -> ProcessedData:
    """The entry in ``directory``; DamagedCacheError (naming it) when any of its files
    cannot be read, or a split holds other than the manifest's count of documents."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text("utf-8"))
        splits = datasets.load_from_disk(str(directory / "splits"))
        documents, token_ids = {}, {}
        for split, table in splits.items():
            columns = table.to_dict()
            documents[split] = [
                Document(id=i, sentences=tuple(s), meta=json.loads(m), source=src)
                for i, s, m, src in zip(
                    columns["id"], columns["sentences"], columns["meta"], columns["source"],
                    strict=True,
                )
            ]
            token_ids[split] = columns["token_ids"]
        vocab = Vocab.load(directory / "vocab.json")
    except Exception as error:  # datasets, pyarrow and json each raise their own kinds
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise DamagedCacheError(f"{directory}: damaged processed-data cache ({reason})") from error
    counts = {split: len(docs) for split, docs in documents.items()}
    if manifest.get("n_docs", counts) != counts:  # entries before the count: not checked
        raise DamagedCacheError(
            f"{directory}: damaged processed-data cache ({counts} documents, "
            f"{manifest['n_docs']} saved)"
        )
    return ProcessedData(documents, token_ids, vocab)


def _remove(directory: Path) -> str:
    """Remove an entry, renamed away first so that no reader meets it half removed; what
    was done, for the warning."""
    doomed = directory.with_name(f".{directory.name}-removed-{uuid.uuid4().hex[:8]}")
    try:
        directory.rename(doomed)
    except FileNotFoundError:
        return "removed"  # by another process meanwhile
    except OSError as error:  # a read-only cache: the data is built without it
        return f"not removed ({error.strerror or error})"
    shutil.rmtree(doomed, ignore_errors=True)
    return "removed"


def stored_documents_sha256(root: Path, material: dict) -> str | None:
    """The ``documents_sha256`` the manifest of the entry for ``material`` holds, read
    without loading the entry; None when there is no entry, or one written before the
    manifest held it."""
    try:
        manifest = json.loads((root / cache_key(material) / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    digest = manifest.get("documents_sha256") if isinstance(manifest, dict) else None
    return digest if isinstance(digest, str) else None


def load_or_build(
    root: Path, material: dict, build: Callable[[], ProcessedData]
) -> tuple[ProcessedData, Path | None, bool]:
    """Load the entry for ``material`` from ``root`` or build and save it.

    Returns (data, entry folder (None when it could not be written), whether it came from
    the cache).
    """
    directory = root / cache_key(material)
    if (directory / "manifest.json").is_file():
        try:
            data = load_processed(directory)
        except DamagedCacheError as error:
            log.warning("%s; %s; building it again", error, _remove(directory))
        else:
            log.info("processed data: loaded from cache %s", directory)
            return data, directory, True
    data = build()
    previous = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        save_processed(data, directory, material)
    except CacheWriteError as error:
        log.warning("%s; going on without it", error)
        return data, None, False
    finally:
        if previous:
            datasets.enable_progress_bars()
    log.info("processed data: built and saved to cache %s", directory)
    return data, directory, False
