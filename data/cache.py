"""Processed-data cache: Arrow columns on disk, memory-mapped when read.

One folder per configuration, ``<root>/<key>/``, where ``key`` hashes the reader's
fingerprint, the tokenisation/vocabulary settings and ``CACHE_FORMAT_VERSION``. It holds
per split the columns of ``data.columns`` (``<split>/text.arrow``,
``<split>/token_ids.arrow``), ``vocab.json``, ``duplicates.json`` (the repeats within each
split) and ``manifest.json``, written last: what the key was made of, the format, the
documents of each split, the digest of every other file of the entry
(``data.file_digests``) and the data digest ``documents_sha256``
(``stored_documents_sha256`` reads it without loading the entry, for the skip of a
finished run).

An entry is built in a temporary folder beside it (``data.processing.prepare_columns``)
and renamed into place whole, so no reader ever meets a half-written entry, and a build
stopped by an error, a signal or a crash leaves no entry (only a hidden temporary folder,
removed on the way out when the process still can, else by the next preparation once its
builder is gone: ``data.build_folders``).

An entry vouches for itself each time it is mapped (``load_processed``): the format and
what the key was made of (the reader's fingerprint and versions, the tokeniser's version,
the settings) must be the manifest's, each column file of the schema the code writes
(types, offset widths, names), every file of the digest the manifest holds, each split of
the manifest's count of documents, and the data digest, computed from the text columns
mapped, the manifest's. An entry that fails any of these (or cannot be read: a truncated
or missing file) is removed with a one-line warning naming it and what differs, and built
again; the data digest a run records is the one computed. An entry that fails the check
just after it was built is an error naming it. When the entry cannot be made (a read-only
cache, a full disk for its last small files) a warning names the file and the data built
goes on being used without it, read into memory; a full disk while the columns themselves
are written is an error naming the file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from data.build_folders import BuildOwner, remove_leftovers
from data.columns import TEXT_FILE, TOKENS_FILE, CacheWriteError, SplitColumns
from data.duplicates import DuplicateReport
from data.file_digests import FILE_DIGEST, digest_problem, folder_digests
from data.processing import Prepared, columns_sha256
from data.splits import SPLIT_NAMES
from data.vocab import Vocab

log = logging.getLogger(__name__)

CACHE_FORMAT_VERSION = 2  # 2: Arrow columns, memory-mapped (1: a datasets DatasetDict)
MANIFEST, VOCAB, DUPLICATES = "manifest.json", "vocab.json", "duplicates.json"
# the files of an entry besides its manifest, whose digests the manifest holds
ENTRY_FILES = (*(f"{split}/{name}" for split in SPLIT_NAMES for name in (TEXT_FILE, TOKENS_FILE)),
               VOCAB, DUPLICATES)  # fmt: skip


@dataclass
class ProcessedData:
    """A cache entry as read: per split its documents' columns, the vocabulary, the
    repeats within each split and the data digest."""

    splits: dict[str, SplitColumns]
    vocab: Vocab
    duplicates: DuplicateReport
    documents_sha256: str  # computed from the documents read, never copied from a manifest


def cache_key(material: dict) -> str:
    """Stable hash of the JSON-serialisable ``material`` plus the format version."""
    blob = json.dumps({"format": CACHE_FORMAT_VERSION, **material}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


class DamagedCacheError(ValueError):
    """A cache entry that cannot be read back whole."""


def _finish(folder: Path, prepared: Prepared, material: dict) -> None:
    """The entry's small files, the manifest last (with the digests of the others);
    CacheWriteError names the one not written."""

    def write(name: str, save: Callable[[Path], object]) -> None:
        try:
            save(folder / name)
        except OSError as error:
            raise CacheWriteError.of(error, folder / name) from error

    def manifest() -> str:
        return json.dumps({
            **material, "format": CACHE_FORMAT_VERSION, "n_docs": prepared.n_docs,
            "documents_sha256": prepared.documents_sha256, "file_digest": FILE_DIGEST,
            "files": folder_digests(folder, ENTRY_FILES),
        }, indent=2, sort_keys=True)  # fmt: skip

    groups = json.dumps({"groups": prepared.duplicates.groups})  # in split order
    write(VOCAB, prepared.vocab.save)
    write(DUPLICATES, lambda path: path.write_text(groups, "utf-8"))
    write(MANIFEST, lambda path: path.write_text(manifest(), "utf-8"))


def _difference(found, expected, key: str) -> str | None:
    """The first key under ``key`` where the manifest's value ``found`` is not the code's
    ``expected``, said as "the manifest's K is F, the code's E"; None when they agree."""
    if isinstance(found, dict) and isinstance(expected, dict):
        for name in sorted(set(found) | set(expected), key=str):
            if difference := _difference(found.get(name), expected.get(name), f"{key}.{name}"):
                return difference
        return None
    if found == expected:
        return None
    return f"the manifest's {key} is {json.dumps(found)}, the code's {json.dumps(expected)}"


def _manifest_problem(manifest: dict, material: dict | None) -> str | None:
    """What makes ``manifest`` another format's, or of other material (reader, versions,
    settings) than ``material``; None when it is this code's."""
    if "files" not in manifest or manifest.get("file_digest") != FILE_DIGEST:
        return "the manifest holds no file digests (an entry of an earlier version)"
    checked = {"format": CACHE_FORMAT_VERSION, **(material or {})}
    for key, expected in checked.items():
        if difference := _difference(manifest.get(key), expected, key):
            return difference
    return None


def load_processed(directory: Path, material: dict | None = None,
                   mapped: bool = True) -> ProcessedData:
    """The entry in ``directory``, its columns memory-mapped (or read into memory), once it
    vouches for itself (the module docstring: format and ``material``, schemas, file
    digests, counts of documents, data digest); DamagedCacheError naming it and what
    differs otherwise, or when any of its files cannot be read."""

    def damaged(reason: str) -> DamagedCacheError:
        reason = reason.replace(f"{directory}{os.sep}", "")  # its files named within it
        return DamagedCacheError(f"{directory}: damaged processed-data cache ({reason})")

    try:
        manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
        if not isinstance(manifest, dict):
            raise damaged("the manifest is not a JSON object")
        if problem := _manifest_problem(manifest, material):
            raise damaged(problem)
        splits = {split: SplitColumns.open(directory / split, mapped) for split in SPLIT_NAMES}
        if problem := digest_problem(directory, manifest["files"]):
            raise damaged(problem)
        vocab = Vocab.load(directory / VOCAB)
        groups = json.loads((directory / DUPLICATES).read_text("utf-8"))["groups"]
        counts = {split: len(columns) for split, columns in splits.items()}
        if manifest.get("n_docs") != counts:
            raise damaged(f"{counts} documents, {manifest.get('n_docs')} saved")
        digest = columns_sha256(splits)
    except DamagedCacheError:
        raise
    except Exception as error:  # pyarrow, json and the file system each raise their own kinds
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise damaged(reason) from error
    if manifest.get("documents_sha256") != digest:
        raise damaged(f"the manifest's documents_sha256 is "
                      f"{str(manifest.get('documents_sha256'))[:12]}..., the documents read "
                      f"give {digest[:12]}...")  # fmt: skip
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


def _build_folder(directory: Path) -> tuple[Path, BuildOwner | None, CacheWriteError | None]:
    """A fresh temporary folder beside ``directory``, held by this process
    (``data.build_folders``); where none can be made there (a read-only cache), one in the
    system's temporary folder and the error that says why."""
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    except OSError as error:
        private = Path(tempfile.mkdtemp(prefix=f"orderbench-{directory.name}-"))
        return private, None, CacheWriteError.of(error, directory)
    try:
        return folder, BuildOwner(folder), None
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        private = Path(tempfile.mkdtemp(prefix=f"orderbench-{directory.name}-"))
        return private, None, CacheWriteError.of(error, folder)


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
    (which writes the columns into ``folder``) and save it. Folders under ``root`` left by
    builds that were killed are removed first, said in one line.

    Returns (data, entry folder (None when it could not be written), whether it came from
    the cache).
    """
    if removed := remove_leftovers(root):
        log.warning(removed)
    directory = root / cache_key(material)
    # an entry is renamed into place whole, so a folder there without its manifest was left by
    # something else (a copy cut short): damaged too
    if directory.exists():
        try:
            data = load_processed(directory, material)
        except DamagedCacheError as error:
            log.warning("%s; %s; building it again", error, _remove(directory))
        else:
            log.info("processed data: loaded from cache %s", directory)
            return data, directory, True
    folder, owner, unwritable = _build_folder(directory)
    try:
        prepared = build(folder)
        try:
            if unwritable is not None:
                raise unwritable
            _finish(folder, prepared, material)
            owner.leave()
            folder.rename(directory)
        except OSError as error:
            if (directory / MANIFEST).is_file():  # a concurrent writer's entry: take it
                return _built(directory, material), directory, False
            failed = error if isinstance(error, CacheWriteError) else CacheWriteError.of(
                error, directory)  # fmt: skip
            log.warning("%s; going on without it", failed)
            splits = {split: SplitColumns.open(folder / split, mapped=False)
                      for split in SPLIT_NAMES}  # fmt: skip
            data = ProcessedData(splits, prepared.vocab, prepared.duplicates,
                                 prepared.documents_sha256)  # fmt: skip
            return data, None, False
    finally:
        if owner is not None:
            owner.close()
        shutil.rmtree(folder, ignore_errors=True)  # gone already once renamed into place
    log.info("processed data: built and saved to cache %s", directory)
    return _built(directory, material), directory, False


def _built(directory: Path, material: dict) -> ProcessedData:
    """The entry just built (here or by a concurrent process), mapped and checked; one
    that fails its check now cannot be rebuilt: DamagedCacheError naming it."""
    try:
        return load_processed(directory, material)
    except DamagedCacheError as error:
        raise DamagedCacheError(
            f"{error}, just after it was built: it cannot be rebuilt here (check the disk "
            f"under {directory.parent}, or delete the entry)"
        ) from None
