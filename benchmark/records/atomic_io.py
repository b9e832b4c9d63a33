"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

The temporary file lies in the target's own folder (a rename across filesystems is a
copy, not atomic), is synced to disk before the rename, and is created with mode 0666
less the umask, like any file `open` creates; the folder is synced after the rename.

A report of several files (the leaderboard's CSV and Markdown, the plots) replaces its
files in its folder all in one step (`replace_folder`): a new folder is made beside the old
one, the old one's other files carried over as hard links, and the two swapped in one
rename, so the report's files land together or not at all.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
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


class ForeignFilesError(ValueError):
    """A folder that cannot be replaced as a whole: it holds what cannot be carried over
    into its replacement (too many entries, a special file); the message says what."""


_AT_FDCWD = -100  # renameat2's "relative to the working directory"
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV)
CARRIED_AT_MOST = 2000  # entries of a folder carried over into its replacement
STAGING, ASIDE = "replacing", "replaced"  # suffixes of a replacement's folders beside it


def exchange(a: Path, b: Path) -> bool:
    """Swap the folders `a` and `b` in one step (Linux's `renameat2` with
    `RENAME_EXCHANGE`); False where the system or the filesystem cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a C library without it
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]  # fmt: skip
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(b))


def _siblings(target: Path, kind: str) -> list[Path]:
    return sorted(target.parent.glob(f".{target.name}.*.{kind}"))


def _remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def _carry_over(source: Path, target: Path, replaced: Callable[[str], bool],
                left: list[int]) -> None:  # fmt: skip
    """Hard-link every entry of `source` but the names `replaced` into the new folder
    `target` (folders made anew with their modes, symbolic links as links), counting down
    `left`; ForeignFilesError for more than `CARRIED_AT_MOST` entries or a special file."""
    for entry in sorted(source.iterdir()):
        if replaced(entry.name):
            continue
        left[0] -= 1
        if left[0] < 0:
            raise ForeignFilesError(f"holds more than {CARRIED_AT_MOST} other files and folders")
        copy = target / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry), copy)
        elif entry.is_dir():
            copy.mkdir()
            _carry_over(entry, copy, lambda name: False, left)
            shutil.copystat(entry, copy)
        elif entry.is_file():
            os.link(entry, copy)
        else:
            raise ForeignFilesError(f"holds {entry.name}, which is neither a file nor a folder")


def replace_folder(target: Path, fill: Callable[[Path], None], own: Callable[[str], bool],
                   what: str) -> Path:  # fmt: skip
    """Write into `target` what `fill(folder)` writes into a new folder, replacing the
    entries of `target` that `own` names (the writer's own files) all in one step: a reader
    sees the old folder or the whole new one, never a mix.

    The new folder is made beside `target` (`.<name>.<hex>.replacing`): the other entries
    of `target` carried over as hard links (at most `CARRIED_AT_MOST`; nothing is copied),
    then filled, synced, and swapped with `target` in one rename (`exchange`). Where the
    filesystem cannot swap, `target` is first renamed aside (`.<name>.<hex>.replaced`), so
    a kill between the two renames leaves no folder rather than a mix, and the next write
    puts it back before it starts. The old folder is removed last, as are the folders of
    killed writers. Nothing else may write into `target` meanwhile. What cannot be carried
    over is a `ForeignFilesError` naming `target` and `what` (the writer, a command); an
    OSError a FileWriteError naming `target`."""
    target = Path(target).resolve()
    try:
        if not target.exists():
            for aside in _siblings(target, ASIDE)[-1:]:  # killed between two renames
                os.replace(aside, target)
        if target.exists() and not target.is_dir():
            raise ForeignFilesError(f"{target}: a file, not a folder for {what}")
        for leftover in _siblings(target, STAGING) + _siblings(target, ASIDE):
            _remove_folder(leftover)
        token = secrets.token_hex(6)
        staging = target.parent / f".{target.name}.{token}.{STAGING}"
        staging.mkdir(parents=True)
    except OSError as error:
        raise _write_error(target, error) from error
    try:
        if target.is_dir():
            try:
                _carry_over(target, staging, own, [CARRIED_AT_MOST])
            except ForeignFilesError as error:
                raise ForeignFilesError(f"{target}: {error}; {what} replaces its folder in one "
                                        "step, so name a folder of the reports") from None
            shutil.copystat(target, staging)
        fill(staging)
        _sync_dir(staging)
        if not target.exists():
            os.rename(staging, target)
        elif exchange(staging, target):
            _remove_folder(staging)  # the old folder now
        else:
            aside = target.parent / f".{target.name}.{token}.{ASIDE}"
            os.rename(target, aside)
            os.rename(staging, target)
            _remove_folder(aside)
    except BaseException as error:
        _remove_folder(staging)
        if not target.exists():  # stopped between the two renames: the old one back
            for aside in _siblings(target, ASIDE):
                os.replace(aside, target)
        if isinstance(error, OSError) and not isinstance(error, FileWriteError):
            raise _write_error(target, error) from error
        raise
    _sync_dir(target.parent)
    return target
