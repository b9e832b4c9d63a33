"""SIGTERM and SIGINT end a launch with a non-zero status and leave it resumable.

A scheduler (SLURM's `scancel`, a time limit, `kill`) or Ctrl-C stops a run with a signal.
Lightning turns a SIGTERM met inside `fit`, `validate` or `test` into its
`SIGTERMException`, a `SystemExit` whose status is 0, so the launch used to end "successfully"
with no record; outside those loops the signal killed the process with no trace.
`interruption_signals` makes both signals raise `RunInterrupted` wherever they arrive (Lightning
calls the handler installed before it as well); the launch then records the interruption in
`failed.json` (`benchmark.records.failure.write_interruption`), which the sweep summary shows as
INTERRUPTED, and exits with 128 + the signal number, as a shell reports a process killed by it.
The checkpoints written so far stay, so a relaunch resumes from the last completed epoch.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

from pytorch_lightning.utilities.exceptions import SIGTERMException

HANDLED = (signal.SIGTERM, signal.SIGINT)


class RunInterrupted(BaseException):
    """A signal asked the launch to stop (a BaseException, like KeyboardInterrupt, so that
    no `except Exception` on the way swallows it)."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(f"interrupted by {signal.Signals(self.signum).name}")

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def _raise(signum, _frame) -> None:
    raise RunInterrupted(signum)


@contextmanager
def interruption_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGINT raise `RunInterrupted`; the handlers before it
    are restored after."""
    previous = {signum: signal.getsignal(signum) for signum in HANDLED}
    for signum in HANDLED:
        signal.signal(signum, _raise)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def as_interruption(error: BaseException) -> RunInterrupted | None:
    """`error` as a `RunInterrupted` when it stands for a signal (ours, Lightning's
    `SIGTERMException`, a `KeyboardInterrupt`), else None."""
    if isinstance(error, RunInterrupted):
        return error
    if isinstance(error, SIGTERMException):
        return RunInterrupted(signal.SIGTERM)
    if isinstance(error, KeyboardInterrupt):
        return RunInterrupted(signal.SIGINT)
    return None
