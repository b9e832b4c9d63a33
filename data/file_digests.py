"""Digests of the files of a processed-data cache entry: computed when the entry is written,
kept in its manifest, and checked each time it is mapped (``data.cache``).

The hash is xxHash's XXH3-128 (the ``xxhash`` package): it guards against damage, not
forgery, and reads a file at memory speed, so checking an entry costs about what reading
its pages once does (docs/performance.md, "A million documents").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import xxhash

FILE_DIGEST = "xxh3_128"  # the manifest names the hash beside the digests
_CHUNK = 8 << 20  # bytes read at a time


def file_digest(path: Path) -> str:
    """The XXH3-128 digest of the file at ``path``, hex."""
    digest = xxhash.xxh3_128()
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as source:
        while size := source.readinto(buffer):
            digest.update(view[:size])
    return digest.hexdigest()


def folder_digests(folder: Path, names: Iterable[str]) -> dict[str, str]:
    """``{name: digest}`` of the files ``names`` (paths relative to ``folder``)."""
    return {name: file_digest(folder / name) for name in names}


def digest_problem(folder: Path, expected: Mapping[str, str]) -> str | None:
    """The first file of ``expected`` (``{relative path: digest}``) that is missing or
    whose content has another digest, said in a few words; None when all agree."""
    for name, digest in expected.items():
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        found = file_digest(path)
        if found != digest:
            return (f"{name} is not the file written (its {FILE_DIGEST} {found[:12]}..., the "
                    f"manifest's {str(digest)[:12]}...)")
    return None
