"""The temporary folders the processed-data cache builds its entries in (``data.cache``):
each held by the process that builds in it, and those left by builds that were killed
removed by the next preparation.

A build folder is ``.<key>-<random>`` beside the entry it becomes. Its builder writes
``.owner`` in it (pid, host, start time) and holds an exclusive ``flock`` on that file
until the folder is renamed into place or removed; the system releases the lock when the
builder dies, however it dies. So a build folder whose owner file can be locked by
another process is a killed build's. A folder without an owner file (a build killed in
the instant between making the folder and its owner file, or made by an earlier version),
or on a filesystem without ``flock``, is a leftover once it is ``LEFTOVER_HOURS`` old.
An entry's ``.<key>-removed-<random>`` folder (``data.cache`` renames a damaged entry away
before removing it) is always a leftover.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import socket
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: leftovers are judged by age
    fcntl = None

OWNER_FILE = ".owner"
LEFTOVER_HOURS = 24  # a build folder without a lockable owner file: a leftover at this age
_BUILD_FOLDER = re.compile(r"\.[0-9a-f]{20}-(removed-)?[A-Za-z0-9_]+")  # cache_key: 20 hex
_NO_FLOCK = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS)


def _try_lock(fd: int) -> bool | None:
    """Take an exclusive flock on ``fd`` without waiting: True taken, False held by
    another, None where the filesystem has none."""
    if fcntl is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as error:
        if error.errno in _NO_FLOCK:
            return None
        raise
    return True


class BuildOwner:
    """This process's hold on a build folder: its owner file, locked until ``close``."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / OWNER_FILE
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        _try_lock(self._fd)
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}  # fmt: skip
        os.write(self._fd, json.dumps(me).encode("utf-8"))

    def leave(self) -> None:
        """Remove the owner file (still locked) before the folder is renamed into place."""
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        """Give the lock back (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _owner(folder: Path) -> str | None:
    """Who built in ``folder`` when its builder is gone (its pid, or "no owner file"), or
    None while it may still be building."""
    path = folder / OWNER_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        fd = None
    except OSError:
        return None
    if fd is not None:
        try:
            taken = _try_lock(fd)
            if taken is not None:  # locked by its live builder, or free: the builder is gone
                if not taken:
                    return None
                text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
                with contextlib.suppress(ValueError, AttributeError):
                    return f"pid {json.loads(text).get('pid', '?')}"
                return "an unreadable owner file"
        finally:
            os.close(fd)
    try:
        age = time.time() - folder.stat().st_mtime
    except OSError:
        return None
    return f"{age / 3600:.0f} h old" if age > LEFTOVER_HOURS * 3600 else None


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def remove_leftovers(root: Path) -> str | None:
    """Remove the build folders under ``root`` that no live build holds, and the folders
    of removed entries; one line saying what went (None when nothing did)."""
    try:
        candidates = [p for p in root.iterdir()
                      if _BUILD_FOLDER.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]
    except OSError:
        return None
    removed, freed = [], 0
    for folder in sorted(candidates):
        why = "removed entry" if "-removed-" in folder.name else _owner(folder)
        if why is None:
            continue
        with contextlib.suppress(OSError):
            freed += _size(folder)
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(f"{folder.name} ({why})")
    if not removed:
        return None
    return (f"{root}: removed {len(removed)} leftover folder(s) of builds that were killed, "
            f"{freed / 2**20:.1f} MiB: {', '.join(removed)}")
