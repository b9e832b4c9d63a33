"""One launch per run directory: `run.lock` names the process that trains there.

A launch takes the lock before it plans (`benchmark.run.plan`) and gives it back when
it ends; a second launch into the same directory is refused with one line naming the
holder (pid, host, start time). The lock is an exclusive `flock` on the file, which the
system releases when its holder dies however it dies, and the file's text says who holds
it. A lock left by a dead holder is taken over with a warning naming it; where the
filesystem has no `flock`, a holder on this host whose pid is gone counts as dead.
The file is opened without following a symbolic link (one placed there is refused).
A SLURM job requeued (same job id) takes over the lock of its own earlier allocation,
which a network filesystem may keep for a while after that node's processes are gone.
Only the first process of a distributed run (rank 0) takes it: the others are its own.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "run.lock"
_RANK_VARIABLES = ("RANK", "LOCAL_RANK", "SLURM_PROCID", "JSM_NAMESPACE_RANK")  # as Lightning

log = logging.getLogger(__name__)

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None


class RunLockedError(RuntimeError):
    """Another live launch trains in this run directory."""


def process_rank() -> int:
    """This process's rank in a distributed run, from the launcher's variables (0 alone)."""
    for name in _RANK_VARIABLES:
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _slurm_job() -> str | None:
    """This SLURM job (array task) id, which a requeued job keeps; None outside SLURM."""
    job = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    return "_".join(job) if all(job) else os.environ.get("SLURM_JOB_ID")


def _requeued_self(holder: dict) -> bool:
    """Whether `holder` is this SLURM job before a requeue (SLURM requeues a job only
    once it has ended; a filesystem lock of the dead node can outlive it for a while)."""
    job = _slurm_job()  # on the same host the dead holder's flock is already released
    return job is not None and holder.get("slurm_job") == job and (
        holder.get("host") != socket.gethostname()
    )


def _holder(text: str) -> dict:
    try:
        holder = json.loads(text)
        return holder if isinstance(holder, dict) else {}
    except ValueError:
        return {}


def _describe(holder: dict) -> str:
    if not holder:
        return "a launch that left no details"
    return (f"pid {holder.get('pid', '?')} on {holder.get('host', '?')} "
            f"since {holder.get('started_at', '?')}")


class RunLock:
    """The lock of one run directory, held from `acquire` until `release`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def acquire(cls, run_dir: Path) -> RunLock:
        """Take `run_dir/run.lock` or raise RunLockedError naming its holder. OSError
        (e.g. a read-only folder) is left to the caller."""
        path = Path(run_dir) / LOCK_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(10):  # retried when the file was replaced while we opened it
            try:  # never through a symbolic link: the lock would overwrite its target
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
            except OSError as error:
                if error.errno != errno.ELOOP:
                    raise
                raise RunLockedError(
                    f"{path} is a symbolic link (to {os.readlink(path)}); refused: remove it"
                ) from None
            try:
                previous = _holder(os.pread(fd, 1 << 16, 0).decode("utf-8", "replace"))
                if not cls._lock_file(fd, previous, path):
                    if _requeued_self(previous):  # our own job before its requeue: dead
                        log.warning("%s: lock of %s is this SLURM job's before its requeue; "
                                    "taken over", path, _describe(previous))
                        path.unlink(missing_ok=True)
                        os.close(fd)
                        continue
                    raise RunLockedError(
                        f"{path.parent} is in use by {_describe(previous)} (lock file {path}); "
                        "wait for that launch to end, or delete the lock file if it is gone"
                    )
                if os.path.exists(path) and os.stat(path).st_ino == os.fstat(fd).st_ino:
                    break
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # the file we locked was removed by its holder: take the new one
        else:
            raise RunLockedError(f"{path}: could not take the lock (it keeps changing)")
        if previous:
            log.warning("%s: taking over the lock left by %s, which is gone", path,
                        _describe(previous))
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "slurm_job": _slurm_job()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode("utf-8"), 0)
        os.fsync(fd)
        return cls(path, fd)

    @staticmethod
    def _lock_file(fd: int, previous: dict, path: Path) -> bool:
        """Lock the open file; False when a live holder has it."""
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                return False
            except OSError as error:
                if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
                log.warning("%s: the filesystem has no flock; judging the holder by its pid", path)
        same_host = previous.get("host") == socket.gethostname()
        pid = previous.get("pid")
        return not previous or (same_host and isinstance(pid, int) and not _pid_alive(pid))

    def release(self) -> None:
        """Remove the lock file and give the lock back (idempotent)."""
        if self._fd is None:
            return
        try:
            if os.path.exists(self.path) and os.stat(self.path).st_ino == os.fstat(self._fd).st_ino:
                self.path.unlink()
        except OSError as error:
            log.warning("%s: could not remove the lock file (%s)", self.path, error)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class ReadOnlyRunError(PermissionError):
    """The run directory cannot be written, so the run cannot train there."""


def _acquire(run_dir: Path, consequence: str) -> RunLock:
    """The lock of `run_dir`; ReadOnlyRunError naming the folder and `consequence` when
    the folder cannot be written."""
    try:
        return RunLock.acquire(run_dir)
    except OSError as error:
        if error.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        raise ReadOnlyRunError(
            f"{run_dir}: the run directory is read-only ({os.strerror(error.errno)}), so "
            f"{consequence}"
        ) from None


@contextmanager
def run_lock(run_dir: Path, purpose: str = "its files cannot be rewritten") -> Iterator[RunLock]:
    """The lock of an existing run directory for a tool that rewrites its files (e.g.
    `orderbench evaluate`), held for the block; ReadOnlyRunError ending in `purpose` when
    the folder cannot be written."""
    lock = _acquire(run_dir, purpose)
    try:
        yield lock
    finally:
        lock.release()


def take_run_lock(run_dir: Path) -> RunLock | None:
    """The lock of `run_dir` for the first process of a launch (None for the others);
    ReadOnlyRunError, one line naming the folder, when it cannot be written."""
    if process_rank() != 0:
        return None
    return _acquire(run_dir, "this run cannot train there; choose another paths.runs")
