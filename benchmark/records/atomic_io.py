"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

The temporary file lies in the target's own folder (a rename across filesystems is a
copy, not atomic), is synced to disk before the rename, and is created with mode 0666
less the umask, like any file `open` creates; the folder is synced after the rename.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def _sync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class FileWriteError(OSError):
    """A file that could not be written (full disk, read-only folder ...), named; the file
    from before, if any, is whole. `strerror` is the system's reason."""

    def __str__(self) -> str:
        return f"{self.filename}: not written ({self.strerror})"


def _write_error(path: Path, error: OSError) -> FileWriteError:
    return FileWriteError(error.errno, error.strerror or str(error), str(path))


def atomic_write(path: Path, write: Callable[[Path], None]) -> Path:
    """Let `write` fill a temporary file in the same folder, then rename it to `path`; an
    OSError on the way is a FileWriteError naming `path`."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # umask applies
    except OSError as error:
        raise _write_error(path, error) from error
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, FileWriteError):
            raise _write_error(path, error) from error
        raise
    _sync_dir(path.parent)
    return path


def atomic_write_bytes(path: Path, fill: Callable[[BinaryIO], None]) -> Path:
    """Write `path` atomically through `fill(handle)`, synced to disk before the rename."""

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())

    return atomic_write(path, write)


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, synced to disk before the rename."""
    atomic_write_bytes(path, lambda handle: handle.write(text.encode("utf-8")))
