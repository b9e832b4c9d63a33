"""Processed-data cache: Arrow columns on disk, memory-mapped when read.

One folder per configuration, ``<root>/<key>/``, where ``key`` hashes the reader's
fingerprint, the tokenisation/vocabulary settings and ``CACHE_FORMAT_VERSION``. It holds
per split the columns of ``data.columns`` (``<split>/text.arrow``,
``<split>/token_ids.arrow``), ``vocab.json``, ``duplicates.json`` (the repeats within each
split) and ``manifest.json`` (what the key was made of, the documents of each split, the
data digest ``documents_sha256``, which a finished run's record holds too:
``stored_documents_sha256`` reads it without loading the entry), written last.

An entry is built in a temporary folder beside it (``data.processing.prepare_columns``)
and renamed into place whole, so no reader ever meets a half-written entry, and a build
stopped by an error, a signal or a crash leaves no entry (only a hidden temporary folder,
removed on the way out when the process still can). An entry that cannot be read back
whole (a truncated or missing file, other than the manifest's count of documents) is
removed with a warning naming it and built again. When the entry cannot be made (a
read-only cache, a full disk for its last small files) a warning names the file and the
data built goes on being used without it, read into memory; a full disk while the columns
themselves are written is an error naming the file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from data.columns import CacheWriteError, SplitColumns
from data.duplicates import DuplicateReport
from data.processing import Prepared
from data.splits import SPLIT_NAMES
from data.vocab import Vocab

log = logging.getLogger(__name__)

CACHE_FORMAT_VERSION = 2  # 2: Arrow columns, memory-mapped (1: a datasets DatasetDict)
MANIFEST, VOCAB, DUPLICATES = "manifest.json", "vocab.json", "duplicates.json"


@dataclass
class ProcessedData:
    """A cache entry as read: per split its documents' columns, the vocabulary, the
    repeats within each split and the data digest."""

    splits: dict[str, SplitColumns]
    vocab: Vocab
    duplicates: DuplicateReport
    documents_sha256: str


def cache_key(material: dict) -> str:
    """Stable hash of the JSON-serialisable ``material`` plus the format version."""
    blob = json.dumps({"format": CACHE_FORMAT_VERSION, **material}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


class DamagedCacheError(ValueError):
    """A cache entry that cannot be read back whole."""


def _finish(folder: Path, prepared: Prepared, material: dict) -> None:
    """The entry's small files, the manifest last; CacheWriteError names the one not written."""
    manifest = {
        **material,
        "n_docs": prepared.n_docs,
        "documents_sha256": prepared.documents_sha256,
    }
    for name, text in (
        (VOCAB, None),
        (DUPLICATES, json.dumps({"groups": prepared.duplicates.groups})),  # in split order
        (MANIFEST, json.dumps(manifest, indent=2, sort_keys=True)),
    ):
        try:
            if text is None:
                prepared.vocab.save(folder / name)
            else:
                (folder / name).write_text(text, "utf-8")
        except OSError as error:
            raise CacheWriteError.of(error, folder / name) from error


def load_processed(directory: Path, mapped: bool = True) -> ProcessedData:
    """The entry in ``directory``, its columns memory-mapped (or read into memory);
    DamagedCacheError (naming it) when any of its files cannot be read, or a split holds
    other than the manifest's count of documents."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
        splits = {split: SplitColumns.open(directory / split, mapped) for split in SPLIT_NAMES}
        vocab = Vocab.load(directory / VOCAB)
        groups = json.loads((directory / DUPLICATES).read_text("utf-8"))["groups"]
        digest = manifest["documents_sha256"]
    except Exception as error:  # pyarrow, json and the file system each raise their own kinds
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise DamagedCacheError(f"{directory}: damaged processed-data cache ({reason})") from error
    counts = {split: len(columns) for split, columns in splits.items()}
    if manifest.get("n_docs") != counts:
        raise DamagedCacheError(
            f"{directory}: damaged processed-data cache ({counts} documents, "
            f"{manifest.get('n_docs')} saved)"
        )
    return ProcessedData(splits, vocab, DuplicateReport(groups), digest)


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


def _build_folder(directory: Path) -> tuple[Path, CacheWriteError | None]:
    """A fresh temporary folder beside ``directory``; where none can be made there (a
    read-only cache), one in the system's temporary folder and the error that says why."""
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent)), None
    except OSError as error:
        private = Path(tempfile.mkdtemp(prefix=f"orderbench-{directory.name}-"))
        return private, CacheWriteError.of(error, directory)


def stored_documents_sha256(root: Path, material: dict) -> str | None:
    """The ``documents_sha256`` the manifest of the entry for ``material`` holds, read
    without loading the entry; None when there is no entry."""
    try:
        manifest = json.loads((root / cache_key(material) / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    digest = manifest.get("documents_sha256") if isinstance(manifest, dict) else None
    return digest if isinstance(digest, str) else None


def load_or_build(
    root: Path, material: dict, build: Callable[[Path], Prepared]
) -> tuple[ProcessedData, Path | None, bool]:
    """Load the entry for ``material`` from ``root``, or build it with ``build(folder)``
    (which writes the columns into ``folder``) and save it.

    Returns (data, entry folder (None when it could not be written), whether it came from
    the cache).
    """
    directory = root / cache_key(material)
    # an entry is renamed into place whole, so a folder there without its manifest was left by
    # something else (a copy cut short): damaged too
    if directory.exists():
        try:
            data = load_processed(directory)
        except DamagedCacheError as error:
            log.warning("%s; %s; building it again", error, _remove(directory))
        else:
            log.info("processed data: loaded from cache %s", directory)
            return data, directory, True
    folder, unwritable = _build_folder(directory)
    try:
        prepared = build(folder)
        try:
            if unwritable is not None:
                raise unwritable
            _finish(folder, prepared, material)
            folder.rename(directory)
        except OSError as error:
            if (directory / MANIFEST).is_file():  # a concurrent writer's entry: take it
                return load_processed(directory), directory, False
            failed = error if isinstance(error, CacheWriteError) else CacheWriteError.of(
                error, directory)  # fmt: skip
            log.warning("%s; going on without it", failed)
            splits = {split: SplitColumns.open(folder / split, mapped=False)
                      for split in SPLIT_NAMES}  # fmt: skip
            data = ProcessedData(splits, prepared.vocab, prepared.duplicates,
                                 prepared.documents_sha256)  # fmt: skip
            return data, None, False
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # gone already once renamed into place
    log.info("processed data: built and saved to cache %s", directory)
    return load_processed(directory), directory, False
