"""Progress of a long data stage: a bar on a terminal (documents, documents/s and, when the
total is known, the time left), and one line in the log when the stage ends."""

from __future__ import annotations

import logging
import time

from tqdm.auto import tqdm


def rate(count: int, seconds: float) -> str:
    """``"12,345 documents in 6.1 s (2,024 documents/s)"``."""
    per_second = count / seconds if seconds > 0 else float("inf")
    return f"{count:,} documents in {seconds:.1f} s ({per_second:,.0f} documents/s)"


class StageProgress:
    """Counts the documents of one stage (``update``); ``close`` logs ``<stage>: <rate>`` and
    what ``detail`` adds. The bar shows only where standard error is a terminal."""

    def __init__(self, log: logging.Logger, stage: str, total: int | None = None) -> None:
        self.log = log
        self.stage = stage
        self.count = 0
        self.start = time.perf_counter()
        self._bar = tqdm(
            total=total, desc=stage, unit=" documents", unit_scale=True, disable=None,
            mininterval=0.5, leave=False, dynamic_ncols=True,
        )  # fmt: skip

    def update(self, documents: int) -> None:
        self.count += documents
        self._bar.update(documents)

    def close(self, detail: str = "") -> float:
        """End the stage (its line in the log); returns its seconds."""
        self._bar.close()
        seconds = time.perf_counter() - self.start
        self.log.info("%s: %s%s", self.stage, rate(self.count, seconds), detail)
        return seconds
