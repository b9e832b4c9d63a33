"""Content hashes of the files a reader reads, for its ``fingerprint()``: the processed-data
cache then follows the data, not the folder it lies in."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def files_sha256(root: Path, paths: Iterable[Path]) -> str:
    """One hash over the files' paths relative to ``root`` and their contents, in the given
    order (a renamed or reordered file changes it, a moved ``root`` does not)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(file_sha256(path).encode("ascii"))
    return digest.hexdigest()
