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


COMPLETE_MARK = "COMPLETE"  # written last into a group's staging folder


def _group_staging(folder: Path, names: list[str]) -> Path:
    return folder / f".{'+'.join(sorted(names))}.pending"


def finish_pending_group(folder: Path, names: list[str]) -> None:
    """Complete (or drop) an earlier `atomic_write_group` of `names` into `folder` that was
    interrupted: a staging folder marked complete is renamed into place file by file, one
    without the mark (killed while it was being filled) is removed."""
    staging = _group_staging(Path(folder), names)
    if not staging.is_dir():
        return
    if (staging / COMPLETE_MARK).is_file():
        for name in names:
            if (staging / name).is_file():
                os.replace(staging / name, Path(folder) / name)
        _sync_dir(Path(folder))
    for leftover in staging.iterdir():
        leftover.unlink()
    staging.rmdir()


def atomic_write_group(folder: Path, texts: dict[str, str]) -> list[Path]:
    """Replace the files `texts` names in `folder` together or not at all, for a reader that
    comes after: every file is first written and synced in a staging folder, which is then
    marked complete and moved into place file by file; a writer killed before the mark
    leaves the old files, one killed after it leaves a journal that the next write of the
    same files (`finish_pending_group`) completes first."""
    folder = Path(folder)
    names = sorted(texts)
    folder.mkdir(parents=True, exist_ok=True)
    finish_pending_group(folder, names)
    staging = _group_staging(folder, names)
    staging.mkdir()
    for name in names:
        atomic_write_text(staging / name, texts[name])
    atomic_write_text(staging / COMPLETE_MARK, "")
    finish_pending_group(folder, names)
    return [folder / name for name in names]
